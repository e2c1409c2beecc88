; @scope, where present, names the enclosing type of a definition declared outside it.
; A `type` declaration with a single spec is one definition, keyword included;
; in a grouped `type ( ... )` each spec stands alone.

(function_declaration
  name: (identifier) @name) @definition.function

; The receiver's type is the method's scope: `func (r *A) M()` is A/M.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))]))
  name: (field_identifier) @name) @definition.method

(type_declaration
  (type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct)

(type_declaration
  (type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface)

(type_declaration
  (type_spec name: (type_identifier) @name
    type: (_) @_type (#not-match? @_type "^(struct|interface)")) @definition.type)

(type_declaration
  (type_alias name: (type_identifier) @name) @definition.type)

(type_declaration
  .
  (type_spec name: (type_identifier) @name type: (struct_type))
  .) @definition.struct

(type_declaration
  .
  (type_spec name: (type_identifier) @name type: (interface_type))
  .) @definition.interface

(type_declaration
  .
  (type_spec name: (type_identifier) @name
    type: (_) @_type (#not-match? @_type "^(struct|interface)"))
  .) @definition.type

(type_declaration
  .
  (type_alias name: (type_identifier) @name)
  .) @definition.type
