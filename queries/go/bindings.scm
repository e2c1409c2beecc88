; Package-level constants and variables (`const DefaultLimit = 30`, grouped or not), @name on
; each bound name: a write that renames or removes one is verified like a definition's.
(source_file (const_declaration (const_spec name: (identifier) @name)))
(source_file (var_declaration (var_spec name: (identifier) @name)))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name))))
