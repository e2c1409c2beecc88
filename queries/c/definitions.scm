; Functions are named through their declarator, behind any mix of up to three pointers,
; parentheses and function declarators (`int ***f()`, `void (*signal(int, void (*)(int)))(int)`).
; @body marks what the gate lets change freely; the rest of a definition is its header.

(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ declarator: (function_declarator declarator: (identifier) @name))
    (parenthesized_declarator (function_declarator declarator: (identifier) @name))
    (attributed_declarator (function_declarator declarator: (identifier) @name))
    (_ declarator: [(_ declarator: (function_declarator declarator: (identifier) @name))
                    (parenthesized_declarator (function_declarator declarator: (identifier) @name))])
    (_ declarator: (parenthesized_declarator [(_ declarator: (function_declarator declarator: (identifier) @name))
                                              (parenthesized_declarator (function_declarator declarator: (identifier) @name))]))
    (_ declarator: (_ declarator: [(_ declarator: (function_declarator declarator: (identifier) @name))
                                   (parenthesized_declarator (function_declarator declarator: (identifier) @name))]))
  ]
  body: (compound_statement) @body
  (#not-eq? @name "__attribute__")) @definition.function

; The grammar reads `void *__attribute__((malloc)) f(size_t n)` as a function named
; __attribute__ whose real name sits in what follows.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @_attribute (call_expression function: (identifier) @name))
    (_ declarator: (function_declarator declarator: (identifier) @_attribute (call_expression function: (identifier) @name)))
  ]
  body: (compound_statement) @body
  (#eq? @_attribute "__attribute__")) @definition.function

(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (_ declarator: (function_declarator declarator: (identifier) @name))
    (_ declarator: (_ declarator: (function_declarator declarator: (identifier) @name)))
    (_ declarator: (parenthesized_declarator (_ declarator: (function_declarator declarator: (identifier) @name))))
    (_ declarator: (_ declarator: (_ declarator: (function_declarator declarator: (identifier) @name))))
  ]
  (#not-eq? @name "__attribute__")) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list) @body) @definition.enum

; A typedef of a function type or function pointer: `typedef void (*handler)(int);`.
[
  (translation_unit (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_ifdef (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_if (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_else (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
  (preproc_elif (type_definition type: (_) @body declarator: (function_declarator declarator: (parenthesized_declarator [(type_identifier) @name (pointer_declarator declarator: (type_identifier) @name)]))) @definition.type)
]

; What a typedef or alias stands for is its body, as a struct's fields are; its name alone
; is its header (@header), so `typedef T x;` and `using x = T;` are the same definition.
; A typedef counts where declarations live (file, #if blocks), not inside a function body,
; where it is a local name. The fields of a typedef'd struct, union or enum are its body.
[
  (translation_unit (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_ifdef (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_if (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_else (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
  (preproc_elif (type_definition type: (_) @body declarator: (type_identifier) @name @header) @definition.type)
]

[
  (translation_unit (type_definition
    type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
    declarator: (type_identifier) @name) @definition.type)
  (preproc_ifdef (type_definition
    type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
    declarator: (type_identifier) @name) @definition.type)
  (preproc_if (type_definition
    type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
    declarator: (type_identifier) @name) @definition.type)
  (preproc_else (type_definition
    type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
    declarator: (type_identifier) @name) @definition.type)
  (preproc_elif (type_definition
    type: [(struct_specifier body: (_) @body) (union_specifier body: (_) @body) (enum_specifier body: (_) @body)]
    declarator: (type_identifier) @name) @definition.type)
]

(preproc_function_def
  name: (identifier) @name
  value: (_)? @body) @definition.function

; Definitions a macro makes of the block after it, named by the macro's arguments: libuv's
; `TEST_IMPL(name) {...}`; Catch2's `TEST_CASE("name") {...}` and `TEST_CASE_METHOD(Fixture,
; "name")`; GoogleTest's `TEST(Suite, Name)`, `TEST_F(Suite, Name)`. Only where declarations
; live, not inside a body, where `SECTION("x") {...}` is a statement.
((function_definition
   type: (type_identifier) @_macro
   declarator: (parenthesized_declarator (identifier) @name)
   body: (compound_statement) @body) @definition.function
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

(
 [
  (translation_unit (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_ifdef (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_if (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
  (preproc_else (expression_statement (call_expression function: (identifier) @_macro arguments: (argument_list . [(string_literal (string_content) @name) ((identifier) @scope . (string_literal (string_content) @name)) ((identifier) @scope . (identifier) @name)]))) @definition.function . (compound_statement) @body)
 ]
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))
