; Module-level names other files import that are not definitions: constants and variables
; bound at the top of the module (`DEFAULT_REDIRECT_LIMIT = 30`, `X: int = 1`, `A, B = 1, 2`).
; @name on each bound name; the verifier (gateway.verify) treats a binding renamed or removed
; by a write like a definition, to find the files that import it.
(module (assignment left: (identifier) @name))
(module (assignment left: (pattern_list (identifier) @name)))
(module (assignment left: (tuple_pattern (identifier) @name)))
