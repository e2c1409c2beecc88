; Functions are named through their declarator, possibly behind pointers.

(function_definition
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator declarator: (identifier) @name)))) @definition.function

(declaration
  declarator: (function_declarator declarator: (identifier) @name)) @definition.function

(declaration
  declarator: (pointer_declarator
    declarator: (function_declarator declarator: (identifier) @name))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

; A typedef counts where declarations live (file, namespace, class, #if blocks), not inside a
; function body, where it is a local name.
[
  (translation_unit (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_ifdef (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_if (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_else (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_elif (type_definition declarator: (type_identifier) @name) @definition.type)
]

(preproc_function_def
  name: (identifier) @name) @definition.function
