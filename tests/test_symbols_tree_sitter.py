"""The tree-sitter backend: the same operations and name paths where no server is installed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Ambiguous, NotFound, SyntaxBroken
from tests.symbol_cases import CASES, FORCE, JVM_CASES, TREE_SITTER_CASES, OpCase

FIXTURES = Path(__file__).parent / "fixtures"
# The server languages' cases too, minus renames (tree-sitter renames only within a file).
ALL = {**TREE_SITTER_CASES, **{lang: [c for c in cases if c.operation != "rename_symbol"] for lang, cases in {**CASES, "jvm": JVM_CASES}.items()}}
PARAMS = [(lang, case) for lang, cases in ALL.items() for case in cases]


@pytest.mark.parametrize(("lang", "case"), PARAMS, ids=[f"{lang}-{case.id}" for lang, case in PARAMS])
def test_operation_exact_text(tmp_path: Path, lang: str, case: OpCase) -> None:
    shutil.copytree(FIXTURES / lang, tmp_path, dirs_exist_ok=True)
    expected = {}
    for name, old, new in case.changes:
        text = expected.get(name, (tmp_path / name).read_text())
        assert text.count(old) == 1, f"expected change {old!r} must be unique in {name}"
        expected[name] = text.replace(old, new)
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = getattr(gateway, case.operation)(*case.args, **FORCE.get(case.operation, {})).to_json()
    assert result["backend"] == "tree-sitter"
    for name, text in expected.items():
        assert (tmp_path / name).read_text() == text


@pytest.mark.usefixtures("servers")
def test_servers_report_tree_sitter_for_missing_servers(tmp_path: Path) -> None:
    with Gateway(tmp_path) as gateway:
        rows = {row["language"]: row for row in gateway.servers().to_json()["languages"]}
    for lang in ("rust", "csharp", "ruby"):
        assert rows[lang]["found"] is False and rows[lang]["backend"] == "tree-sitter" and rows[lang]["install"]
    for lang in ("python", "typescript", "tsx", "javascript", "go", "c", "cpp", "java", "kotlin", "bash"):
        assert rows[lang]["found"] is True and rows[lang]["backend"].startswith("lsp:") and rows[lang]["version"]
    # rustup's proxy without its rust-analyzer component is on PATH, and does not run: it says why.
    if shutil.which("rust-analyzer"):
        assert "rust-analyzer" in rows["rust"]["reason"]


def test_name_path_errors(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "java", tmp_path, dirs_exist_ok=True)
    with Gateway(tmp_path, use_servers=False) as gateway:
        with pytest.raises(Ambiguous, match=r"count matches 2 symbols .*Inventory/count \(method, line 13\), Inventory/count \(method, line 18\)"):
            gateway.replace_symbol("count", "src/Inventory.java", "int count() { return 0; }")
        with pytest.raises(NotFound, match=r"no symbol Inventory/cout in src/Inventory.java; closest: Inventory/count"):
            gateway.remove_symbol("Inventory/cout", "src/Inventory.java")
        with pytest.raises(NotFound, match=r"count\[5\]: src/Inventory.java has 2 symbol"):
            gateway.remove_symbol("count[5]", "src/Inventory.java")
        assert gateway.find_symbol("/Inventory/count[1]", "src/Inventory.java").to_json()["matches"][0]["start_line"] == 18
        assert gateway.find_symbol("/count", "src/Inventory.java").to_json()["matches"] == []
        found = gateway.find_symbol("Inventory/toString", body=True).to_json()["matches"]
        assert [(m["path"], m["start_line"]) for m in found] == [("src/Inventory.java", 22)]
        assert found[0]["body"].startswith("    @Override\n    public String toString()")


# A definition as an LSP range's text gives it (Serena's find_symbol body): the first line cut
# at the symbol's column, the others as they stood; and a dedented one of the column's width.
AS_TAKEN = [
    ("a.py", "class A:\n    def m(self, x):\n        return 1\n\n    def n(self):\n        pass\n", "A/m",
     "def m(self, x):\n        if x:\n            return 3\n        return 2", "    def m(self, x):\n        if x:\n            return 3\n        return 2\n"),
    ("a.py", "class A:\n    def m(self, x):\n        return 1\n\n    def n(self):\n        pass\n", "A/m",
     "def m(self, x):\n    return {\n        1: 2,\n    }", "    def m(self, x):\n        return {\n            1: 2,\n        }\n"),
    ("C.java", "class C {\n    void m() {\n        x();\n    }\n}\n", "C/m", "void m() {\n        y();\n    }", "    void m() {\n        y();\n    }\n"),
    ("C.java", "class C {\n    void m() {\n        x();\n    }\n}\n", "C/m", "void m() {\n    z();\n}", "    void m() {\n        z();\n    }\n"),
]


@pytest.mark.parametrize(("name", "source", "name_path", "body", "placed"), AS_TAKEN)
def test_a_body_cut_at_its_column_is_placed_as_it_stood(tmp_path: Path, name: str, source: str, name_path: str, body: str, placed: str) -> None:
    (tmp_path / name).write_text(source)
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.replace_symbol(name_path, name, body)
    assert placed in (tmp_path / name).read_text()


def test_replace_symbol_keeps_every_blank_the_code_was_given(tmp_path: Path) -> None:
    """A blank at a line's end may be inside a string literal or a comment: the code goes in as
    given (the language table's libstdc++ comment ` * ` lost its blank), and an empty line
    inside a body moved into a class stays empty."""
    (tmp_path / "m.py").write_text("class K:\n    def f(self):\n        return 1\n")
    body = "def f(self):\n    # note: \n    x = 1 \n\n    return x\n"
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.replace_symbol("K/f", "m.py", body)
    assert (tmp_path / "m.py").read_text() == "class K:\n    def f(self):\n        # note: \n        x = 1 \n\n        return x\n"


def test_a_server_range_that_starts_at_the_end_of_the_doc_comment_starts_on_the_next_line() -> None:
    """jdtls's Kotlin ranges start right after the doc comment's `*/`: the symbol starts on the
    declaration's own line (its doc comment found as usual), so replacing it keeps the comment."""
    from gateway.langs import default_registry
    from gateway.symbols.backends import RawSymbol
    from gateway.symbols.normalize import build_symbols
    from gateway.syntax import definitions, parse

    text = "/**\n * A cart.\n */\n@Suppress(\"x\")\nclass Cart {\n    fun total(): Int = 0\n}\n"
    lang = default_registry().get("kotlin")
    assert lang is not None
    tree = parse(lang, text.encode())
    raw = RawSymbol(("Cart",), "class", text.index("*/") + 2, len(text) - 1, text.index("Cart {"))
    [symbol] = build_symbols(lang, text, tree, definitions(lang, tree), [raw])
    assert (symbol.start, symbol.doc_start, symbol.start_line) == (text.index("@Suppress"), 0, 4)


KDOC_ANNOTATED = """package demo

/** Marks it. */
@Target(AnnotationTarget.CLASS)
@MustBeDocumented
@Retention(AnnotationRetention.SOURCE)
annotation class Marker(val name: String)

/**
 * Old.
 */
@Deprecated("use next")
fun old(): Int = 1

fun next(): Int = 2
"""


def test_kotlin_annotations_after_a_comment_belong_to_the_declaration(tmp_path: Path) -> None:
    """tree-sitter-kotlin reads annotations after a comment as statements of their own; they are
    the declaration's all the same: listed with it, replaced with it, removed with it."""
    path = tmp_path / "a.kt"
    path.write_text(KDOC_ANNOTATED)
    with Gateway(tmp_path, use_servers=False) as gateway:
        listed = {s["name_path"]: s["start_line"] for s in gateway.symbols("a.kt").to_json()["symbols"]}
        assert listed == {"Marker": 4, "old": 12, "next": 15}
        gateway.replace_symbol("Marker", "a.kt", "@Target(AnnotationTarget.CLASS)\n@Retention(AnnotationRetention.BINARY)\n"
                                                  "annotation class Marker(val name: String)").to_json()
        replaced = KDOC_ANNOTATED.replace("@MustBeDocumented\n@Retention(AnnotationRetention.SOURCE)", "@Retention(AnnotationRetention.BINARY)")
        assert path.read_text() == replaced
        gateway.remove_symbol("old", "a.kt")
        assert path.read_text() == replaced.replace('/**\n * Old.\n */\n@Deprecated("use next")\nfun old(): Int = 1\n\n', "")


SWALLOWED = """package demo

@Target(FIELD)
@MustBeDocumented
public actual annotation class First

/**
 * Second.
 */
@Target(FUNCTION, CONSTRUCTOR, CLASS)
@Retention(AnnotationRetention.SOURCE)
@MustBeDocumented
public actual annotation class Second

/**
 * Third.
 */
@Target(EXPRESSION)
@Retention(AnnotationRetention.SOURCE)
public actual annotation class Third
"""


def test_a_kotlin_declaration_tree_sitter_reads_as_an_expression_is_not_taken_by_the_next(tmp_path: Path) -> None:
    """tree-sitter-kotlin reads `Second` with its annotations as one prefix expression: it is no
    annotation of `Third`, which is replaced without it; a removal after which tree-sitter
    reads `Second` otherwise is refused, nothing written."""
    path = tmp_path / "b.kt"
    path.write_text(SWALLOWED)
    with Gateway(tmp_path, use_servers=False) as gateway:
        assert {s["name_path"]: s["start_line"] for s in gateway.symbols("b.kt").to_json()["symbols"]} == {"First": 3, "Third": 18}
        gateway.replace_symbol("Third", "b.kt", "@Target(EXPRESSION)\npublic actual annotation class Third")
        replaced = SWALLOWED.replace("@Target(EXPRESSION)\n@Retention(AnnotationRetention.SOURCE)\n", "@Target(EXPRESSION)\n")
        assert path.read_text() == replaced
        with pytest.raises(SyntaxBroken, match=r"b.kt: the result would change other definitions \(Second\); nothing written"):
            gateway.remove_symbol("Third", "b.kt")
    assert path.read_text() == replaced


def test_two_threads_needing_one_texts_structure_work_it_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The daemon's background ask about a text just written and the next edit of it: the second
    waits for the first's structure instead of working it out beside it."""
    import sysconfig
    import threading
    import time

    from gateway.langs import default_registry
    from gateway.symbols import structure as module

    lang = default_registry().get("python")
    text = (Path(sysconfig.get_paths()["stdlib"]) / "textwrap.py").read_text() + "\n\ndef only_here_once():\n    return 1\n"
    made: list[int] = []
    worked_out = module._worked_out

    def slow(*args: object) -> object:
        made.append(1)
        time.sleep(0.2)  # long enough for the other thread to arrive while this one works
        return worked_out(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(module, "_worked_out", slow)
    found: list[list[str]] = []
    threads = [threading.Thread(target=lambda: found.append([s.name_path for s in module.structure(lang, text)])) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1 and len(found) == 2 and found[0] == found[1] and "only_here_once" in found[0]


def test_a_hooks_route_does_not_wait_for_the_server_asked_in_the_background(tmp_path: Path) -> None:
    """While the server is asked about the file as last written (`SymbolService.ahead`), a host's
    route is planned on tree-sitter's symbols, saying why; a caller that waits is not changed."""
    from gateway.engine import Engine
    from gateway.gate.checker import Gate
    from gateway.workspace import SourceFile

    (tmp_path / "m.py").write_text("def f(a):\n    return a\n\n\ndef g():\n    return f(1)\n")
    engine = Engine(tmp_path, use_servers=False)
    try:
        path = (tmp_path / "m.py").resolve()
        before = path.read_text()
        effect, classification = Gate(engine.registry).check_write("m.py", before, before.replace("def f(a):\n    return a", "def f(a, b=0):\n    return a + b"))
        source = SourceFile(path, "m.py", before, "utf-8", None, 0, "")
        engine.symbol_service._asking[path] = 1  # as `ahead` marks a file while it asks
        planned = engine.route_or_refuse(classification, source, effect, waits=False)
        assert planned is not None and planned[1].note == "the language server was still answering for the file as last written"
        waited = engine.route_or_refuse(classification, source, effect)
        assert waited is not None and waited[1].note == ""
    finally:
        engine.close()
