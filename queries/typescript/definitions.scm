; TypeScript and TSX. Method decorators are siblings in a class body: langs/ attaches them.
; @body marks what the gate lets change freely; everything else of a definition is its header.
; A type alias's type is its body, as an interface's members are.
; A function value may sit behind parentheses, `as`, `satisfies`, or a component wrapper
; (memo, forwardRef, observer); the value's own body is the body.

(function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(generator_function_declaration
  name: (identifier) @name
  body: (statement_block) @body) @definition.function

(function_signature
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name
  body: (class_body) @body) @definition.class

(interface_declaration
  name: (type_identifier) @name
  body: (_) @body) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name
  value: (_) @body) @definition.type

(enum_declaration
  name: (identifier) @name
  body: (enum_body) @body) @definition.enum

(internal_module
  name: [(identifier) (nested_identifier)] @name
  body: (statement_block) @body) @definition.module

(module
  name: [(identifier) (string)] @name) @definition.module

(module
  name: [(identifier) (string)] @name
  body: (statement_block) @body) @definition.module

(method_definition
  name: [(property_identifier) (private_property_identifier) (computed_property_name) (string)] @name
  body: (statement_block) @body) @definition.method

(method_signature
  name: [(property_identifier) (private_property_identifier) (computed_property_name) (string)] @name) @definition.method

(abstract_method_signature
  name: [(property_identifier) (private_property_identifier) (computed_property_name)] @name) @definition.method

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [
    (arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)
    (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
    (as_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                      (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
    (satisfies_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                             (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
  ]) @definition.method

[
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)
        (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
        (as_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                          (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
        (satisfies_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                                 (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
      ]))
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)
        (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
        (as_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
        (satisfies_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
      ]))
] @definition.function

; Components behind a wrapper: `const Card = memo(function Card() {...})`, `forwardRef((p, ref) => ...)`,
; also cast: `forwardRef(...) as unknown as Typed`.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [
      (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
      (as_expression . [
        (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
        (as_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))])
      (satisfies_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))])
  (#match? @_wrapper "^(React\\.)?(memo|forwardRef|observer)$")) @definition.function

(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [
      (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
      (as_expression . [
        (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
        (as_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))])
      (satisfies_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))]
  (#match? @_wrapper "^(React\\.)?(memo|forwardRef|observer)$")) @definition.method

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class body: (class_body) @body))) @definition.class

; A fallback definition: `var f = Object.getPrototypeOf || function (o) { ... }`.
[
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: (binary_expression right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])))
  (variable_declaration
    (variable_declarator
      name: (identifier) @name
      value: (binary_expression right: [(arrow_function body: (_) @body) (function_expression body: (_) @body)])))
] @definition.function

(assignment_expression
  left: [(identifier) @name
         (member_expression property: (property_identifier) @name)]
  right: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)]) @definition.function

(pair
  key: [(property_identifier) (string)] @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)]) @definition.function

; `export` and `export default` belong to what they export.
(export_statement
  declaration: [
    (function_declaration name: (identifier) @name body: (statement_block) @body)
    (generator_function_declaration name: (identifier) @name body: (statement_block) @body)
  ]) @definition.function

(export_statement
  declaration: (function_signature name: (identifier) @name)) @definition.function

(export_statement
  declaration: [
    (class_declaration name: (type_identifier) @name body: (class_body) @body)
    (abstract_class_declaration name: (type_identifier) @name body: (class_body) @body)
  ]) @definition.class

(export_statement
  declaration: (interface_declaration name: (type_identifier) @name body: (_) @body)) @definition.interface

(export_statement
  declaration: (type_alias_declaration name: (type_identifier) @name value: (_) @body)) @definition.type

(export_statement
  declaration: (enum_declaration name: (identifier) @name body: (enum_body) @body)) @definition.enum

(export_statement
  declaration: (internal_module name: [(identifier) (nested_identifier)] @name body: (statement_block) @body)) @definition.module

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
        (arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)
        (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])
        (as_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                          (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
        (satisfies_expression . [(arrow_function body: (_) @body) (function_expression body: (_) @body)
                                 (parenthesized_expression [(arrow_function body: (_) @body) (function_expression body: (_) @body)])])
      ]))) @definition.function

(export_statement
  declaration: (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [
      (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
      (as_expression . [
        (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))]))
        (as_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))])
      (satisfies_expression . (call_expression
        function: [(identifier) (member_expression)] @_wrapper
        arguments: (arguments . [
          (arrow_function body: (_) @body) (function_expression body: (_) @body)
          (call_expression
            function: [(identifier) (member_expression)] @_inner
            arguments: (arguments . [(arrow_function body: (_) @body) (function_expression body: (_) @body)]))])))]))
  (#match? @_wrapper "^(React\\.)?(memo|forwardRef|observer)$")) @definition.function

; An anonymous default export is named `default`.
(export_statement
  "default" @name
  value: [(arrow_function body: (_) @body) (function_expression body: (_) @body) (generator_function body: (_) @body)]) @definition.function

(export_statement
  "default" @name
  value: (class body: (class_body) @body)) @definition.class
