; This grammar has no field names: the name is the identifier child.

(class_declaration
  (type_identifier) @name) @definition.class

(class_declaration
  "interface"
  (type_identifier) @name) @definition.interface

(class_declaration
  "enum"
  (type_identifier) @name) @definition.enum

(object_declaration
  (type_identifier) @name) @definition.class

(companion_object
  (type_identifier) @name) @definition.class

(function_declaration
  (simple_identifier) @name) @definition.function

(class_body
  (function_declaration
    (simple_identifier) @name) @definition.method)

(type_alias
  (type_identifier) @name) @definition.type
