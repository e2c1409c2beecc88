"""What the symbol operations promise: modifiers kept like decorators, no silent collisions, a
rename that says when it could not look at other files, and round trips that restore bytes."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Collision

GREET_TS = "export function greet(name: string): string {\n  return name;\n}\n"
USE_TS = 'import { greet } from "./greet";\nexport const message: string = greet("x");\n'


READER_TS = ('export class Reader {\n  #isJson(text: string): boolean {\n    return text.startsWith("{");\n  }\n\n'
             '  read(text: string): boolean {\n    return this.#isJson(text);\n  }\n}\n')


# Both on one typescript-language-server (a start costs seconds of CPU under `make test`).
@pytest.mark.usefixtures("servers")
def test_replace_keeps_export_on_typescript_so_the_importer_still_compiles_and_a_private_method_is_renamed_to_a_private_name(
        tmp_path: Path) -> None:
    (tmp_path / "greet.ts").write_text(GREET_TS)
    (tmp_path / "use.ts").write_text(USE_TS)
    (tmp_path / "reader.ts").write_text(READER_TS)
    with Gateway(tmp_path) as gateway:
        result = gateway.replace_symbol("greet", "greet.ts", "function greet(name: string): string {\n  return `hi ${name}`;\n}").to_json()
        renamed = gateway.rename_symbol("Reader/#isJson", "reader.ts", "#looksJson").to_json()
    assert renamed["backend"].startswith("lsp:typescript") and renamed["complete"] is True, renamed
    assert (tmp_path / "reader.ts").read_text() == READER_TS.replace("#isJson", "#looksJson")
    assert result["backend"].startswith("lsp:typescript")
    assert (tmp_path / "greet.ts").read_text() == "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n"
    tsc = shutil.which("tsc")
    assert tsc, "make setup installs typescript (tsc) beside typescript-language-server"
    checked = subprocess.run([tsc, "--noEmit", "--strict", "use.ts", "greet.ts"], cwd=tmp_path, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


MODIFIER_CASES = [
    ("a.ts", "export default function f(): number {\n  return 1;\n}\n", "f", "function f(): number {\n  return 2;\n}",
     "export default function f(): number {\n  return 2;\n}\n"),
    ("a.ts", "declare function f(): void;\n", "f", "function f(): number;", "declare function f(): number;\n"),
    ("a.ts", "export class A {\n  public static m(): number {\n    return 1;\n  }\n}\n", "A/m", "m(): number {\n  return 2;\n}",
     "export class A {\n  public static m(): number {\n    return 2;\n  }\n}\n"),
    ("a.rs", "pub(crate) fn f() -> i32 {\n    1\n}\n", "f", "fn f() -> i32 {\n    2\n}", "pub(crate) fn f() -> i32 {\n    2\n}\n"),
    ("A.java", "class A {\n    @Deprecated\n    public static int f() { return 1; }\n}\n", "A/f", "int f() { return 2; }",
     "class A {\n    @Deprecated\n    public static int f() { return 2; }\n}\n"),
    ("a.c", "static int f(void) { return 1; }\n", "f", "int f(void) { return 2; }", "static int f(void) { return 2; }\n"),
    # New text that brings its own modifiers sets them.
    ("a.ts", "export function f(): void {}\n", "f", "export default function f(): void {}", "export default function f(): void {}\n"),
    ("a.rs", "pub fn f() {}\n", "f", "pub(crate) fn f() {}", "pub(crate) fn f() {}\n"),
    # `async` is part of what the function is, not a modifier to keep.
    ("a.ts", "export async function f(): Promise<void> {}\n", "f", "function f(): void {}", "export function f(): void {}\n"),
]


@pytest.mark.parametrize(("name", "before", "symbol", "body", "after"), MODIFIER_CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(MODIFIER_CASES)])
def test_replace_keeps_leading_modifiers_the_new_text_omits(tmp_path: Path, name: str, before: str, symbol: str, body: str, after: str) -> None:
    (tmp_path / name).write_text(before)
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.replace_symbol(symbol, name, body)
    assert (tmp_path / name).read_text() == after


GREETER = 'class Greeter:\n    def __init__(self):\n        self.n = 1\n\n    def greet(self):\n        return "hi"\n\n\ndef helper():\n    return 1\n\n\ndef other():\n    return 2\n'


@pytest.mark.parametrize("servers", [True, False], ids=["server", "tree-sitter"])
def test_a_rename_onto_an_existing_name_in_the_same_scope_is_refused(tmp_path: Path, servers: bool) -> None:
    (tmp_path / "m.py").write_text(GREETER)
    with Gateway(tmp_path, use_servers=servers) as gateway:
        with pytest.raises(Collision, match=r"m.py: __init__ already exists beside Greeter/greet: Greeter/__init__ \((method|constructor), line 2\)"):
            gateway.rename_symbol("Greeter/greet", "m.py", "__init__")
        with pytest.raises(Collision, match=r"other already exists beside helper: other \(function, line 13\)"):
            gateway.rename_symbol("helper", "m.py", "other")
        gateway.rename_symbol("Greeter/greet", "m.py", "helper")  # a name of another scope is free
    assert (tmp_path / "m.py").read_text() == GREETER.replace("def greet(self)", "def helper(self)")


@pytest.mark.usefixtures("servers")
def test_a_replacement_that_renames_onto_a_sibling_is_refused(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(GREETER)
    with Gateway(tmp_path) as gateway:
        with pytest.raises(Collision, match=r"other already exists beside helper: other \(function, line 13\); nothing written"):
            gateway.replace_symbol("helper", "m.py", "def other():\n    return 3")
        with pytest.raises(Collision, match=r"__init__ already exists beside Greeter/greet"):
            gateway.replace_symbol("Greeter/greet", "m.py", "def __init__(self):\n    pass")
        gateway.replace_symbol("helper", "m.py", "def assist():\n    return 3")
    assert "def assist():\n    return 3\n" in (tmp_path / "m.py").read_text()
    done = subprocess.run([sys.executable, "-m", "gateway", "replace-symbol", "other", "m.py", "--body", "def assist():\n    pass"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.startswith("gateway: m.py: assist already exists beside other: assist (function")


SPECIALIZED = ("namespace ns {\ntemplate <typename T>\nclass function;\n\ntemplate <typename R, typename... Args>\nclass function<R(Args...)> {\n"
               "public:\n    R call(Args... args) { return R(); }\n};\n}\n")


@pytest.mark.parametrize("servers", [True, False], ids=["clangd", "tree-sitter"])
def test_replacing_a_partial_specialization_is_not_a_collision_with_its_primary_template(tmp_path: Path, servers: bool) -> None:
    """clangd names it `function<R (Args...)>`, tree-sitter `function`, as its primary template:
    a replacement that keeps tree-sitter's name renames nothing; one that changes it still
    meets the collision check."""
    (tmp_path / "spec.hpp").write_text(SPECIALIZED)
    body = "template <typename R, typename... Args>\nclass function<R(Args...)> {\npublic:\n    R call(Args... args) { return R(1); }\n};"
    with Gateway(tmp_path, use_servers=servers) as gateway:
        symbol = next(s["name_path"] for s in gateway.symbols("spec.hpp").to_json()["symbols"] if s["kind"] == "class" and s["start_line"] == 5)
        assert symbol == ("ns/function<R (Args...)>" if servers else "ns/function")  # tree-sitter lists no declaration
        gateway.replace_symbol(symbol, "spec.hpp", body)
        assert (tmp_path / "spec.hpp").read_text() == SPECIALIZED.replace("return R();", "return R(1);")
        (tmp_path / "spec.hpp").write_text(SPECIALIZED.replace("class function;", "class function;\nclass other {};"))
        with pytest.raises(Collision, match=r"other already exists"):
            gateway.replace_symbol(symbol, "spec.hpp", body.replace("class function<", "class other<"))


@pytest.mark.usefixtures("processes")
def test_a_rename_without_a_server_names_the_places_it_could_not_tie(tmp_path: Path) -> None:
    (tmp_path / "greet.ts").write_text(GREET_TS)
    (tmp_path / "use.ts").write_text(USE_TS)
    (tmp_path / "notes.ts").write_text("export const greeting = 1;\n")  # greet only as part of another word
    env = {**os.environ, "GATEWAY_NO_SERVERS": "1"}
    done = subprocess.run([sys.executable, "-m", "gateway", "rename-symbol", "greet", "greet.ts", "hello", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 4, done.stderr
    result = json.loads(done.stdout)
    assert (result["complete"], result["mentioned_in"], result["files"]) == (False, ["use.ts:1"], ["greet.ts"])
    assert "not complete: 1 place(s) still spell greet and may refer to it: use.ts:1" in result["message"]
    assert "hello" in (tmp_path / "greet.ts").read_text() and "greet" in (tmp_path / "use.ts").read_text()


def test_a_rename_local_to_a_function_is_complete_without_a_server(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def outer():\n    def inner():\n        return 1\n    return inner()\n")
    (tmp_path / "n.py").write_text("inner = 2\n")
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.rename_symbol("outer/inner", "m.py", "helper").to_json()
    assert (result["complete"], result["mentioned_in"]) == (True, [])


ASYMMETRIC = (
    "import os\n\n\ndef first():\n    return 1\n\ndef second():\n    return 2\n\n\n"
    "# --- helpers ---\n\ndef third():\n    return 3\n\n\n\ndef fourth():\n    return 4\n"
)


@pytest.mark.parametrize(("symbol", "anchor", "position"), [
    ("second", "first", "after"),  # one blank line above, two below
    ("second", "third", "before"),  # before the section comment that stands above `third`
    ("third", "second", "after"),  # after a section comment
    ("fourth", "third", "after"),  # three blank lines above, at the end of the file
])
def test_remove_then_insert_the_same_code_restores_the_bytes(tmp_path: Path, symbol: str, anchor: str, position: str) -> None:
    (tmp_path / "m.py").write_text(ASYMMETRIC)
    with Gateway(tmp_path, use_servers=False) as gateway:
        code = next(s for s in gateway.symbol_service.symbols("m.py").symbols if s.name == symbol)
        body = ASYMMETRIC[code.doc_start : code.end]
        gateway.remove_symbol(symbol, "m.py")
        result = gateway.insert_code(anchor, "m.py", body, position).to_json()
    assert (tmp_path / "m.py").read_text() == ASYMMETRIC
    assert ASYMMETRIC.splitlines()[result["start_line"] - 1] == f"def {symbol}():"


@pytest.mark.usefixtures("processes")
def test_the_round_trip_is_exact_across_cli_processes_and_only_where_the_code_was(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(ASYMMETRIC)

    def gateway(*args: str) -> None:
        done = subprocess.run([sys.executable, "-m", "gateway", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr

    gateway("remove-symbol", "third", "m.py")
    gateway("insert-code", "second", "m.py", "--position", "after", "--code", "def third():\n    return 3")
    assert (tmp_path / "m.py").read_text() == ASYMMETRIC
    gateway("remove-symbol", "third", "m.py")
    gateway("insert-code", "fourth", "m.py", "--position", "after", "--code", "def third():\n    return 3")  # moved: laid out afresh
    assert (tmp_path / "m.py").read_text().endswith("def fourth():\n    return 4\n\n\ndef third():\n    return 3\n")


MODULE = 'import os\nimport sys\n\nLIMIT = 3\nNAME = "x"\n\n\ndef first():\n    return LIMIT\n\n\nclass Box:\n    size = 1\n'
VOLUME = "def volume(a, b, c):\n    return a * b * c\n"


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("position, expected", [("after", MODULE + "\n\n" + VOLUME), ("before", VOLUME + "\n\n" + MODULE)])
def test_code_inserted_at_a_modules_end_or_start_is_spaced_as_its_definitions_are(tmp_path: Path, position: str, expected: str) -> None:
    """jedi lists the imports and constants too, one line each and closer together than the functions."""
    (tmp_path / "mod.py").write_text(MODULE)
    with Gateway(tmp_path) as gateway:
        assert gateway.insert_code("/", "mod.py", VOLUME, position).to_json()["backend"] == "lsp:zuban"
    assert (tmp_path / "mod.py").read_text() == expected
