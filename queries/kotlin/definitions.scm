; This grammar has no field names: the name is the identifier child.
; @body marks what the gate lets change freely; the rest of a declaration is its header.

(class_declaration
  (type_identifier) @name) @definition.class

(class_declaration
  (type_identifier) @name
  [(class_body) (enum_class_body)] @body) @definition.class

(class_declaration
  "interface"
  (type_identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  "enum"
  (type_identifier) @name
  (enum_class_body)? @body) @definition.enum

(object_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.class

(companion_object
  (type_identifier) @name
  (class_body)? @body) @definition.class

(function_declaration
  (simple_identifier) @name
  (function_body)? @body) @definition.function

(class_body
  (function_declaration
    (simple_identifier) @name
    (function_body)? @body) @definition.method)

(secondary_constructor
  "constructor" @name
  (statements)? @body) @definition.method

(type_alias
  (type_identifier) @name) @definition.type

; A property whose accessors follow it (this grammar makes them its next siblings).
(_
  (property_declaration
    (variable_declaration (simple_identifier) @name)) @definition.method
  .
  [(getter) (setter)])

; A property holding a function: `val f = { x: Int -> x }`, `val g = fun(x: Int) = x`.
(property_declaration
  (variable_declaration (simple_identifier) @name)
  [(lambda_literal) @body
   (anonymous_function (function_body) @body)]) @definition.function
