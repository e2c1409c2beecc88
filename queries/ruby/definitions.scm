; @body marks what the gate lets change freely; the rest (def line, name, parameters,
; superclass, the closing `end`) is the header.
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(class name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.module
; A method made at run time, named by a symbol or a plain string: `define_method(:name) do ... end`,
; `define_method("name") { ... }`, `define_method(:name, instance_method(:other))`. The block is its body.
((call
   receiver: (_)? @_receiver
   method: (identifier) @_verb
   arguments: (argument_list . [(simple_symbol) @name (string . (string_content) @name .)])
   block: [(do_block body: (_)? @body) (block body: (_)? @body)]?) @definition.method
 (#any-of? @_verb "define_method" "define_singleton_method"))
