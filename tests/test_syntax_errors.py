"""Issue 22, point 1: a write that adds a syntax error is refused as a syntax error, on every
surface, whatever its size, saying where and what; errors the file had do not count."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.config import GateConfig
from gateway.contracts.apply import read_contract
from gateway.contracts.check import check_contract
from gateway.errors import Blocked
from gateway.gate.checker import Gate
from gateway.gate.effect import edit_effect
from gateway.surfaces.hooks.hosts.claude_code import run as run_hook
from gateway.surfaces.operations import call

REAL = Path(__file__).parent / "real_code"
DEDENT = (REAL / "textwrap_dedent.py").read_text()
READER = (REAL / "reader.go").read_text()

# (file, text, old, new, line, column, what): typos a model makes, one line and several.
TYPOS = [
    ("textwrap_dedent.py", DEDENT, "def indent(text, prefix, predicate=None):", "def indent(text, prefix, predicate=None:",
     59, 40, "invalid syntax"),
    ("textwrap_dedent.py", DEDENT, "        def predicate(line):\n            return line.strip()",
     "        def predicate(line)\n            return line.strip()", 68, 28, "expected ':'"),
    ("textwrap_dedent.py", DEDENT, "            margin = indent\n\n        # Current line more",
     "            margin = indent +\n\n        # Current line more", 28, 30, "invalid syntax"),
    ("reader.go", READER, "func (r *Reader) Len() int {", "func (r *Reader) Len( int {", 26, 26, "missing `)`"),
    ("reader.go", READER, "\tr.prevRune = -1\n\tn = copy(b, r.s[r.i:])", "\tr.prevRune = -1\n\tn = copy(b, r.s[r.i:]", 45, 10, "unexpected `(`"),
]


@pytest.mark.parametrize(("name", "text", "old", "new", "line", "column", "what"), TYPOS, ids=[f"{t[0]}-{i}" for i, t in enumerate(TYPOS)])
def test_a_typo_is_a_syntax_error_at_its_place_with_no_symbol_advice(name: str, text: str, old: str, new: str, line: int, column: int, what: str) -> None:
    verdict = Gate().check(edit_effect(name, text, old, new))
    assert (verdict.decision, verdict.reason, verdict.suggested_tool, verdict.suggested, verdict.definitions) == ("block", "syntax_error", None, (), ())
    assert verdict.syntax_error is not None
    assert (verdict.syntax_error.line, verdict.syntax_error.column, verdict.syntax_error.what) == (line, column, what)
    assert f"syntax error at line {line}:{column}: {what}" in verdict.message
    assert ("one-line edit" if "\n" not in old else "multi-line edit") in verdict.message
    assert "symbol" not in verdict.message and "remove" not in verdict.message


def test_errors_the_file_already_had_do_not_count() -> None:
    broken = READER.replace("func (r *Reader) Size() int64 {", "func (r *Reader) Size() int64 {{", 1)
    verdict = Gate().check(edit_effect("reader.go", broken, "return 0, io.EOF\n\t}\n\tr.prevRune = -1", "return 0, io.EOF\n\t}\n\tr.prevRune = -2"))
    assert (verdict.decision, verdict.reason) == ("allow", "body_only"), verdict.message
    python = DEDENT.replace("def indent(text, prefix, predicate=None):", "def indent(text, prefix, predicate=None:")
    verdict = Gate().check(edit_effect("t.py", python, "    margin = None\n", "    margin = ''\n"))
    assert verdict.decision == "allow", verdict.message


def test_python_decides_what_tree_sitter_accepts() -> None:
    """`return` at module level parses for tree-sitter; Python refuses it."""
    verdict = Gate().check(edit_effect("t.py", DEDENT, "    return text\n\n\ndef indent", "return text\n\n\ndef indent"))
    assert verdict.reason == "syntax_error" and verdict.syntax_error is not None
    assert verdict.syntax_error.what == "'return' outside function"


def test_a_new_file_with_a_syntax_error_is_refused() -> None:
    _, verdict = Gate().check_write("new.go", None, READER.replace("func (r *Reader) Len() int {", "func (r *Reader) Len() int {{"))
    assert verdict.reason == "syntax_error" and "whole-file write" in verdict.message


def test_allowed_by_config_the_write_is_judged_like_any_other() -> None:
    gate = Gate(config=GateConfig(on_new_syntax_error="allow"))
    verdict = gate.check(edit_effect("reader.go", READER, "\tn = copy(b, r.s[r.i:])", "\tn = copy(b, r.s[r.i:]"))
    assert (verdict.decision, verdict.reason) == ("allow", "single_line")


pytestmark = pytest.mark.workspace(copy=None, files={"tw.py": DEDENT})


BODY_TYPO = ("    if margin:\n        text = re.sub", "    if margin\n        text = re.sub")


def _unchanged(workspace: Path) -> bool:
    return (workspace / "tw.py").read_text() == DEDENT


@pytest.mark.usefixtures("processes")
def test_every_surface_refuses_a_body_typo(workspace: Path) -> None:
    old, new = BODY_TYPO
    with Gateway(workspace, use_servers=False) as gateway:
        for route in (False, True):
            with pytest.raises(Blocked) as refused:  # the CLI, JSON-RPC gateway/edit and MCP edit_file call this table
                call(gateway, "edit", {"file_path": "tw.py", "old_string": old, "new_string": new, "route": route})
            assert refused.value.classification.reason == "syntax_error"
    output, code = run_hook(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(workspace),
                                        "tool_input": {"file_path": "tw.py", "old_string": old, "new_string": new}}).encode())
    reason = json.loads(output)["hookSpecificOutput"]["permissionDecisionReason"]
    assert code == 0 and "syntax error at line 54:14: expected ':'" in reason
    done = subprocess.run([sys.executable, "-m", "gateway", "edit", "tw.py", "--old", old, "--new", new, "--json"],
                          cwd=workspace, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and json.loads(done.stdout)["syntax_error"] == {"line": 54, "column": 14, "message": "expected ':'"}
    assert _unchanged(workspace)


def test_a_contract_text_step_that_breaks_the_syntax_is_refused_as_such(workspace: Path) -> None:
    old, new = BODY_TYPO
    (workspace / "c.toml").write_text(
        '[contract]\nid = "x"\nsummary = "x"\nfallback = "x"\n\n[[files]]\npath = "tw.py"\n\n'
        f'[[steps]]\nid = "s"\nfile = "tw.py"\naction = "replace"\nanchor = {json.dumps(old)}\ntext = {json.dumps(new)}\n'
    )
    with Gateway(workspace, use_servers=False) as gateway:
        plan = check_contract(gateway, read_contract(gateway, "c.toml"))
    assert [problem.code for problem in plan.problems] == ["syntax_error"]
    assert _unchanged(workspace)
