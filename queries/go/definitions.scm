; @scope, where present, names the enclosing type of a definition declared outside it.
; @body marks what the gate lets change freely (statements, struct fields, interface
; methods, the type a type name stands for); the rest of a definition is its header.
; A `type` declaration with a single spec is one definition, keyword included;
; in a grouped `type ( ... )` each spec stands alone.

(function_declaration
  name: (identifier) @name
  body: (block) @body) @definition.function

(function_declaration
  name: (identifier) @name
  !body) @definition.function

; The receiver's type is the method's scope: `func (r *A) M()` is A/M.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; A package-level function value: `var f = func(...) { ... }`. (`#has-parent?`, not a pattern
; rooted at `source_file`: such a pattern makes a query over a few lines visit the whole file.)
((var_declaration
   (var_spec name: (identifier) @name value: (expression_list . (func_literal body: (block) @body)))) @definition.function
 (#has-parent? @definition.function source_file))

((var_declaration
   (var_spec_list
     (var_spec name: (identifier) @name value: (expression_list . (func_literal body: (block) @body))) @definition.function)) @_declaration
 (#has-parent? @_declaration source_file))

(type_declaration
  (type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body)) @definition.struct)

(type_declaration
  (type_spec name: (type_identifier) @name type: (interface_type) @body) @definition.interface)

(type_declaration
  (type_spec name: (type_identifier) @name
    type: (_) @body (#not-match? @body "^(struct|interface)")) @definition.type)

(type_declaration
  (type_alias name: (type_identifier) @name type: (_) @body) @definition.type)

(type_declaration
  .
  (type_spec name: (type_identifier) @name type: (struct_type (field_declaration_list) @body))
  .) @definition.struct

(type_declaration
  .
  (type_spec name: (type_identifier) @name type: (interface_type) @body)
  .) @definition.interface

(type_declaration
  .
  (type_spec name: (type_identifier) @name
    type: (_) @body (#not-match? @body "^(struct|interface)"))
  .) @definition.type

(type_declaration
  .
  (type_alias name: (type_identifier) @name type: (_) @body)
  .) @definition.type
