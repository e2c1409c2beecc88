; Items inside a brace-delimited macro invocation (`cfg_if! { ... fn f() {} ... }`) are
; Rust too: the gateway parses the inside in place and finds its definitions.
(macro_invocation
  (token_tree . "{") @injection.content)
