"""The language server's delta of a write (gateway.verify): the pure parts (what a write touched,
errors carried across the edit, the note) without a server, then the engine's wiring with
servers off, then real servers (gopls, typescript-language-server, jedi) through Engine.edit."""

from __future__ import annotations

import time

from pathlib import Path

import pytest

from gateway.engine import Engine
from gateway.errordelta import introduced, line_ranges
from gateway.gate.touched import touched_by
from gateway.langs import default_registry
from gateway.lsp.diagnostics import ServerDiagnostic
from gateway.results import NewError, Verification
from tests.conftest import make_workspace

REGISTRY = default_registry()


def Reported(line: int, column: int, message: str) -> ServerDiagnostic:  # noqa: N802 - reads as the error it makes
    """An error as the server reports it, on one line."""
    return ServerDiagnostic(line, column, line, message, "server")


# --- what a write touched, beside the gate -------------------------------------------------

PY = "DEFAULT_REDIRECT_LIMIT = 30\n\n\ndef helper(a):\n    return a\n"


def test_a_one_line_rename_of_a_module_constant_is_touched() -> None:
    touched = touched_by(REGISTRY.get("python"), "a.py", PY, PY.replace("DEFAULT_REDIRECT_LIMIT", "MAX_REDIRECTS"))
    assert [(t.name, t.change, t.new_name_path) for t in touched] == [("DEFAULT_REDIRECT_LIMIT", "renamed", "MAX_REDIRECTS")]


def test_a_one_line_header_change_is_touched_though_the_gate_lets_it_through() -> None:
    after = PY.replace("def helper(a):", "def helper(a, b):")
    assert not _gate_blocks("a.py", PY, after)
    touched = touched_by(REGISTRY.get("python"), "a.py", PY, after)
    assert [(t.name, t.kind, t.change) for t in touched] == [("helper", "function", "header")]


def test_a_body_edit_touches_nothing() -> None:
    assert touched_by(REGISTRY.get("python"), "a.py", PY, PY.replace("return a", "return a + 1")) == ()


@pytest.mark.parametrize(("lang", "path", "before", "after", "name"), [
    ("go", "a.go", "package a\n\nconst DefaultLimit = 30\n", "package a\n\nconst MaxLimit = 30\n", "DefaultLimit"),
    ("typescript", "a.ts", "export const maxErrorResponseBodySize = 10;\n", "export const maxBodySize = 10;\n", "maxErrorResponseBodySize"),
    ("javascript", "a.js", "export let retries = 2;\n", "", "retries"),
])
def test_top_level_bindings_of_other_languages(lang: str, path: str, before: str, after: str, name: str) -> None:
    touched = touched_by(REGISTRY.get(lang), path, before, after)
    assert [t.name for t in touched] == [name]
    assert touched[0].change == ("removed" if not after else "renamed")


def _gate_blocks(path: str, before: str, after: str) -> bool:
    from gateway.gate.checker import Gate

    return Gate(REGISTRY).check_write(path, before, after)[1].blocked


# --- errors carried across the edit ----------------------------------------------------------

def test_lines_map_across_an_insertion_and_a_replacement() -> None:
    before = "a\nb\nc\n"
    after = "new\na\nB\nc\n"
    assert line_ranges(before, after) == [(2, 2), (3, 3), (4, 4)]
    assert line_ranges("a\nb\nc\n", "a\nc\n") == [(1, 1), (2, 1), (2, 2)]


def test_an_error_that_moved_with_its_line_is_not_new() -> None:
    before, after = "x = undefined_name\n", "import os\n\nx = undefined_name\n"
    old = [Reported(1, 5, '"undefined_name" is not defined')]
    now = [Reported(3, 5, '"undefined_name" is not defined')]
    assert introduced("a.py", before, after, old, now) == ()


