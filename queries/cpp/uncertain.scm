; Where tree-sitter misreads valid C++ (what the preprocessor makes valid, or what the grammar lacks): a syntax error inside a node
; captured @uncertain is not counted against a write (gateway/gate/syntax_problems.py).
; A macro is spelled in capitals: LZ4LIB_API, MEM_STATIC, FORCE_INLINE, TEST_CASE.

; A declaration prefix before the type: `MEM_STATIC int f(void) {...}`, `LZ4LIB_API int f(...);`.
((_ type: (type_identifier) @_macro (ERROR) @uncertain)
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; Two prefixes, read as a declaration of its own: `MEM_STATIC FORCE_INLINE size_t f(void)`.
((declaration type: (type_identifier) @_macro declarator: (identifier)) @uncertain
 .
 [(function_definition) (declaration)]
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; A prefix macro with arguments: `ZSTD_DEPRECATED("use x") ZSTDLIB_API size_t f(void);`.
((ERROR . [(identifier) @_macro (call_expression function: (identifier) @_macro)]) @uncertain
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; A block after a macro call defines something: `TEST_CASE("name") {...}`, `TEST(Suite, Name) {...}`.
((expression_statement (call_expression function: (identifier) @_macro)) @uncertain
 .
 (compound_statement)
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; A macro taking a pointer type: `ZSTD_ALIGNOF(void*)`, which reads as a product missing its operand.
((call_expression
   function: (identifier) @_macro
   arguments: (argument_list (binary_expression left: (identifier) @_type "*")) @uncertain)
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$")
 (#match? @_type "^(void|char|short|int|long|float|double|unsigned|signed|const|[a-z_0-9]+_t|[A-Z][A-Za-z0-9_]*)$"))

; A unit macro after a number: `1 GB`, `64 KB`.
(((ERROR (number_literal)) @uncertain . (identifier) @_macro)
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; C++ reads `ZSTD_ALIGNOF(void*)` as an error holding the type.
((call_expression
   function: (identifier) @_macro
   arguments: (argument_list (ERROR (primitive_type))) @uncertain)
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))

; The grammar does not know `->*`: `( f->*m_testAsMethod )();` (Catch2's catch_test_registry.hpp).
((ERROR) @uncertain
 (#match? @uncertain "->[ \t]*\\*$"))

; Where only a macro makes the code valid and the grammar cannot tell which: an error inside a
; node captured @unsure lets the write through saying "uncertain" (reason `uncertain_syntax`),
; naming the @_macro. A project macro before a parameter's type: `__unused struct client *oc`.
((parameter_declaration
   type: (type_identifier) @_macro
   .
   (type_qualifier)*
   .
   (ERROR) @unsure)
 (#match? @unsure "^((struct|union|enum|class)[ \t\n]+[A-Za-z_][A-Za-z0-9_]*|const|volatile|void|char|short|int|long|float|double|signed|unsigned|bool|[a-z_][a-z0-9_]*_t)$"))

; The same before a basic type read as the parameter's name: `__unused int fd`.
((parameter_list
   (parameter_declaration type: (type_identifier) @_macro declarator: (identifier) @_type)
   .
   (ERROR . (identifier) .) @unsure)
 (#match? @_type "^(void|char|short|int|long|float|double|signed|unsigned|bool)$"))

; An empty argument of a macro call: `RB_NEXT(tree, , node)`.
((call_expression
   function: (identifier) @_macro
   arguments: (argument_list (ERROR) @unsure))
 (#eq? @unsure ",")
 (#match? @_macro "^[A-Z_][A-Z0-9_]*$"))
