; Where tree-sitter misreads valid Rust (what the bundled grammar lacks): a syntax error inside a
; node captured @uncertain is not counted against a write (gateway/gate/syntax_problems.py).

; A lifetime bound before the trait: `Box<dyn 'a + Fn(&[T]) -> T>` (the polyglot `react`
; solution) reads as `dyn`, a stray `'`, and a trait named `a` bounded by `Fn(...)`.
((dynamic_type (ERROR) @uncertain)
 (#eq? @uncertain "'"))
