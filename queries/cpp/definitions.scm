; Out-of-line members (`void A::m()`) are named by their qualified identifier;
; langs/cpp.toml's scope_separator turns "A::m" into the name path A/m.

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (destructor_name)] @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @definition.function

(function_definition
  declarator: (reference_declarator
    (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @definition.function

(field_declaration_list
  (function_definition
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)) @definition.method)

(declaration
  declarator: (function_declarator
    declarator: [(identifier) (qualified_identifier)] @name)) @definition.function

; `void f() = delete;` parses as an initialised declarator.
(declaration
  declarator: (init_declarator
    declarator: (function_declarator
      declarator: [(identifier) (qualified_identifier) (field_identifier) (operator_name)] @name))) @definition.function

(field_declaration_list
  [(declaration
     declarator: (function_declarator
       declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))
   (field_declaration
     declarator: (function_declarator
       declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name))] @definition.method)

(template_declaration
  (function_definition
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))) @definition.function

(template_declaration
  [(class_specifier name: (type_identifier) @name body: (field_declaration_list))
   (struct_specifier name: (type_identifier) @name body: (field_declaration_list))]) @definition.class

(class_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

; A typedef counts where declarations live (file, namespace, class, #if blocks), not inside a
; function body, where it is a local name.
[
  (translation_unit (type_definition declarator: (type_identifier) @name) @definition.type)
  (declaration_list (type_definition declarator: (type_identifier) @name) @definition.type)
  (field_declaration_list (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_ifdef (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_if (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_else (type_definition declarator: (type_identifier) @name) @definition.type)
  (preproc_elif (type_definition declarator: (type_identifier) @name) @definition.type)
]

[
  (translation_unit (alias_declaration name: (type_identifier) @name) @definition.type)
  (declaration_list (alias_declaration name: (type_identifier) @name) @definition.type)
  (field_declaration_list (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_ifdef (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_if (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_else (alias_declaration name: (type_identifier) @name) @definition.type)
  (preproc_elif (alias_declaration name: (type_identifier) @name) @definition.type)
]

(preproc_function_def
  name: (identifier) @name) @definition.function
