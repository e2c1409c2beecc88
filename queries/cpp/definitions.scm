; Out-of-line members (`void A::m()`) are named by their qualified identifier;
; langs/cpp.toml's scope_separator turns "A::m" into the name path A/m. A conversion
; operator is named without its parameters (`operator bool`).
; @body marks what the gate lets change freely; the rest of a definition is its header.
; `= default` and `= delete` are a function's body, as the standard has it.

(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name) (destructor_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
    (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)))
    (_ declarator: (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)))
    (_ declarator: (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))))
    (function_declarator declarator: (parenthesized_declarator (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name))))
    (operator_cast) @name
    (qualified_identifier name: (operator_cast)) @name
  ]
  [(compound_statement) (try_statement) (default_method_clause) (delete_method_clause)] @body) @definition.function

(field_declaration_list
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
      (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
      (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)))
      (operator_cast) @name
    ]
    [(compound_statement) (try_statement) (default_method_clause) (delete_method_clause)]? @body) @definition.method)

; Declarations where declarations live (file, namespace, class, linkage and #if blocks),
; not inside a function body, where `T name(args);` is usually a variable.
[
  (translation_unit (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))
    (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name)))]) @definition.function)
  (declaration_list (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))
    (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier)] @name)))]) @definition.function)
  (preproc_if (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))]) @definition.function)
  (preproc_ifdef (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))]) @definition.function)
  (preproc_else (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))]) @definition.function)
  (linkage_specification body: (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))]) @definition.function)
  (template_declaration (declaration declarator: [
    (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name)
    (_ declarator: (function_declarator declarator: [(identifier) (qualified_identifier) (operator_name)] @name))]) @definition.function)
]

; `void f() = delete;` parses as an initialised declarator.
(declaration
  declarator: (init_declarator
    declarator: (function_declarator
      declarator: [(identifier) (qualified_identifier) (field_identifier) (operator_name)] @name))) @definition.function

(field_declaration_list
  [(declaration
     declarator: [
       (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
       (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
       (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))])
   (field_declaration
     declarator: [
       (function_declarator declarator: [(identifier) (field_identifier) (operator_name) (destructor_name)] @name)
       (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
       (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
       (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name)))])] @definition.method)

; A lambda where declarations live is a function: `auto handler = [](int x) { ... };`.
[
  (translation_unit (declaration declarator: (init_declarator
    declarator: (identifier) @name value: (lambda_expression body: (compound_statement) @body))) @definition.function)
  (declaration_list (declaration declarator: (init_declarator
    declarator: (identifier) @name value: (lambda_expression body: (compound_statement) @body))) @definition.function)
]

(template_declaration
  (function_definition
    declarator: [
      (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name)
      (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
      (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
      (_ declarator: (_ declarator: (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier)] @name)))
      (operator_cast) @name
      (qualified_identifier name: (operator_cast)) @name
    ]
    [(compound_statement) (try_statement) (default_method_clause) (delete_method_clause)] @body)) @definition.function

(template_declaration
  [(class_specifier name: (type_identifier) @name body: (field_declaration_list) @body)
   (struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body)]) @definition.class

; A specialization (`struct is_contiguous<std::string> {...}`) is a definition of its own,
; named by its template; its arguments are part of its header.
(template_declaration
  [(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)
   (struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)]) @definition.class

[(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)
 (struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list) @body)] @definition.class

(class_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.class

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name
  body: (declaration_list) @body) @definition.module

; A typedef of a function type or function pointer: `typedef void (*handler)(int);`.
[
  (translation_unit (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_ifdef (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_if (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_else (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_elif (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (declaration_list (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (field_declaration_list (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
]

; What a typedef or alias stands for is its body, as a struct's fields are; its name alone
; is its header (@header), so `typedef T x;` and `using x = T;` are the same definition.
; A typedef counts where declarations live (file, namespace, class, #if blocks), not inside a
; function body, where it is a local name.
[
  (translation_unit (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (declaration_list (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (field_declaration_list (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_ifdef (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_if (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_else (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_elif (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
]

[
  (translation_unit (type_definition type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
                                     declarator: (type_identifier) @name) @definition.type)
  (declaration_list (type_definition type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
                                     declarator: (type_identifier) @name) @definition.type)
  (field_declaration_list (type_definition type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
                                           declarator: (type_identifier) @name) @definition.type)
]

[
  (translation_unit (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (declaration_list (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (field_declaration_list (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (preproc_ifdef (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (preproc_if (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (preproc_else (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
  (preproc_elif (alias_declaration name: (type_identifier) @name @header type: (_) @body) @definition.type)
]

(preproc_function_def
  name: (identifier) @name
  value: (_)? @body) @definition.function

; The grammar reads an out-of-line `A::~A() = default;` as an assignment: its call is the
; definition (the same header tokens as `A::~A() {}`), `= default` stays outside it.
(expression_statement
  (assignment_expression
    left: (call_expression function: (qualified_identifier) @name) @definition.function
    right: (identifier) @_clause)
  (#match? @_clause "^(default|delete)$"))

; Definitions a macro makes of the block after it, named by the macro's arguments: Catch2's
; `TEST_CASE("name") {...}` and `TEST_CASE_METHOD(Fixture, "name")`; GoogleTest's
; `TEST(Suite, Name)` and `TEST_F(Suite, Name)`; libuv's `TEST_IMPL(name)`. Only where
; declarations live, not inside a body, where `SECTION("x") {...}` is a statement. Later
; patterns win over the function pattern that reads `TEST_F` itself as the name.
(
 [
  (translation_unit (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (declaration_list (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_ifdef (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_if (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_else (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
 ]
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

((function_definition
   declarator: (function_declarator
     declarator: (identifier) @_macro
     parameters: (parameter_list . (parameter_declaration type: (type_identifier) @name) .))
   body: (compound_statement) @body) @definition.function
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

((function_definition
   declarator: (function_declarator
     declarator: (identifier) @_macro
     parameters: (parameter_list . (parameter_declaration type: (type_identifier) @scope) . (parameter_declaration type: (type_identifier) @name) .))
   body: (compound_statement) @body) @definition.function
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

((function_definition
   type: (type_identifier) @_macro
   declarator: (parenthesized_declarator (identifier) @name)
   body: (compound_statement) @body) @definition.function
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))
