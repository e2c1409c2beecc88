; TypeScript and TSX. Method decorators are siblings in a class body: langs/ attaches them.

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(function_signature
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.module

(module
  name: [(identifier) (string)] @name) @definition.module

(method_definition
  name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @definition.method

(method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(abstract_method_signature
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.method

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class))) @definition.class

; A fallback definition: `var f = Object.getPrototypeOf || function (o) { ... }`.
[
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (binary_expression right: [(arrow_function) (function_expression)])))
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: (binary_expression right: [(arrow_function) (function_expression)])))
] @definition.function

(assignment_expression
  left: [(identifier) @name
         (member_expression property: (property_identifier) @name)]
  right: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(pair
  key: [(property_identifier) (string)] @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

; `export` and `export default` belong to what they export.
(export_statement
  declaration: [
    (function_declaration name: (identifier) @name)
    (generator_function_declaration name: (identifier) @name)
    (function_signature name: (identifier) @name)
  ]) @definition.function

(export_statement
  declaration: [
    (class_declaration name: (type_identifier) @name)
    (abstract_class_declaration name: (type_identifier) @name)
  ]) @definition.class

(export_statement
  declaration: (interface_declaration name: (type_identifier) @name)) @definition.interface

(export_statement
  declaration: (type_alias_declaration name: (type_identifier) @name)) @definition.type

(export_statement
  declaration: (enum_declaration name: (identifier) @name)) @definition.enum

(export_statement
  declaration: (internal_module name: [(identifier) (nested_identifier)] @name)) @definition.module

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]))) @definition.function
