; Outer attributes (#[derive], #[test]) are siblings before an item: langs/ attaches them.
; @body marks what the gate lets change freely; the rest of an item is its header.

(function_item
  name: (identifier) @name
  body: (block) @body) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name body: (block) @body) @definition.method))

(trait_item
  body: (declaration_list
    (function_item name: (identifier) @name body: (block) @body) @definition.method))

(trait_item
  body: (declaration_list
    (function_signature_item name: (identifier) @name) @definition.method))

(struct_item
  name: (type_identifier) @name) @definition.struct

(struct_item
  name: (type_identifier) @name
  body: [(field_declaration_list) (ordered_field_declaration_list)] @body) @definition.struct

(union_item
  name: (type_identifier) @name
  body: (field_declaration_list) @body) @definition.struct

(enum_item
  name: (type_identifier) @name
  body: (enum_variant_list) @body) @definition.enum

(trait_item
  name: (type_identifier) @name
  body: (declaration_list) @body) @definition.trait

; `impl Trait for &T`, `impl<T> X for Vec<T>`, `impl m::T`: named by the implementing type.
(impl_item
  type: [(type_identifier) @name
         (generic_type type: [(type_identifier) (scoped_type_identifier name: (type_identifier))] @name)
         (scoped_type_identifier name: (type_identifier) @name)
         (reference_type type: [(type_identifier) @name
                                (generic_type type: (type_identifier) @name)
                                (scoped_type_identifier name: (type_identifier) @name)])
         (pointer_type type: [(type_identifier) @name (generic_type type: (type_identifier) @name)])]
  body: (declaration_list) @body) @definition.impl

(mod_item
  name: (identifier) @name) @definition.module

(mod_item
  name: (identifier) @name
  body: (declaration_list) @body) @definition.module

(type_item
  name: (type_identifier) @name) @definition.type

; A macro's rules are its body, as a function's block is: `macro_rules! name {` and `}` its header.
(macro_definition
  name: (identifier) @name) @definition.function

(macro_definition
  name: (identifier) @name . [(line_comment) (block_comment)]* . (macro_rule) @body .) @definition.function

(macro_definition
  name: (identifier) @name . [(line_comment) (block_comment)]* . (macro_rule) @body (macro_rule) @body.last .) @definition.function
