; JavaScript and JSX. Method decorators are siblings in a class body: langs/ attaches them.

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @definition.method

(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
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
  ]) @definition.function

(export_statement
  declaration: (class_declaration name: (identifier) @name)) @definition.class

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression) (generator_function)]))) @definition.function
