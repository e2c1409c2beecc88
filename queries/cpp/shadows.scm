; An object-like macro of a definition's name replaces every later use of it (`#define f g`).
(preproc_def name: (identifier) @shadow) @statement