def test_the_same_message_at_another_line_is_new() -> None:
    text = "f(1)\nf(2)\n"
    old = [Reported(1, 1, "not enough arguments")]
    now = [Reported(1, 1, "not enough arguments"), Reported(2, 1, "not enough arguments")]
    assert introduced("b.go", text, text, old, now) == (NewError("b.go", 2, 1, "not enough arguments", "server"),)


def test_an_error_on_a_changed_line_that_stays_is_not_new() -> None:
    before, after = "x = undefined_name\n", "x = undefined_name + 1\n"
    old, now = [Reported(1, 5, "undefined")], [Reported(1, 5, "undefined")]
    assert introduced("a.py", before, after, old, now) == ()


# --- the note --------------------------------------------------------------------------------

def test_the_note_names_every_place() -> None:
    v = Verification("checked", (NewError("b.go", 4, 2, "not enough arguments in call to helper", "compiler"),),
                     callers=("b.go:4", "c.go:9"), unchecked=("c.go",), why="c.go: no answer within 2000 ms", server="gopls")
    assert v.summary() == (
        "The language server (gopls) reports 1 new error: b.go:4: not enough arguments in call to helper. "
        "Callers of the changed header: b.go:4 (broken), c.go:9 (may break: not checked). "
        "Not checked (c.go: no answer within 2000 ms): c.go.")
    assert Verification("unknown", why="jedi-language-server reports only syntax errors").summary() == (
        "Not verified: jedi-language-server reports only syntax errors.")
    assert Verification("checked", server="gopls").summary() == "The language server (gopls) reports no new error."


# --- the engine, servers off -----------------------------------------------------------------

def test_without_servers_a_header_change_is_unknown_and_a_body_edit_skipped(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "w", copy=None, files={"a.py": PY, "b.py": "from a import helper\n\nhelper(1)\n"})
    engine = Engine(root, use_servers=False)
    header = engine.edit("a.py", "def helper(a):", "def helper(a, b):")
    assert header.verification is not None and header.verification.status == "unknown"
    assert header.verification.why == "no language server for python runs here (language servers are off)"
    body = engine.edit("a.py", "return a", "return a + b")
    assert body.verification is not None and body.verification.status == "skipped"
    assert body.to_json()["verified"] == "skipped"


