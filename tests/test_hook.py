"""`gateway hook claude-code` fed Claude Code-shaped payloads, and the settings installer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.gate.checker import Gate, read_text
from gateway.gate.verdict import Classification
from tests.gate_cases import PYTHON, commands

DECORATED = "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100"


def classify_write(path: Path, content: str) -> Classification:
    return Gate().check_write(str(path), read_text(path), content)[1]


def hook(payload: object, cwd: Path, raw: str | None = None) -> subprocess.CompletedProcess[str]:
    text = raw if raw is not None else json.dumps(payload)
    return subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], input=text, cwd=cwd,
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "account.py").write_text(PYTHON.source)
    return tmp_path


def _denied(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert (output["hookEventName"], output["permissionDecision"]) == ("PreToolUse", "deny")
    return str(output["permissionDecisionReason"])


def deny_mode(root: Path) -> None:
    (root / ".gateway").mkdir(exist_ok=True)
    (root / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')


def routed(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse" and "updatedInput" in output, output
    return dict(output)


def applied_by_host(text: str, tool: str, updated: dict[str, object]) -> str:
    """What Claude Code does with the tool input: each old_string must occur exactly once, and an
    empty new_string also deletes the newline after the matched text."""
    if tool == "Write":
        return str(updated["content"])
    edits = [updated] if tool == "Edit" else list(updated["edits"])  # type: ignore[arg-type]
    for edit in edits:
        old, new = str(edit["old_string"]), str(edit["new_string"])  # type: ignore[index]
        assert text.count(old) == 1, edit
        if new == "" and not old.endswith("\n") and old + "\n" in text:
            old += "\n"
        text = text.replace(old, new)
    return text


@pytest.mark.usefixtures("processes")
def test_edit_structural_is_denied_when_routing_is_off(project: Path) -> None:
    deny_mode(project)
    reason = _denied(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": str(project / "account.py"), "old_string": DECORATED, "new_string": "", "replace_all": False}}, project))
    assert "remove_symbol" in reason and "gateway remove-symbol Account/fee" in reason and "route=true" not in reason


def performed(payload: dict[str, object], cwd: Path, written: str | None) -> str | None:
    """What the PostToolUse hook tells the model after the host wrote `written` (None: it wrote nothing)."""
    path = Path(str(payload["tool_input"]["file_path"]))  # type: ignore[index]
    path = path if path.is_absolute() else Path(str(payload.get("cwd", cwd))) / path
    if written is not None:
        path.write_text(written)
    done = hook({**payload, "hook_event_name": "PostToolUse"}, cwd)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else None


@pytest.mark.usefixtures("processes")
# The hook reads no permission mode (the host decides): without one, and in the mode where the host must not write.
@pytest.mark.parametrize("mode", [None, "plan"])
def test_edit_structural_is_routed_as_the_hosts_own_edit_leaving_the_decision_to_the_host(project: Path, mode: str | None) -> None:
    payload = {"tool_name": "Edit", "cwd": str(project), "tool_input": {"file_path": "account.py", "old_string": DECORATED, "new_string": ""}}
    if mode:
        payload["permission_mode"] = mode
    output = routed(hook(payload, project))
    assert "permissionDecision" not in output and "additionalContext" not in output  # nothing said before the host writes
    # Claude Code's Edit deletes the newline after text it removes: the host writes exactly R
    result = applied_by_host(PYTHON.source, "Edit", output["updatedInput"])  # type: ignore[arg-type]
    assert result == PYTHON.source.replace(DECORATED + "\n", "")
    assert (project / "account.py").read_text() == PYTHON.source  # the host writes, not the hook
    assert performed(payload, project, None) is None  # the host did not write it (refused, or not yet)
    output = routed(hook(payload, project))
    assert "remove_symbol `Account/fee`" in str(performed(payload, project, result))


@pytest.mark.usefixtures("processes")
def test_a_deletion_is_judged_as_the_host_performs_it(project: Path) -> None:
    """Edit with an empty new_string also removes the line's newline: the gate judges that result."""
    source = "def a():\n    return 1\nx = 1\n"
    (project / "d.py").write_text(source)
    payload = {"tool_name": "Edit", "cwd": str(project), "tool_input": {"file_path": "d.py", "old_string": "x = 1", "new_string": ""}}
    assert hook(payload, project).stdout == ""


