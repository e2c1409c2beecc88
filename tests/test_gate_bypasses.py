"""Every bypass of the old "old_string mentions a definition's name" rule, closed: the gate
judges the file before and after the write, on every surface."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.contracts.apply import read_contract
from gateway.contracts.check import check_contract
from gateway.errors import Blocked
from gateway.gate.checker import Gate, classify_edit
from gateway.langs import default_registry
from gateway.surfaces.hooks.hosts.claude_code import run as run_hook
from gateway.surfaces.operations import call
from gateway.syntax import language_for, find_definitions

SOURCE = "def f(a):\n    return a\n\n\ndef g(a):\n    return a\n"
AFTER_NAME_OLD = "(a):\n    return a"
AFTER_NAME_NEW = "(a, b, c):\n    raise SystemExit"


def _hook(payload: dict[str, object]) -> dict[str, object] | None:
    output, code = run_hook(json.dumps(payload).encode())
    assert code == 0
    return json.loads(output) if output else None


def _denied(payload: dict[str, object]) -> str:
    """The gate's refusal through the hook, with routing turned off in the payload's workspace."""
    config = Path(str(payload["cwd"])) / ".gateway" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    existing = config.read_text() if config.exists() else "[gate]\n"
    if "on_structural" not in existing:
        config.write_text(existing.replace("[gate]\n", '[gate]\non_structural = "deny"\n'))
    decision = _hook(payload)
    assert decision is not None, "the hook let the write through"
    specific = decision["hookSpecificOutput"]
    assert isinstance(specific, dict) and specific["permissionDecision"] == "deny"
    return str(specific["permissionDecisionReason"])


pytestmark = pytest.mark.workspace(copy=None, files={"p.py": "def f(a):\n    return a\n"})


# old_string starting after the name, cut mid-name, ending before it


@pytest.mark.parametrize(
    ("content", "old", "new", "change"),
    [
        ("def f(a):\n    return a\n", AFTER_NAME_OLD, AFTER_NAME_NEW, "header"),
        ("def print_all(a):\n    return a\n", "nt_all(a):\n    return a", "nt_some(a):\n    return [a]", "renamed"),
        ("@cache\ndef f(a):\n    return a\n", "@cache\ndef ", "def ", "header"),
        ("x = 1\n\n@cache\ndef f(a):\n    return a\n", "\n@cache\ndef ", "\n@cache\nasync def ", "header"),
    ],
    ids=["after-name", "mid-name", "drops-decorator", "def-to-async-def"],
)
def test_python_edits_around_the_name(content: str, old: str, new: str, change: str) -> None:
    result = classify_edit("p.py", old, new, content=content)
    assert result.blocked and [d.change for d in result.definitions] == [change], result.message


@pytest.mark.parametrize(
    ("filename", "content", "old", "new"),
    [
        ("s.go", "package s\n\ntype R struct{}\n\nfunc (r *R) Area() int {\n\treturn 1\n}\n", "}\n\nfunc (r *R) ", "}\n\nfunc (r R) "),
        ("s.ts", "const a = 1;\n\nexport function f(x: number) {\n  return x;\n}\n", "1;\n\nexport function ", "1;\n\nfunction "),
        ("s.rs", "struct P;\n\n#[inline]\npub fn f() -> i32 {\n    1\n}\n", "P;\n\n#[inline]\npub fn ", "P;\n\nfn "),
    ],
    ids=["go-receiver", "ts-drops-export", "rust-drops-attribute-and-pub"],
)
def test_edits_ending_before_the_name(filename: str, content: str, old: str, new: str) -> None:
    result = classify_edit(filename, old, new, content=content)
    assert result.blocked and result.definitions[0].change == "header", result.message


def test_replace_all_over_several_functions() -> None:
    result = classify_edit("p.py", AFTER_NAME_OLD, AFTER_NAME_NEW, content=SOURCE, replace_all=True)
    assert result.blocked and [d.name_path for d in result.definitions] == ["f", "g"]


def test_single_line_steps_may_not_remove_or_rename_a_definition() -> None:
    assert classify_edit("p.py", "def f(a):\n", "", content=SOURCE).blocked
    assert classify_edit("p.py", "def f(a):", "def h(a):", content=SOURCE).blocked
    header_only = classify_edit("p.py", "def f(a):", "def f(a, b=1):", content=SOURCE)
    assert (header_only.decision, header_only.reason) == ("allow", "single_line")


def test_multi_edit_single_line_steps_are_judged_on_their_net_effect(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")  # a one-line header change is verified: here without a server (unknown)
    steps = [{"old_string": "def f(a):", "new_string": "def f(a, b):"}, {"old_string": "    return a", "new_string": "    return b"}]
    for step in steps:  # each step alone passes
        assert _hook({"tool_name": "Edit", "cwd": str(workspace), "tool_input": {"file_path": "p.py", **step}}) is None
    reason = _denied({"tool_name": "MultiEdit", "cwd": str(workspace), "tool_input": {"file_path": "p.py", "edits": steps}})
    assert "this multi-edit to" in reason and "changes the header of function `f`" in reason


# Every surface


def test_after_name_edit_is_blocked_by_the_api_and_the_operation_table(workspace: Path) -> None:
    with Gateway(workspace, use_servers=False) as gateway:
        with pytest.raises(Blocked):
            gateway.edit("p.py", AFTER_NAME_OLD, AFTER_NAME_NEW)
        with pytest.raises(Blocked):  # JSON-RPC gateway/edit and MCP edit_file call this table
            call(gateway, "edit", {"file_path": "p.py", "old_string": AFTER_NAME_OLD, "new_string": AFTER_NAME_NEW, "route": False})
    assert (workspace / "p.py").read_text() == "def f(a):\n    return a\n"


def test_after_name_edit_is_denied_by_the_hook(workspace: Path) -> None:
    reason = _denied({"tool_name": "Edit", "cwd": str(workspace), "tool_input": {
        "file_path": "p.py", "old_string": AFTER_NAME_OLD, "new_string": AFTER_NAME_NEW}})
    assert "changes the header of function `f`" in reason


def test_after_name_text_step_is_refused_by_a_contract(workspace: Path) -> None:
    (workspace / "c.toml").write_text(
        '[contract]\nid = "x"\nsummary = "x"\nfallback = "x"\n\n[[files]]\npath = "p.py"\n\n'
        f'[[steps]]\nid = "s"\nfile = "p.py"\naction = "replace"\nanchor = {json.dumps(AFTER_NAME_OLD)}\ntext = {json.dumps(AFTER_NAME_NEW)}\n'
    )
    with Gateway(workspace, use_servers=False) as gateway:
        plan = check_contract(gateway, read_contract(gateway, "c.toml"))
    assert [problem.code for problem in plan.problems] == ["structural"]


# Line endings


def test_mixed_line_endings_judge_the_occurrence_the_write_edits(workspace: Path) -> None:
    # A CRLF copy of f inside a string comes first; the agent's LF old_string matches only the real f.
    content = 'DOC = """def f(a):\r\n    return a"""\n\n\ndef f(a):\n    return a\n'
    (workspace / "p.py").write_bytes(content.encode())
    old, new = "def f(a):\n    return a", "def f(a, b):\n    return b"
    with Gateway(workspace, use_servers=False) as gateway, pytest.raises(Blocked):
        gateway.edit("p.py", old, new)
    assert (workspace / "p.py").read_bytes() == content.encode()
    assert "changes the header of function `f`" in _denied(
        {"tool_name": "Edit", "cwd": str(workspace), "tool_input": {"file_path": "p.py", "old_string": old, "new_string": new}}
    )


def test_the_hook_judges_every_reading_of_a_crlf_file(workspace: Path) -> None:
    (workspace / "p.py").write_bytes(b"def f(a):\r\n    return a\r\n")
    reason = _denied({"tool_name": "Edit", "cwd": str(workspace), "tool_input": {
        "file_path": "p.py", "old_string": "(a):\n    return a", "new_string": "(a, b):\n    return b"}})
    assert "function `f`" in reason


@pytest.mark.parametrize("newline", ["\r", "\u2028"], ids=["cr-only", "u2028"])
def test_exotic_line_breaks_count_as_lines(newline: str) -> None:
    filename = "p.py" if newline == "\r" else "p.js"
    if newline == "\r":
        content, old, new = "def f(a):\r    return a\r\rdef g():\r    pass\r", "(a):\r    return a", "(a, b):\r    return b"
    else:
        content = "function f(a) {\u2028  return a;\u2028}\u2028"
        old, new = "(a) {\u2028  return a;", "(a, b) {\u2028  return b;"
    result = classify_edit(filename, old, new, content=content)
    assert result.blocked and result.definitions[0].name_path == "f", result.message


# Syntax-breaking edits


def test_an_edit_that_breaks_the_syntax_is_a_syntax_error_not_a_removal() -> None:
    result = classify_edit("p.py", "    return a\n\n\ndef g(a):", "    return (a\n\n\ndef g(a):", content=SOURCE)
    assert (result.decision, result.reason, result.definitions, result.suggested_tool) == ("block", "syntax_error", (), None)
    assert result.syntax_error is not None and result.syntax_error.line == 2


def test_with_syntax_errors_allowed_a_swallowed_definition_is_not_called_removed() -> None:
    from gateway.config import GateConfig
    from gateway.gate.effect import edit_effect

    gate = Gate(config=GateConfig(on_new_syntax_error="allow"))
    content = "def f(a):\n    x = 1\n    return a\n\n\ndef g(a):\n    return a\n"
    result = gate.check(edit_effect("p.py", content, "    x = 1\n    return a\n\n\ndef g", "    x = = 1\n    return a\n\n\ndef g"))
    assert (result.decision, result.reason) == ("allow", "body_only"), result.message


# C++ headers


CPP_HEADER = "#pragma once\n\nnamespace geo {\nclass Circle {\npublic:\n    double area() const;\n    int r;\n};\n}\n"
C_HEADER = "#ifndef A_H\n#define A_H\nstruct point { int x; };\nint area(struct point p);\n#endif\n"


def test_a_cpp_header_is_judged_as_cpp() -> None:
    registry = default_registry()
    assert language_for(registry, "geo.h", CPP_HEADER).name == "cpp"
    assert language_for(registry, "point.h", C_HEADER).name == "c"
    result = classify_edit("geo.h", "    double area() const;\n    int r;", "    double area(int scale) const;\n    int r;", content=CPP_HEADER)
    assert result.language == "cpp" and result.blocked and result.definitions[0].name_path == "geo/Circle/area"


def test_the_symbol_service_reads_a_cpp_header_as_cpp(tmp_path: Path) -> None:
    (tmp_path / "geo.h").write_text(CPP_HEADER)
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.symbols("geo.h").to_json()
    assert result["language"] == "cpp" and "geo/Circle/area" in [s["name_path"] for s in result["symbols"]]


def test_anonymous_enum_with_a_base_type_is_no_definition() -> None:
    lang = default_registry().get("cpp")
    found = find_definitions(lang, b"enum : unsigned { A = 1 };\nenum Named : int { B };\n")
    assert [d.name_path for d in found] == ["Named"]


# Definition forms the queries used to miss, and extensions


GAPS = [
    ("a.tsx", "export const Card = memo(function Card(props: P) {\n  return null;\n});\n", "Card"),
    ("a.tsx", "export const Input = React.forwardRef((props: P, ref) => {\n  return null;\n});\n", "Input"),
    ("a.ts", "export default function () {\n  return 1;\n}\n", "default"),
    ("a.ts", "const f = ((x: number) => {\n  return x;\n}) as Handler;\n", "f"),
    ("a.ts", "const g = (async (x: number) => {\n  return x;\n}) satisfies Handler;\n", "g"),
    ("a.js", "const h = ((x) => {\n  return x;\n});\n", "h"),
    ("a.c", "__attribute__((noreturn)) void die(int code) {\n    exit(code);\n}\n", "die"),
    ("a.c", "void *__attribute__((malloc)) make(size_t n) {\n    return 0;\n}\n", "make"),
    ("a.c", "int ***deep(void) {\n    return 0;\n}\n", "deep"),
    ("a.c", "void (*handler(int sig, void (*fn)(int)))(int) {\n    return fn;\n}\n", "handler"),
    ("a.cpp", "struct A {\n    operator bool() const {\n        return true;\n    }\n};\n", "A/operator bool"),
    ("a.cpp", "int *find(int k) {\n    return 0;\n}\n", "find"),
    ("a.cpp", "namespace n {\nauto add = [](int a, int b) {\n    return a + b;\n};\n}\n", "n/add"),
    ("a.cs", "class A {\n    public int Total => items.Count;\n}\n", "A/Total"),
    ("a.cs", "class A {\n    public int this[int i] {\n        get { return i; }\n    }\n}\n", "A/this"),
    ("a.cs", "class A {\n    public static implicit operator int(A a) => 1;\n}\n", "A/int"),
    ("a.cs", "class A {\n    public event EventHandler Changed {\n        add { }\n        remove { }\n    }\n}\n", "A/Changed"),
    ("a.kt", "class A(val x: Int) {\n    constructor(y: String) : this(1) {\n        init()\n    }\n}\n", "A/constructor"),
    ("a.kt", "class A {\n    val size: Int\n        get() = 1\n}\n", "A/size"),
    ("a.kt", "val twice = { x: Int ->\n    x * 2\n}\n", "twice"),
    ("a.kt", "val thrice = fun(x: Int): Int {\n    return x * 3\n}\n", "thrice"),
    ("A.java", "class A {\n    Runnable task = () -> {\n        run();\n    };\n}\n", "A/task"),
    ("a.rs", "impl Display for &Point {\n    fn fmt(&self) {\n        todo!()\n    }\n}\n", "Point/fmt"),
    ("a.rs", "cfg_if! {\n    if #[cfg(unix)] {\n        fn native() -> i32 {\n            1\n        }\n    }\n}\n", "native"),
    ("a.go", "package a\n\nvar handler = func(x int) int {\n\treturn x\n}\n", "handler"),
    ("a.py", "handler = lambda request: request\n", "handler"),
    ("k.cu", "__global__ void kernel(float *x) {\n    x[0] = 1;\n}\n", "kernel"),
    ("k.cuh", "struct Grid {\n    int n;\n};\n", "Grid"),
    ("Rakefile", "def helper(x)\n  x\nend\n", "helper"),
    ("Gemfile", "def pinned(name)\n  gem name\nend\n", "pinned"),
]


@pytest.mark.parametrize(("filename", "content", "name_path"), GAPS, ids=[f"{f}:{n}" for f, _, n in GAPS])
def test_definition_forms_are_found_and_guarded(filename: str, content: str, name_path: str) -> None:
    lang = language_for(default_registry(), filename, content)
    assert lang is not None
    found = {d.name_path: d for d in find_definitions(lang, content.encode())}
    assert name_path in found, sorted(found)
    data = content.encode()
    text = data[found[name_path].start_byte : found[name_path].end_byte].decode()
    removed = classify_edit(filename, text, "", content=content)
    assert removed.blocked and name_path in [d.name_path for d in removed.definitions], removed.message


# Failing closed


@pytest.mark.parametrize(
    "raw",
    [
        b'{"tool_name": "Edit", "tool_input": {"file_path": "p.py", "old_string": "\\ud800", "new_string": "x"}}',
        b"\xff\xfe{}",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"tool_name": "Edit", "cwd": 5, "tool_input": {}}',
        b'{"tool_name": "Edit", "tool_input": {"file_path": "' + b"a" * 5000 + b'", "old_string": "a", "new_string": "b"}}',
        b'{"tool_name": "Write", "tool_input": {"file_path": "p.py", "content": ["x"]}}',
    ],
    ids=["lone-surrogate", "invalid-utf8", "deep-nesting", "cwd-not-a-string", "path-too-long", "content-not-a-string"],
)
def test_the_hook_fails_closed_on_input_it_cannot_handle(raw: bytes) -> None:
    from gateway.errors import UsageError

    with pytest.raises(UsageError):
        run_hook(raw)


def test_a_file_over_the_limit_is_refused_not_judged(tmp_path: Path) -> None:
    (tmp_path / ".gateway").mkdir()
    (tmp_path / ".gateway" / "config.toml").write_text("[gate]\nmax_file_bytes = 1000\n")
    (tmp_path / "big.py").write_text("def f():\n    return 1\n" * 100)
    reason = _denied({"tool_name": "Edit", "cwd": str(tmp_path), "tool_input": {
        "file_path": "big.py", "old_string": "def f", "new_string": "def g", "replace_all": True}})
    assert "2200 bytes, over the gate's limit of 1000" in reason
    huge = "x" * 2000
    reason = _denied({"tool_name": "Write", "cwd": str(tmp_path), "tool_input": {"file_path": "new.py", "content": huge}})
    assert "over the gate's limit" in reason


def test_gate_limit_applies_to_the_api(tmp_path: Path) -> None:
    from gateway.config import GateConfig
    from gateway.errors import TooLarge

    with pytest.raises(TooLarge):
        Gate(config=GateConfig(max_file_bytes=100)).check_edit("p.py", SOURCE * 10, "def f", "def h")


@pytest.mark.usefixtures("processes")
def test_cli_not_found_exits_1_naming_the_nearest_lines(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "p.py").write_text(SOURCE)
    done = subprocess.run([sys.executable, "-m", "gateway", "edit", "p.py", "--old", "def f(b):\n    return a", "--new", "x", "--json"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and json.loads(done.stdout)["error"]["kind"] == "not_found"
    assert "nearest: line 1 'def f(a):'" in done.stderr and done.stderr.count("\n") == 1
    assert (tmp_path / "p.py").read_text() == SOURCE


def test_an_internal_error_in_the_hook_fails_closed(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io
    import sys

    from gateway.surfaces import cli
    from gateway import hostcalls

    def explode(engine: object, call: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(hostcalls, "pre", explode)
    monkeypatch.setenv("GATEWAY_NO_DAEMON", "1")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b'{"tool_name": "Edit", "tool_input": {"file_path": "a.py", "old_string": "a", "new_string": "b"}}')))
    assert cli.run(["hook", "claude-code"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error (ZeroDivisionError: boom)" in err
