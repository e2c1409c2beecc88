; Attributes are attribute_list children of the declaration they sit on.
; @body marks what the gate lets change freely; the rest of a declaration is its header.
; Properties count when they have code (accessor bodies or `=> expr`); an indexer is named
; `this`, a conversion operator by the type it converts to.

(class_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name body: (declaration_list) @body) @definition.class
(struct_declaration name: (identifier) @name body: (declaration_list) @body) @definition.struct
(interface_declaration name: (identifier) @name body: (declaration_list) @body) @definition.interface
(enum_declaration name: (identifier) @name body: (enum_member_declaration_list) @body) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(namespace_declaration name: [(identifier) (qualified_name)] @name body: (declaration_list) @body) @definition.module
; `namespace Shop.Orders;` holds the rest of the file, though not as its children: its name is
; all there is to judge (a rename of it is structural).
(file_scoped_namespace_declaration name: [(identifier) (qualified_name)] @name) @definition.module
(method_declaration name: (identifier) @name) @definition.method
(method_declaration name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(constructor_declaration name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(destructor_declaration name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(operator_declaration operator: _ @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(conversion_operator_declaration type: (_) @name body: [(block) (arrow_expression_clause)] @body) @definition.method
(property_declaration
  name: (identifier) @name
  accessors: (accessor_list (accessor_declaration body: (_))) @body) @definition.method
(property_declaration
  name: (identifier) @name
  value: (arrow_expression_clause) @body) @definition.method
(indexer_declaration "this" @name accessors: (accessor_list) @body) @definition.method
(indexer_declaration "this" @name value: (arrow_expression_clause) @body) @definition.method
(event_declaration name: (identifier) @name accessors: (accessor_list) @body) @definition.method
(local_function_statement name: (identifier) @name body: [(block) (arrow_expression_clause)] @body) @definition.function
