; Outer attributes (#[derive], #[test]) are siblings before an item: langs/ attaches them.

(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(impl_item
  body: (declaration_list
    (function_item name: (identifier) @name) @definition.method))

(trait_item
  body: (declaration_list
    [(function_item name: (identifier) @name)
     (function_signature_item name: (identifier) @name)] @definition.method))

(struct_item
  name: (type_identifier) @name) @definition.struct

(union_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(trait_item
  name: (type_identifier) @name) @definition.trait

(impl_item
  type: [(type_identifier) (generic_type type: (type_identifier)) (scoped_type_identifier name: (type_identifier))] @name) @definition.impl

(mod_item
  name: (identifier) @name) @definition.module

(type_item
  name: (type_identifier) @name) @definition.type

(macro_definition
  name: (identifier) @name) @definition.function
