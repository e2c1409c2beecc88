"""Lifting B → A into whole-definition operations, in every language family: the hunk shapes
real commits have (context that starts with the previous definition's closing brace, a new
definition next to a changed one), and the result always A byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.gate.effect import edit_effect
from gateway.langs import default_registry
from gateway.symbols.backends import TreeSitterBackend
from gateway.symbols.lift import lift
from gateway.symbols.service import symbols_of
from gateway.syntax import language_for

GO = "package p\n\nfunc a() int {\n\treturn 1\n}\n\nfunc b() int {\n\treturn 2\n}\n"
JAVA = "class K {\n    int a() {\n        return 1;\n    }\n\n    int b() {\n        return 2;\n    }\n}\n"
C = "int a(void) {\n    return 1;\n}\n\nint b(void) {\n    return 2;\n}\n"
TS = "export class K {\n  a(): number {\n    return 1;\n  }\n\n  b(): number {\n    return 2;\n  }\n}\n"
PY = "def a():\n    pass\n\n\ndef b():\n    pass\n"
PY3 = "def a():\n    pass\n\n\ndef b():\n    pass\n\n\ndef c():\n    pass\n"
RUST = "fn a() -> i32 {\n    1\n}\n\nfn b() -> i32 {\n    2\n}\n"

CASES = [
    ("go-insert-after-closing-brace", "p.go", GO, "\treturn 1\n}\n\nfunc b", "\treturn 1\n}\n\nfunc c() int {\n\treturn 3\n}\n\nfunc b",
     [("insert_code", "a", "c")]),
    ("java-insert-method-straddling", "K.java", JAVA, "        return 1;\n    }\n\n    int b", "        return 1;\n    }\n\n    int c() {\n        return 3;\n    }\n\n    int b",
     [("insert_code", "K/a", "K/c")]),
    ("c-changed-and-added", "p.c", C, "int a(void) {\n    return 1;\n}\n", "int a(int x) {\n    return x;\n}\n\nint z(void) {\n    return 0;\n}\n",
     [("replace_symbol", "a", "a"), ("insert_code", "a", "z")]),
    ("ts-tail-and-head", "k.ts", TS, "    return 1;\n  }\n\n  b(): number {", "    return 10;\n  }\n\n  b(x: number): number {",
     [("replace_symbol", "K/a", "K/a"), ("replace_symbol", "K/b", "K/b")]),
    ("rust-remove-straddling", "p.rs", RUST, "    1\n}\n\nfn b() -> i32 {\n    2\n}\n", "    1\n}\n", [("remove_symbol", "b", None)]),
    # A definition added above two changed ones diffs as `a` -> `base` in one region and `b` ->
    # `a ... b` in the next: not a rename, since A still has an `a` beside `base`.
    ("python-added-above-changed", "m.py", PY, PY, "def base():\n    return 0\n\n\ndef a(x):\n    return x\n\n\ndef b(x):\n    return x\n",
     [("insert_code", "a", "base"), ("replace_symbol", "a", "a"), ("replace_symbol", "b", "b")]),
    ("go-added-above-changed", "p.go", GO, GO, "package p\n\nfunc base() int {\n\treturn 0\n}\n\nfunc a(x int) int {\n\treturn x\n}\n\nfunc b(x int) int {\n\treturn x\n}\n",
     [("insert_code", "a", "base"), ("replace_symbol", "a", "a"), ("replace_symbol", "b", "b")]),
    ("go-renamed-is-a-rename", "p.go", GO, "func a() int", "func c() int", [("replace_symbol", "a", "c")]),
    # simple-cipher's write moves `encode_random` to the top and adds `shift` where it was.
    ("python-moved-up-and-added-in-its-place", "m.py", PY3, PY3,
     "def c():\n    return a()\n\n\ndef a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef d():\n    return 3\n",
     [("insert_code", "a", "c"), ("replace_symbol", "a", "a"), ("replace_symbol", "b", "b"), ("remove_symbol", "c", None), ("insert_code", "b", "d")]),
    ("python-swapped", "m.py", PY, PY, "def b():\n    pass\n\n\ndef a():\n    pass\n", [("insert_code", "a", "b"), ("remove_symbol", "b", None)]),
]


@pytest.mark.parametrize(("case", "name", "before", "old", "new", "expected"), CASES, ids=[c[0] for c in CASES])
def test_lift_is_whole_definitions_and_exact(case: str, name: str, before: str, old: str, new: str,
                                             expected: list[tuple[str, str, str | None]]) -> None:
    lang = language_for(default_registry(), name, before)
    assert lang is not None
    effect = edit_effect(name, before, old, new)
    backend = TreeSitterBackend()
    structure_b = symbols_of(lang, Path(name), before, backend)
    structure_a = symbols_of(lang, Path(name), effect.after, backend)
    patches = lift(before, structure_b, effect.after, structure_a, [(r.before, r.after) for r in effect.regions])
    result, cursor = [], 0
    for patch in patches:
        result += [before[cursor : patch.before[0]], effect.after[patch.after[0] : patch.after[1]]]
        cursor = patch.before[1]
    assert "".join(result) + before[cursor:] == effect.after
    performed = [(o.tool, o.symbol.name_path if o.symbol else "/", o.result.name_path if o.result else None)
                 for p in patches for o in p.operations]
    assert performed == expected


def test_address_of_a_name_holding_the_separator() -> None:
    from gateway.namepath import address_for

    # clangd names a C++ `operator/` with the separator in it; the address must still be given.
    assert address_for(["K", "K/operator/", "K/operator/"], 2) == "/K/operator/[1]"
    assert address_for(["K/f", "K/f"], 1) == "K/f[1]"


def test_addresses_kept_with_the_symbols_are_address_for() -> None:
    from gateway.namepath import address_for
    from gateway.symbols.addresses import addresses
    from gateway.symbols.structure import structure

    lang = default_registry().for_path("m.py")
    assert lang is not None
    text = "class A:\n    def f(self): pass\n    def g(self): pass\n\nclass B:\n    def f(self): pass\n\ndef f(): pass\n\ndef f(): pass\n"
    symbols = structure(lang, text)
    tables = addresses(symbols)
    assert tables is addresses(list(symbols))  # the same symbols listed again: the same tables
    paths = [s.name_path for s in symbols]
    assert [tables.address(i) for i in range(len(paths))] == [address_for(paths, i) for i in range(len(paths))]
    assert [tables.address(i) for i in range(len(paths))] == ["A", "A/f", "A/g", "B", "B/f", "/f[0]", "/f[1]"]
    assert addresses(structure(lang, text.replace("class B", "class C"))) is not tables
