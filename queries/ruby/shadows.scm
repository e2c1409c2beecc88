; Calls that replace or remove a method as Ruby sees it, naming it by @shadow (a symbol).
((call
  method: (identifier) @_verb
  arguments: (argument_list . [(simple_symbol) (string)] @shadow))
 (#any-of? @_verb "define_method" "remove_method" "undef_method" "alias_method")) @statement
(undef (identifier) @shadow) @statement
