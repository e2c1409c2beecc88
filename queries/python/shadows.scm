; Statements that remove or replace a definition as Python sees it, naming it by @shadow:
; `del f` unbinds it; the gate judges a new one like the definition's removal.
(delete_statement (identifier) @shadow) @statement
(delete_statement (expression_list (identifier) @shadow)) @statement
