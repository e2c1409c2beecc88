; Module-level constants and variables (`export const maxErrorResponseBodySize = ...`), @name
; on each bound name: a write that renames or removes one is verified like a definition's.
(program (lexical_declaration (variable_declarator name: (identifier) @name)))
(program (variable_declaration (variable_declarator name: (identifier) @name)))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name))))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name))))
