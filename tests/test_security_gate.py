"""Issue 23: the gate sees what the compiler sees. Definitions taken away without deleting their
text (wrapped in `if False:` or `#if 0`, shadowed by `del f`, `#define f g`, Ruby's
`define_method`), a backslash splice hidden by a trailing blank, a one-line kind change and a
C# file-scoped namespace rename are each judged as the structural change they are; on real code."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gateway.gate.checker import Gate
from gateway.gate.effect import edit_effect
from gateway.gate.verdict import Classification
from gateway.surfaces.hooks.hosts.claude_code import run as run_hook
from tests.gate_cases import commands

REAL = Path(__file__).parent / "real_code"
DEDENT = (REAL / "textwrap_dedent.py").read_text()
KQUEUE = (REAL / "libuv_kqueue.c").read_text()
BUFFERING = (REAL / "openssl_buffering.rb").read_bytes().decode("latin-1")

NEXT = "static int uv__kqueue_next(void) {\n  return 0;\n}\n"
INDENT_DEF = "def indent(text, prefix, predicate=None):"


def _shadowed(verdict: Classification) -> list[tuple[str, str | None]]:
    return [(d.name_path, d.detail) for d in verdict.definitions if d.change == "shadowed"]


def test_wrapping_a_python_function_in_if_false_takes_it_away() -> None:
    body = DEDENT[DEDENT.index(INDENT_DEF):]
    wrapped = "if False:\n" + "".join("    " + line if line.strip() else line for line in body.splitlines(True))
    verdict = Gate().check(edit_effect("tw.py", DEDENT, body, wrapped))
    assert verdict.blocked and not verdict.routable
    assert _shadowed(verdict) == [("indent", "now under `if False:` at line 59")], verdict.message


def test_del_after_a_definition_takes_it_away() -> None:
    verdict = Gate().check(edit_effect("tw.py", DEDENT, "    return ''.join(prefixed_lines())\n", "    return ''.join(prefixed_lines())\n\n\ndel dedent\n"))
    assert _shadowed(verdict) == [("dedent", "`del dedent` at line 77")], verdict.message
    assert "gateway remove-symbol dedent tw.py" in commands(verdict)


def test_if_0_around_a_c_function_takes_it_away() -> None:
    verdict = Gate().check(edit_effect("kqueue.c", KQUEUE, NEXT, "#if 0\n" + NEXT + "#endif\n"))
    assert _shadowed(verdict) == [("uv__kqueue_next", "now under `#if 0` at line 19")], verdict.message


HEADER = "#ifndef X_H\n#define X_H\n\nnamespace x {\nint f();\n}\n\n#endif\n"


@pytest.mark.parametrize("guard", ["#if !defined(_X_H_)\n#define _X_H_\n", "#ifndef X_H_INCLUDED\n#define X_H_INCLUDED\n"])
def test_renaming_a_headers_include_guard_moves_no_definition(guard: str) -> None:
    """The polyglot binary-search-tree and circular-buffer solutions rename their guards."""
    verdict = Gate().check(edit_effect("x.h", HEADER, "#ifndef X_H\n#define X_H\n", guard))
    assert _shadowed(verdict) == [] and not verdict.blocked, verdict.message


def test_a_guard_that_defines_another_name_is_a_condition() -> None:
    verdict = Gate().check(edit_effect("x.h", HEADER, "#ifndef X_H\n#define X_H\n", "#if !defined(_X_H_)\n#define Y\n"))
    # The header holds a namespace: it is C++, and the namespace (with `f` in it) is what moves.
    assert _shadowed(verdict) == [("x", "now under `#if !defined(_X_H_)` at line 1")], verdict.message


def test_a_macro_of_a_functions_name_replaces_it() -> None:
    verdict = Gate().check(edit_effect("kqueue.c", KQUEUE, NEXT, NEXT + "#define uv__kqueue_revents uv__kqueue_next\n"))
    assert _shadowed(verdict) == [("uv__kqueue_revents", "`#define uv__kqueue_revents uv__kqueue_next` at line 22")]


@pytest.mark.usefixtures("processes")
def test_a_backslash_before_a_blank_splices_the_next_line_into_a_comment_as_gcc_does(tmp_path: Path) -> None:
    after = KQUEUE.replace("  w->cb(w, revents);\n}\n\n", "  w->cb(w, revents);\n}\n// the next loop \\ \n", 1).replace(NEXT, "static int uv__kqueue_next(void) { return 0; }\n")
    before = KQUEUE.replace(NEXT, "static int uv__kqueue_next(void) { return 0; }\n")
    verdict = Gate().check(edit_effect("kqueue.c", before, "  w->cb(w, revents);\n}\n\n", "  w->cb(w, revents);\n}\n// the next loop \\ \n"))
    assert [(d.name_path, d.change) for d in verdict.definitions] == [("uv__kqueue_next", "removed")], verdict.message
    # gcc agrees: with the splice, the function is gone
    (tmp_path / "k.c").write_text("int main(void) { return uv__kqueue_next(); }\n" + after.split("static void", 1)[0] + after[after.index("// the next"):])
    done = subprocess.run(["gcc", "-fsyntax-only", "-Werror=implicit-function-declaration", str(tmp_path / "k.c")], capture_output=True, text=True)
    assert "uv__kqueue_next" in done.stderr


def test_define_method_over_a_ruby_method_replaces_it() -> None:
    anchor = "  def fill_rbuff\n"
    verdict = Gate().check(edit_effect("buffering.rb", BUFFERING, anchor, "  define_method(:consume_rbuff) { |size = nil| nil }\n\n" + anchor))
    assert [name for name, _ in _shadowed(verdict)] == ["OpenSSL/Buffering/consume_rbuff"], verdict.message


def test_a_one_line_kind_change_is_structural() -> None:
    source = "class Config:\n    debug = False\n"
    verdict = Gate().check(edit_effect("c.py", source, "class Config:", "def Config():"))
    assert verdict.blocked and verdict.definitions[0].change == "header", verdict.message


def test_renaming_a_csharp_file_scoped_namespace_is_structural() -> None:
    source = "namespace System.Text.Json.Nodes;\n\npublic sealed class JsonArray\n{\n    public int Count => 0;\n}\n"
    verdict = Gate().check(edit_effect("JsonArray.cs", source, "namespace System.Text.Json.Nodes;", "namespace System.Text.Json.Trees;"))
    assert verdict.blocked and verdict.definitions[0].change == "renamed", verdict.message


def test_the_hook_denies_a_shadowing_without_routing_it(tmp_path: Path) -> None:
    (tmp_path / "tw.py").write_text(DEDENT)
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(tmp_path), "tool_input": {
        "file_path": "tw.py", "old_string": "    return ''.join(prefixed_lines())\n", "new_string": "    return ''.join(prefixed_lines())\ndel dedent\n"}}
    output, code = run_hook(json.dumps(payload).encode())
    decision = json.loads(output)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny" and "del dedent" in decision["permissionDecisionReason"]
    assert (tmp_path / "tw.py").read_text() == DEDENT


@pytest.mark.parametrize(("old", "new"), [
    ("    if margin:\n        text = re.sub", "    if margin:\n        # keep the margin\n        text = re.sub"),
    ("    return text\n\n\ndef indent", "    return text\n\n\n# indent: prefix lines\ndef indent"),
])
def test_ordinary_edits_around_definitions_are_not_called_shadowing(old: str, new: str) -> None:
    assert not Gate().check(edit_effect("tw.py", DEDENT, old, new)).blocked


def test_a_write_declaring_an_encoding_under_which_its_bytes_read_otherwise_is_refused() -> None:
    from gateway.errors import UndecodableFile

    hidden = "# coding: utf-7\n" + DEDENT.replace("def indent(", "+AGQ-ef indent(")  # Python reads `def indent(`
    with pytest.raises(UndecodableFile) as refused:
        Gate().check_write("tw.py", DEDENT, hidden)
    assert "declares the encoding utf-7" in str(refused.value)
    assert not Gate().check_write("tw.py", DEDENT, "# -*- coding: utf-8 -*-\n" + DEDENT)[1].blocked


QTIMER = (REAL / "qt_qtimer.h").read_text()


@pytest.mark.parametrize(("old", "name_path"), [
    ("    void start();\n    void stop();\n", "QTimer/stop"),
    ("Q_SIGNALS:\n    void timeout(QPrivateSignal);\n", "QTimer/timeout"),
    ("    bool isActive() const;\n", "QTimer/isActive"),
])
def test_removing_a_method_from_a_qt_header_is_structural(old: str, name_path: str) -> None:
    new = "    void start();\n" if "stop" in old else ""
    verdict = Gate().check(edit_effect("qtimer.h", QTIMER, old, new))
    assert verdict.language == "cpp"
    assert (name_path, "removed") in [(d.name_path, d.change) for d in verdict.definitions], verdict.message


def test_removing_a_definition_where_tree_sitter_cannot_read_the_file_is_not_a_guess() -> None:
    """The file already has an unclosed `dict(`: tree-sitter swallows what follows, so the
    whole-file comparison sees no definition on either side; the changed lines are read alone."""
    broken = DEDENT.replace("def dedent(text):", "SETTINGS = dict(\n    debug=True,\n\n\ndef dedent(text):", 1)
    old = DEDENT[DEDENT.index(INDENT_DEF):]
    verdict = Gate().check(edit_effect("tw.py", broken, old, ""))
    assert (verdict.decision, verdict.reason, verdict.routable) == ("block", "unreadable", False), verdict.message
    assert ("indent", "removed") in [(d.name, d.change) for d in verdict.definitions]
    assert not Gate().check(edit_effect("tw.py", broken, "    return text\n", "    return text.strip()\n")).blocked