def test_a_note_made_after_the_answer_is_made_in_the_callers_context(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The delta a hook computes while the host writes runs on the note writer's thread, yet with
    the call's bound on each server request and its environment (context variables)."""
    from gateway.hostcalls.pending import remember, take
    from gateway.lsp.manager import _AT_MOST, waiting_at_most

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = tmp_path / "a.py"
    with waiting_at_most(3.5):
        remember(path, "after\n", lambda: f"bound {_AT_MOST.get()}")
    assert take(path, ["after\n"]) == "bound 3.5"


def test_a_note_remembered_within_a_hooks_answer_is_started_once_the_answer_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The note's thread does not take the interpreter from the answer still being worked out:
    its work starts on leaving `answer_first` (hostcalls.judge.pre), in the caller's context,
    and a note remembered inside it is started there, not held for an outer answer."""
    from gateway.hostcalls.answer_first import answer_first
    from gateway.hostcalls.pending import remember, take
    from gateway.lsp.manager import _AT_MOST, waiting_at_most

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path, started = tmp_path / "a.py", []

    def note() -> str:
        with answer_first():
            remember(tmp_path / "b.py", "b\n", "inner")
        started.append(_AT_MOST.get())
        return "made"

    with answer_first(), waiting_at_most(2.5):
        remember(path, "after\n", note)
        time.sleep(0.2)
        assert started == []
    assert take(path, ["after\n"]) == "made" and started == [2.5]
    assert take(tmp_path / "b.py", ["b\n"]) == "inner"


def test_a_dry_run_writes_nothing(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "w", copy=None, files={"a.py": PY})
    engine = Engine(root, use_servers=False)
    result = engine.edit("a.py", "def helper(a):\n    return a\n", "def helper(a):\n    return a\n\n\ndef other():\n    return 2\n",
                         route=True, dry_run=True)
    assert result.dry_run and result.route is not None and "+def other():" in result.diff
    assert result.to_json()["applied"] is False
    assert result.to_json()["message"].startswith("Dry run, nothing written: the gateway would perform this write on a.py as insert_code")
    assert (root / "a.py").read_text() == PY
    removed = engine.remove_symbol("helper", "a.py", dry_run=True)
    assert removed.dry_run and removed.to_json()["applied"] is False and "-def helper(a):" in removed.diff
    assert (root / "a.py").read_text() == PY
    replaced = engine.replace_symbol("helper", "a.py", "def helper(a, b):\n    return a\n")
    assert not replaced.dry_run and "def helper(a, b):" in (root / "a.py").read_text()


# --- real servers, through Engine.edit: one warm engine per language for the module ----------

GO = {
    "go.mod": "module example.com/v\n\ngo 1.23\n",
    "a.go": "package v\n\n// Helper doubles a.\nfunc Helper(a int) int {\n\treturn a * 2\n}\n",
    "b.go": "package v\n\nfunc Use() int {\n\treturn Helper(1)\n}\n",
    "c.go": "package v\n\nfunc Broken() int {\n\treturn undefinedThing\n}\n",
}
TS = {
    "tsconfig.json": '{"compilerOptions": {"target": "ES2022", "module": "ES2022", "strict": true}, "include": ["src"]}\n',
    "src/a.ts": "export function helper(a: number): number {\n  return a * 2;\n}\n",
    "src/b.ts": 'import { helper } from "./a";\n\nexport function use(): number {\n  return helper(1);\n}\n',
    "src/c.ts": "export const broken: number = undefinedThing;\n",
    "src/limits.ts": "export const maxErrorResponseBodySize = 10;\n",
    "src/d.ts": 'import { maxErrorResponseBodySize } from "./limits";\n\nexport const limit = maxErrorResponseBodySize;\n',
    "src/base.ts": "export class Base {\n  m(x: number): number {\n    return x;\n  }\n}\n",
    "src/sub.ts": 'import { Base } from "./base";\n\nexport class Sub extends Base {\n  n(x: string): string {\n    return x;\n  }\n}\n',
}
C = {
    "compile_flags.txt": "-std=c11\n",
    "a.h": "static inline int helper(int a) {\n    return a * 2;\n}\n",
    "b.c": '#include "a.h"\n\nint use(void) {\n    return helper(1);\n}\n',
    "c.c": "int broken(void) {\n    return undefined_thing;\n}\n",
}
PYTHON = {
    "a.py": "def helper(a):\n    return a * 2\n",
    "b.py": "from a import helper\n\n\ndef use():\n    return helper(1)\n",
    "c.py": "def broken():\n    return undefined_thing\n",
}
HEADER = {
    "python": ("a.py", "def helper(a):\n    return a * 2", "def helper(a, b):\n    return a * b", "b.py:5"),
    "c": ("a.h", "static inline int helper(int a) {\n    return a * 2;\n}", "static inline int helper(int a, int b) {\n    return a * b;\n}",
          "b.c:4"),
    "go": ("a.go", "func Helper(a int) int {\n\treturn a * 2\n}", "func Helper(a int, b int) int {\n\treturn a * b\n}", "b.go:4"),
    "typescript": ("src/a.ts", "export function helper(a: number): number {\n  return a * 2;\n}",
                   "export function helper(a: number, b: number): number {\n  return a * b;\n}", "src/b.ts:4"),
}
BODY = {"python": ("a.py", "return a * 2", "return a + a"), "go": ("a.go", "return a * 2", "return a + a"), "typescript": ("src/a.ts", "return a * 2;", "return a + a;"),
        "c": ("a.h", "return a * 2;", "return a + a;")}


class Project:
    """A small project per language on one warm engine; its files and config reset per test."""

    def __init__(self, root: Path, files: dict[str, str]) -> None:
        self.root, self.files = root, files
        make_workspace(root, copy=None, files=files)
        self.engine = Engine(root)

    def reset(self, verify: str = "") -> Project:
        for name, text in self.files.items():
            if (self.root / name).read_text() != text:
                (self.root / name).write_text(text)
        (self.root / ".gateway").mkdir(exist_ok=True)
        (self.root / ".gateway" / "config.toml").write_text(f"[verify]\nbudget_ms = 20000\n{verify}")
        return self


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201 - a factory of warm projects
    made: dict[str, Project] = {}

    def get(lang: str, verify: str = "") -> Project:
        if lang not in made:
            made[lang] = Project(tmp_path_factory.mktemp(lang) / "w", {"go": GO, "typescript": TS, "c": C, "python": PYTHON}[lang])
        return made[lang].reset(verify)

    yield get
    for p in made.values():
        p.engine.close()


# Java's case runs in tests/test_jdtls_starting.py, on the one jdtls the suite starts cold.
@pytest.mark.parametrize("lang", ["go", "typescript", "c", "python"])
def test_a_routed_header_change_names_the_caller_it_breaks(servers: None, project, lang: str) -> None:  # noqa: ANN001
    p = project(lang)
    path, old, new, caller = HEADER[lang]
    result = p.engine.edit(path, old, new, route=True)
    v = result.verification
    assert result.route is not None and v is not None, result
    assert v.status == "checked", v
    assert [e.place for e in v.new_errors] == [caller], v
    assert v.callers == (caller,)
    assert caller in v.summary() and "(broken)" in v.summary()
    assert result.to_json()["new_errors"][0]["path"] == caller.split(":")[0]


@pytest.mark.parametrize("lang", ["go", "typescript", "c", "python"])
def test_a_body_edit_beside_an_existing_error_reports_nothing_new(servers: None, project, lang: str) -> None:  # noqa: ANN001
    p = project(lang, "body = true\n")
    path, old, new = BODY[lang]
    v = p.engine.edit(path, old, new).verification
    assert v is not None and v.status == "checked" and v.new_errors == (), v


@pytest.mark.parametrize("lang", ["go"])
def test_refuse_leaves_the_file_unchanged_and_a_dry_run_writes_nothing(servers: None, project, lang: str) -> None:  # noqa: ANN001
    from gateway.errors import NewErrors

    p = project(lang, 'on_new_errors = "refuse"\n')
    path, old, new, caller = HEADER[lang]
    with pytest.raises(NewErrors) as refused:
        p.engine.edit(path, old, new, route=True)
    assert caller in str(refused.value) and [e.place for e in refused.value.new_errors] == [caller]
    assert (p.root / path).read_text() == p.files[path]
    p.reset()
    preview = p.engine.edit(path, old, new, route=True, dry_run=True)
    assert preview.dry_run and preview.verification is not None and [e.place for e in preview.verification.new_errors] == [caller]
    assert (p.root / path).read_text() == p.files[path]
    # the server was given the text on disk back: a body edit now finds nothing new
    p.reset("body = true\n")
    body_path, body_old, body_new = BODY[lang]
    after = p.engine.edit(body_path, body_old, body_new).verification
    assert after is not None and after.status == "checked" and after.new_errors == (), after


def test_jedi_is_unknown_with_the_reason(servers: None, tmp_path: Path) -> None:
    """jedi, the Python fallback, run as the workspace's Python server: its diagnostics are syntax only."""
    import re
    import shutil

    from gateway.langs import LanguageRegistry, data_dir

    root = make_workspace(tmp_path / "w", copy=None, files={"a.py": PY, "b.py": "from a import helper\n\nhelper(1)\n"})
    langs = tmp_path / "langs"
    shutil.copytree(data_dir("langs"), langs)
    python = langs / "python.toml"
    python.write_text(re.sub(r'(?m)^command = .*$', 'command = ["jedi-language-server"]', python.read_text(), count=1))
    engine = Engine(root, registry=LanguageRegistry(langs, data_dir("queries")))
    try:
        v = engine.edit("a.py", "def helper(a):\n    return a\n", "def helper(a, b):\n    return a\n", route=True).verification
    finally:
        engine.close()
    assert v is not None and v.status == "unknown" and v.why is not None and "jedi-language-server" in v.why, v


# --- the host's hook: the note after the write, or the refusal before it ---------------------

def _hook(root: Path, event: str, tool_input: dict[str, str]) -> dict[str, object]:
    import json

    from gateway.surfaces.hooks.hosts.claude_code import run

    payload = {"hook_event_name": event, "tool_name": "Edit", "cwd": str(root), "tool_input": tool_input, "tool_response": {}}
    output, _ = run(json.dumps(payload).encode())
    return json.loads(output)["hookSpecificOutput"] if output else {}


def test_the_hook_notes_the_delta_of_a_one_line_header_change_and_refuses_under_refuse(servers: None, project) -> None:  # noqa: ANN001
    p = project("go")
    edit = {"file_path": "a.go", "old_string": "func Helper(a int) int {", "new_string": "func Helper(a int, b int) int {"}
    assert _hook(p.root, "PreToolUse", edit) == {}  # a one-line header change: the gate lets it through
    (p.root / "a.go").write_text(GO["a.go"].replace(edit["old_string"], edit["new_string"]))
    note = _hook(p.root, "PostToolUse", edit)["additionalContext"]
    assert "b.go:4: not enough arguments in call to Helper" in str(note), note
    p.reset('on_new_errors = "refuse"\n')
    denied = _hook(p.root, "PreToolUse", edit)
    assert denied["permissionDecision"] == "deny" and "b.go:4" in str(denied["permissionDecisionReason"]), denied


def test_on_a_warm_engine_the_note_comes_after_the_answer_and_still_names_the_caller(servers: None, project) -> None:  # noqa: ANN001
    """The daemon's engine: under "report" the routed edit is answered first and its delta is
    computed while the host writes; PostToolUse waits for it and names the broken caller."""
    import json

    from gateway.surfaces.hooks.run import run

    p = project("go")
    _, old, new, caller = HEADER["go"]
    edit = {"file_path": str(p.root / "a.go"), "old_string": old, "new_string": new}

    def hook(event: str, tool_input: dict[str, str]) -> dict[str, object]:
        payload = {"hook_event_name": event, "tool_name": "Edit", "cwd": str(p.root), "tool_input": tool_input, "tool_response": {}}
        output, code = run("claude-code", json.dumps(payload).encode(), {"cwd": str(p.root), "project_dir": str(p.root)}, engine=p.engine)
        assert code == 0, output
        return json.loads(output)["hookSpecificOutput"] if output else {}

    routed = hook("PreToolUse", edit)["updatedInput"]
    assert isinstance(routed, dict)
    (p.root / "a.go").write_text(GO["a.go"].replace(routed["old_string"], routed["new_string"]))
    note = str(hook("PostToolUse", routed)["additionalContext"])
    assert "replace_symbol `Helper`" in note and f"{caller}: not enough arguments in call to Helper" in note, note


def test_callers_in_the_written_file_alone_are_found_after_the_delta(servers: None, project) -> None:  # noqa: ANN001
    """No other file spells the name nor the file's: the server's references are asked only
    once the delta has found errors, for the callers among them."""
    p = project("python")
    (p.root / "solo.py").write_text("def lone(a):\n    return a\n\n\ndef use():\n    return lone(1)\n")
    try:
        v = p.engine.edit("solo.py", "def lone(a):\n    return a", "def lone(a, b):\n    return a", route=True).verification
        clean = p.engine.edit("solo.py", "def lone(a, b):\n    return a", "def lone(a, b=2):\n    return a", route=True).verification
    finally:
        (p.root / "solo.py").unlink()
    assert v is not None and v.status == "checked" and [e.place for e in v.new_errors] == ["solo.py:6"], v
    assert v.callers == ("solo.py:6",), v
    assert clean is not None and clean.status == "checked" and clean.new_errors == () and clean.callers == (), clean


def test_an_error_that_names_a_renamed_definition_is_the_same_error() -> None:
    text_before, text_after = "Helper(1)\n", "Helper2(1)\n"
    old = [Reported(1, 1, "not enough arguments in call to Helper")]
    now = [Reported(1, 1, "not enough arguments in call to Helper2")]
    assert introduced("b.go", text_before, text_after, old, now, {"Helper": "Helper2"}) == ()
    assert len(introduced("b.go", text_before, text_after, old, now)) == 1


def test_a_rename_through_the_server_is_complete_when_it_adds_no_error(servers: None, project) -> None:  # noqa: ANN001
    p = project("go")
    (p.root / "b.go").write_text(GO["b.go"].replace("Helper(1)", "Helper()"))  # an error that names the definition, before
    result = p.engine.rename_symbol("Helper", "a.go", "Twice")
    v = result.verification
    assert v is not None and v.status == "checked" and v.new_errors == (), v
    assert result.details["complete"] is True and "Twice()" in (p.root / "b.go").read_text()


def test_a_python_rename_through_zuban_is_complete_and_checked(servers: None, project) -> None:  # noqa: ANN001
    p = project("python")
    result = p.engine.rename_symbol("helper", "a.py", "twice")
    v = result.verification
    assert v is not None and v.status == "checked" and v.new_errors == () and v.server == "zuban", v
    assert result.details["complete"] is True and "from a import twice" in (p.root / "b.py").read_text()


CONTRACT = '''[contract]
id = "twice"
summary = "Helper takes a factor"

[[files]]
path = "a.go"

[[steps]]
id = "header"
file = "a.go"
action = "replace_symbol"
symbol = "Helper"
text = "func Helper(a int, b int) int {\\n\\treturn a * b\\n}\\n"
'''


def test_a_contract_gets_one_delta_and_refuse_writes_nothing(servers: None, project) -> None:  # noqa: ANN001
    from gateway.contracts.apply import apply_contract
    from gateway.errors import NewErrors

    p = project("go")
    (p.root / "plan.toml").write_text(CONTRACT)
    report = apply_contract(p.engine, "plan.toml").to_json()
    assert report["applied"] and report["verified"] == "checked", report
    assert [(e["path"], e["line"]) for e in report["new_errors"]] == [("b.go", 4)]
    p.reset('on_new_errors = "refuse"\n')
    with pytest.raises(NewErrors):
        apply_contract(p.engine, "plan.toml")
    assert (p.root / "a.go").read_text() == GO["a.go"]


def test_the_rule_of_what_was_checked(tmp_path: Path) -> None:
    from gateway.langs import default_registry as registry
    from gateway.verify import Written, _verdict
    from gateway.workspace import SourceFile

    a = tmp_path / "a.go"
    written = [Written(SourceFile(a, "a.go", "", "utf-8", "\n", 0, ""), "x", registry().get("go"))]
    others = [tmp_path / f"d{n}.go" for n in range(3)]
    error = NewError("d0.go", 4, 1, "not enough arguments", "compiler")

    def name(p: Path) -> str:
        return p.name

    # a file that refers to what changed and had no answer is named, never counted as checked
    v = _verdict("gopls", written, [error], {others[1]: "no answer within 2000 ms"}, [others[2]], ["d0.go:4", "d1.go:7", "d3.go:1"], name)
    assert v.status == "checked" and v.unchecked == ("d1.go", "d2.go")
    assert v.why == "d1.go: no answer within 2000 ms; more than 20 files refer to what changed; 1 was not asked"
    assert v.callers == ("d0.go:4", "d1.go:7")  # broken, and not checked; d3.go was checked and is fine
    # files left unanswered for one reason are named once with it
    many = {tmp_path / f"e{n}.go": "no answer within 300 ms" for n in range(5)}
    v = _verdict("gopls", written, [], many, [], [], name)
    assert v.why == "e0.go, e1.go, e2.go and 2 more: no answer within 300 ms" and len(v.unchecked) == 5, v
    # a reason the written file shares with the files that refer to it is said once
    v = _verdict("gopls", written, [], {a: "X", others[0]: "X", others[1]: "X", others[2]: "Y"}, [], [], name)
    assert v.status == "unknown" and v.why == "X (the 2 files that refer to what changed too); d2.go: Y", v
    # the written file itself not answered for: unknown, whatever else was found
    v = _verdict("gopls", written, [error], {a: "gopls is still loading the workspace"}, [], [], name)
    assert v.status == "unknown" and v.why == "gopls is still loading the workspace" and v.new_errors == (error,)
    assert v.summary().startswith("Not verified: gopls is still loading the workspace. The language server (gopls) also reports 1 new error")


def test_a_one_line_rename_of_an_exported_constant_names_its_importer(servers: None, project) -> None:  # noqa: ANN001
    p = project("typescript")
    result = p.engine.edit("src/limits.ts", "maxErrorResponseBodySize", "maxBodySize")
    v = result.verification
    assert result.classification.decision == "allow" and v is not None and v.status == "checked", v
    assert [e.place for e in v.new_errors] == ["src/d.ts:1"], v


def test_a_rename_that_introduces_an_error_is_not_complete(servers: None, project) -> None:  # noqa: ANN001
    p = project("typescript")
    result = p.engine.rename_symbol("Base/m", "src/base.ts", "n")  # Sub already has an `n` of another type
    v = result.verification
    assert v is not None and [e.place for e in v.new_errors] == ["src/sub.ts:4"], v
    assert result.details["complete"] is False and "not complete: it introduced errors at src/sub.ts:4" in result.message


def test_a_forced_removal_names_what_it_breaks(servers: None, project) -> None:  # noqa: ANN001
    p = project("go")
    preview = p.engine.remove_symbol("Helper", "a.go", force=True, dry_run=True)
    assert preview.dry_run and (p.root / "a.go").read_text() == GO["a.go"]
    result = p.engine.remove_symbol("Helper", "a.go", force=True)
    for v in (preview.verification, result.verification):
        assert v is not None and [(e.place, e.message) for e in v.new_errors] == [("b.go:4", "undefined: Helper")], v


def test_a_hooks_delta_leaves_the_server_the_text_the_host_writes_next(servers: None, project) -> None:  # noqa: ANN001
    """A hook's delta (a dry run of a text the host writes next) leaves the server holding that
    text, not the one before (sent back, then the written one sent again, each analysed anew); if
    the host does not write it, the server's next use reads the file and sends its text back."""
    from gateway.hostcalls.verified import delta

    p = project("python")
    path, old, new, caller = HEADER["python"]
    file = p.root / path
    before = file.read_text()
    after = before.replace(old, new)
    session = p.engine.sessions.session_for(p.engine.registry.for_path(path))
    assert session is not None
    p.engine.symbols(path)
    sent = session.version_of(file)
    found = delta(p.engine, file, before, after, None)
    assert found is not None and [e.place for e in found.new_errors] == [caller]
    assert session.version_of(file) == sent + 1  # the text after, and nothing since
    file.write_text(after)  # the host writes it: nothing is sent again
    assert [s["name_path"] for s in p.engine.symbols(path).to_json()["symbols"]] == ["helper"]
    assert session.version_of(file) == sent + 1
    file.write_text(before)
    p.engine.symbols(path)
    found = delta(p.engine, file, before, after, None)
    assert found is not None and session.version_of(file) == sent + 3
    # the host did not write it: the server's next use gives it the file's text back
    p.reset("body = true\n")
    p.engine.symbols(path)
    assert session.version_of(file) == sent + 4
    body_path, body_old, body_new = BODY["python"]
    checked = p.engine.edit(body_path, body_old, body_new).verification
    assert checked is not None and checked.status == "checked" and checked.new_errors == (), checked