@pytest.mark.usefixtures("processes")
def test_edit_relative_to_payload_cwd(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    payload = {"tool_name": "Edit", "cwd": str(project), "tool_input": {"file_path": "account.py", "old_string": DECORATED, "new_string": ""}}
    output = routed(hook(payload, elsewhere))
    written = applied_by_host(PYTHON.source, "Edit", output["updatedInput"])  # type: ignore[arg-type]
    assert "Account/fee" in str(performed(payload, elsewhere, written))


@pytest.mark.usefixtures("processes")
def test_unroutable_edit_is_denied_with_the_reason(project: Path) -> None:
    (project / ".gateway").mkdir()
    (project / ".gateway" / "config.toml").write_text('[gate]\non_new_syntax_error = "allow"\n')
    reason = _denied(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": "account.py", "old_string": DECORATED, "new_string": "    def fee(amount:\n        return ("}}, project))
    assert "Not routed:" in reason and "syntax error" in reason


@pytest.mark.usefixtures("processes")
def test_an_edit_that_adds_a_syntax_error_is_denied_as_one(project: Path) -> None:
    reason = _denied(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": "account.py", "old_string": DECORATED, "new_string": "    def fee(amount:\n        return ("}}, project))
    assert reason.startswith("Refused:") and "syntax error at line 17:" in reason, reason
    assert "symbol" not in reason and "Not routed" not in reason
    assert (project / "account.py").read_text() == PYTHON.source


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize(
    "payload",
    [
        {"tool_name": "Edit", "tool_input": {"file_path": "account.py", "old_string": "self.balance = 0", "new_string": "self.balance = 1"}},
        {"tool_name": "Edit", "tool_input": {"file_path": "README.md", "old_string": "a\nb", "new_string": "def x():\n  pass"}},
        {"tool_name": "Bash", "tool_input": {"command": "sed -i s/a/b/ account.py"}},
        {"tool_name": "Read", "tool_input": {"file_path": "account.py"}},
        {"tool_name": "Write", "tool_input": {"file_path": "new_module.py", "content": "def main():\n    return 0\n"}},
    ],
    ids=["body-edit", "prose", "bash", "read", "write-new-file"],
)
def test_allowed_and_other_tools_pass_silently(project: Path, payload: dict[str, object]) -> None:
    done = hook({**payload, "cwd": str(project)}, project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


@pytest.mark.usefixtures("processes")
def test_multi_edit_judges_each_edit_on_the_edited_text(project: Path) -> None:
    payload = {"tool_name": "MultiEdit", "cwd": str(project), "tool_input": {"file_path": "account.py", "edits": [
        {"old_string": "self.balance = 0", "new_string": "self.balance = 1"},
        {"old_string": "self.balance = 1", "new_string": "self.balance = 1\n\n    def deposit(self, amount):\n        self.balance += amount"},
    ]}}
    output = routed(hook(payload, project))
    expected = PYTHON.source.replace("self.balance = 0", "self.balance = 1\n\n    def deposit(self, amount):\n        self.balance += amount")
    assert applied_by_host(PYTHON.source, "MultiEdit", output["updatedInput"]) == expected  # type: ignore[arg-type]
    assert "insert_code after `Account/__init__`" in str(performed(payload, project, expected))
    (project / "account.py").write_text(PYTHON.source)
    deny_mode(project)
    reason = _denied(hook(payload, project))
    assert "adds method `Account/deposit`" in reason and "insert_code" in reason
    payload["tool_input"]["edits"] = payload["tool_input"]["edits"][:1]  # type: ignore[index]
    assert hook(payload, project).stdout == ""


@pytest.mark.usefixtures("processes")
def test_write_over_a_definition_is_routed(project: Path) -> None:
    content = PYTHON.source.replace("    def fee(amount):\n        return amount // 100", "    def fee(amount, rate):\n        return amount // rate")
    payload = {"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": content}}
    output = routed(hook(payload, project))
    assert applied_by_host(PYTHON.source, "Write", output["updatedInput"]) == content  # type: ignore[arg-type]
    assert "replace_symbol `Account/fee`" in str(performed(payload, project, content))
    (project / "account.py").write_text(PYTHON.source)
    deny_mode(project)
    reason = _denied(hook(payload, project))
    assert reason.startswith("Blocked: this whole-file write to") and "changes the header of method `Account/fee`" in reason
    body_only = PYTHON.source.replace("return amount // 100", "return amount // 10").replace("return inner()", "return inner() + 1")
    assert hook({"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": body_only}}, project).stdout == ""
    unchanged_definitions = PYTHON.source.replace('CLASS_NAMES = ["class", "def"]', 'CLASS_NAMES = ["class"]')
    allowed = hook({"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": unchanged_definitions}}, project)
    assert allowed.stdout == ""


@pytest.mark.usefixtures("processes")
def test_routed_edit_on_a_crlf_copy_targets_the_real_definition(tmp_path: Path) -> None:
    content = 'DOC = """def f(a):\r\n    return a"""\n\n\ndef f(a):\n    return a\n'
    (tmp_path / "p.py").write_bytes(content.encode())
    old, new = "def f(a):\n    return a", "def f(a, b):\n    return b"
    output = routed(hook({"tool_name": "Edit", "cwd": str(tmp_path), "tool_input": {"file_path": "p.py", "old_string": old, "new_string": new}}, tmp_path))
    assert applied_by_host(content, "Edit", output["updatedInput"]) == content.replace("\ndef f(a):\n    return a", "\n" + new)  # type: ignore[arg-type]


def test_classify_write_commands(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def a():\n    return 1\n\n\ndef b():\n    return 2\n")
    removed = classify_write(path, "def a():\n    return 1\n")
    assert removed.suggested_tool == "remove_symbol" and commands(removed) == (f"gateway remove-symbol b {path}",)
    added = classify_write(path, "def a():\n    return 1\n\n\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n")
    assert added.suggested_tool == "insert_code"
    assert commands(added) == (f"gateway insert-code a {path} --position after --code-file NEW_CODE_FILE",)


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize(
    "raw",
    ["not json", "[]", '{"tool_input": {}}', '{"tool_name": "Edit", "tool_input": {"file_path": 3}}',
     '{"tool_name": "MultiEdit", "tool_input": {"file_path": "a.py", "edits": "x"}}', '{"tool_name": "Write", "tool_input": "x"}'],
)
def test_malformed_input_fails_closed(project: Path, raw: str) -> None:
    done = hook(None, project, raw=raw)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gateway: ") and done.stderr.count("\n") == 1


def _loaded_after(project: Path, old: str, new: str) -> tuple[str, list[str]]:
    code = (
        "import io, json, sys; from gateway.surfaces.hooks.hosts.claude_code import run;"
        f"out = run(json.dumps({{'tool_name': 'Edit', 'tool_input': {{'file_path': {str(project / 'account.py')!r},"
        f" 'old_string': {old!r}, 'new_string': {new!r}}}}}).encode())[0];"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('multilspy', 'pygls', 'mcp', 'lsprotocol')"
        " or m == 'tree_sitter_language_pack');"
        "print(json.dumps([out, heavy]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=project)
    assert done.returncode == 0, done.stderr
    out, heavy = json.loads(done.stdout)
    return out, heavy


@pytest.mark.usefixtures("processes")
def test_judging_imports_no_server_machinery_and_routing_plans_on_the_workspaces_engine(project: Path) -> None:
    """A write is judged by the gate alone; only a structural one, routed in the hook's own
    process (no daemon), loads the engine the daemon would plan it on, language server and all,
    so the answer is the same with or without a daemon."""
    body = "        return amount // 100"
    out, heavy = _loaded_after(project, body, body.replace("100", "1000"))
    assert (out, heavy) == ("", [])
    out, heavy = _loaded_after(project, DECORATED, "")
    assert "updatedInput" in out and any(m.startswith("multilspy") for m in heavy)
