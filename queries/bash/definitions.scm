; A function, `name() { ... }` or `function name { ... }`; its body (a compound statement, or a
; subshell, test or other compound command) is what is not header.
(function_definition
  name: (word) @name
  body: (_) @body) @definition.function
