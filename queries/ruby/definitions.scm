; @body marks what the gate lets change freely; the rest (def line, name, parameters,
; superclass, the closing `end`) is the header.
(method name: (_) @name body: (_)? @body) @definition.method
(singleton_method name: (_) @name body: (_)? @body) @definition.method
(class name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.class
(module name: [(constant) (scope_resolution)] @name body: (_)? @body) @definition.module
