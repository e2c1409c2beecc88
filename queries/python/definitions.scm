; Definitions in the tags convention: @definition.<kind> around the whole definition,
; @name on its name, @body on its body (what is not body is the header the gate guards).
; When several patterns capture the same name, the widest capture wins (the decorated
; form), and among equally wide ones the later pattern.

(function_definition
  name: (identifier) @name
  body: (block) @body) @definition.function

(class_definition
  name: (identifier) @name
  body: (block) @body) @definition.class

(decorated_definition
  definition: (function_definition
    name: (identifier) @name
    body: (block) @body)) @definition.function

(decorated_definition
  definition: (class_definition
    name: (identifier) @name
    body: (block) @body)) @definition.class

(class_definition
  body: (block
    (function_definition
      name: (identifier) @name
      body: (block) @body) @definition.method))

(class_definition
  body: (block
    (decorated_definition
      definition: (function_definition
        name: (identifier) @name
        body: (block) @body)) @definition.method))

; A module-level lambda is a function: `handler = lambda request: ...`. (`#has-parent?`, not a
; pattern rooted at `module`: such a pattern makes a query over a few lines visit the whole file.)
((assignment
   left: (identifier) @name
   right: (lambda body: (_) @body)) @definition.function
 (#has-parent? @definition.function module))
