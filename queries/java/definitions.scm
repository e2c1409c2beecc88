; Annotations sit inside `modifiers`, so they are part of the definition node.
; @body marks what the gate lets change freely; the rest of a declaration is its header.

(class_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(record_declaration
  name: (identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (identifier) @name
  body: (interface_body) @body) @definition.interface

(annotation_type_declaration
  name: (identifier) @name
  body: (annotation_type_body) @body) @definition.interface

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(method_declaration
  name: (identifier) @name) @definition.method

(method_declaration
  name: (identifier) @name
  body: (block) @body) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (constructor_body) @body) @definition.method

(compact_constructor_declaration
  name: (identifier) @name
  body: (block) @body) @definition.method

(annotation_type_element_declaration
  name: (identifier) @name) @definition.method

; A field holding a lambda is a method in all but name: `Runnable task = () -> { ... };`.
(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name
    value: (lambda_expression body: (_) @body))) @definition.method
