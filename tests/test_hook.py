"""`gateway hook claude-code` fed Claude Code-shaped payloads, and the settings installer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.gate.checker import Gate, read_text
from gateway.gate.verdict import Classification
from tests.gate_cases import PYTHON

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
    """What the host does with the tool input: each old_string must occur exactly once."""
    if tool == "Write":
        return str(updated["content"])
    edits = [updated] if tool == "Edit" else list(updated["edits"])  # type: ignore[arg-type]
    for edit in edits:
        assert text.count(edit["old_string"]) == 1, edit  # type: ignore[index]
        text = text.replace(edit["old_string"], edit["new_string"])  # type: ignore[index]
    return text


def test_edit_structural_is_denied_when_routing_is_off(project: Path) -> None:
    deny_mode(project)
    reason = _denied(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": str(project / "account.py"), "old_string": DECORATED, "new_string": "", "replace_all": False}}, project))
    assert "remove_symbol" in reason and "gateway remove-symbol Account/fee" in reason and "route=true" in reason


@pytest.mark.parametrize(("mode", "decision"), [(None, "ask"), ("default", "ask"), ("acceptEdits", "allow"), ("bypassPermissions", "allow")])
def test_edit_structural_is_routed_as_the_hosts_own_edit(project: Path, mode: str | None, decision: str) -> None:
    payload = {"tool_name": "Edit", "cwd": str(project), "tool_input": {"file_path": "account.py", "old_string": DECORATED, "new_string": ""}}
    if mode:
        payload["permission_mode"] = mode
    output = routed(hook(payload, project))
    assert output["permissionDecision"] == decision
    assert "remove_symbol `Account/fee`" in str(output["additionalContext"])
    assert applied_by_host(PYTHON.source, "Edit", output["updatedInput"]) == PYTHON.source.replace(DECORATED, "")  # type: ignore[arg-type]
    assert (project / "account.py").read_text() == PYTHON.source  # the host writes, not the hook


def test_edit_relative_to_payload_cwd(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    output = routed(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": "account.py", "old_string": DECORATED, "new_string": ""}}, elsewhere))
    assert "Account/fee" in str(output["additionalContext"])


def test_unroutable_edit_is_denied_with_the_reason(project: Path) -> None:
    reason = _denied(hook({"tool_name": "Edit", "cwd": str(project), "tool_input": {
        "file_path": "account.py", "old_string": DECORATED, "new_string": "    def fee(amount:\n        return ("}}, project))
    assert "Not routed:" in reason and "syntax error" in reason


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


def test_multi_edit_judges_each_edit_on_the_edited_text(project: Path) -> None:
    payload = {"tool_name": "MultiEdit", "cwd": str(project), "tool_input": {"file_path": "account.py", "edits": [
        {"old_string": "self.balance = 0", "new_string": "self.balance = 1"},
        {"old_string": "self.balance = 1", "new_string": "self.balance = 1\n\n    def deposit(self, amount):\n        self.balance += amount"},
    ]}}
    output = routed(hook(payload, project))
    assert "insert_code after `Account/__init__`" in str(output["additionalContext"])
    expected = PYTHON.source.replace("self.balance = 0", "self.balance = 1\n\n    def deposit(self, amount):\n        self.balance += amount")
    assert applied_by_host(PYTHON.source, "MultiEdit", output["updatedInput"]) == expected  # type: ignore[arg-type]
    deny_mode(project)
    reason = _denied(hook(payload, project))
    assert "adds method `Account/deposit`" in reason and "insert_code" in reason
    payload["tool_input"]["edits"] = payload["tool_input"]["edits"][:1]  # type: ignore[index]
    assert hook(payload, project).stdout == ""


def test_write_over_a_definition_is_routed(project: Path) -> None:
    content = PYTHON.source.replace("    def fee(amount):\n        return amount // 100", "    def fee(amount, rate):\n        return amount // rate")
    payload = {"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": content}}
    output = routed(hook(payload, project))
    assert "replace_symbol `Account/fee`" in str(output["additionalContext"])
    assert applied_by_host(PYTHON.source, "Write", output["updatedInput"]) == content  # type: ignore[arg-type]
    deny_mode(project)
    reason = _denied(hook(payload, project))
    assert reason.startswith("Blocked: this whole-file write to") and "changes the header of method `Account/fee`" in reason
    body_only = PYTHON.source.replace("return amount // 100", "return amount // 10").replace("return inner()", "return inner() + 1")
    assert hook({"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": body_only}}, project).stdout == ""
    unchanged_definitions = PYTHON.source.replace('CLASS_NAMES = ["class", "def"]', 'CLASS_NAMES = ["class"]')
    allowed = hook({"tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "account.py", "content": unchanged_definitions}}, project)
    assert allowed.stdout == ""


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
    assert removed.suggested_tool == "remove_symbol" and removed.commands == (f"gateway remove-symbol b {path}",)
    added = classify_write(path, "def a():\n    return 1\n\n\ndef c():\n    return 3\n\n\ndef b():\n    return 2\n")
    assert added.suggested_tool == "insert_code"
    assert added.commands == (f"gateway insert-code a {path} --position after --code-file NEW_CODE_FILE",)


@pytest.mark.parametrize(
    "raw",
    ["not json", "[]", '{"tool_input": {}}', '{"tool_name": "Edit", "tool_input": {"file_path": 3}}',
     '{"tool_name": "MultiEdit", "tool_input": {"file_path": "a.py", "edits": "x"}}', '{"tool_name": "Write", "tool_input": "x"}'],
)
def test_malformed_input_fails_closed(project: Path, raw: str) -> None:
    done = hook(None, project, raw=raw)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("gateway: ") and done.stderr.count("\n") == 1


def test_install_merges_and_uninstall_removes_exactly(tmp_path: Path) -> None:
    settings = tmp_path / ".claude" / "settings.json"
    settings.parent.mkdir()
    existing = {
        "permissions": {"allow": ["Bash(pytest:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}]},
        "enabledMcpjsonServers": ["other"],
    }
    settings.write_text(json.dumps(existing, indent=2) + "\n")
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "other-mcp"}}}))
    run = ["-m", "gateway", "hook", "install", "claude-code", "--workspace", str(tmp_path)]
    for _ in range(2):  # idempotent
        assert subprocess.run([sys.executable, *run], capture_output=True, timeout=60).returncode == 0
    merged = json.loads(settings.read_text())
    assert merged["permissions"] == existing["permissions"]
    assert merged["enabledMcpjsonServers"] == ["other", "gateway"]
    entries = merged["hooks"]["PreToolUse"]
    assert len(entries) == 2 and entries[0] == existing["hooks"]["PreToolUse"][0]
    assert entries[1]["matcher"] == "Edit|MultiEdit|Write|NotebookEdit|Bash" and entries[1]["hooks"][0]["command"].endswith(" hook claude-code")
    after = merged["hooks"]["PostToolUse"]  # enforcement verified after every shell command
    assert len(after) == 1 and after[0]["matcher"] == "Bash" and after[0]["hooks"][0]["command"].endswith(" hook claude-code")
    assert entries[1]["hooks"][0]["command"] == "gateway hook claude-code"  # resolved on PATH at run time: nothing machine-specific
    servers = json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]
    assert servers["gateway"] == {"command": "gateway", "args": ["mcp", "--workspace", "${CLAUDE_PROJECT_DIR:-.}"]} and "other" in servers
    assert str(tmp_path) not in settings.read_text() + (tmp_path / ".mcp.json").read_text()
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "uninstall", "claude-code", "--workspace", str(tmp_path)],
                          capture_output=True, timeout=60)
    assert done.returncode == 0
    assert json.loads(settings.read_text()) == existing
    assert json.loads((tmp_path / ".mcp.json").read_text()) == {"mcpServers": {"other": {"command": "other-mcp"}}}


def test_install_absolute_pins_this_installation_and_a_reinstall_replaces_it(tmp_path: Path) -> None:
    run = [sys.executable, "-m", "gateway", "hook", "install", "claude-code", "--workspace", str(tmp_path)]
    subprocess.run([*run, "--absolute"], check=True, capture_output=True, timeout=60)
    program = Path(sys.executable).parent / "gateway"
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    assert [h["hooks"][0]["command"] for h in hooks] == [f"{program} hook claude-code"]
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["gateway"] == {
        "command": str(program), "args": ["mcp", "--workspace", str(tmp_path)]}
    subprocess.run(run, check=True, capture_output=True, timeout=60)
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    assert [h["hooks"][0]["command"] for h in hooks] == ["gateway hook claude-code"]


def test_install_inside_the_project_writes_a_path_relative_to_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.hooks import install

    monkeypatch.setattr(install, "_gateway_program", lambda: tmp_path / ".venv" / "bin" / "gateway")
    install.install(tmp_path)
    hooks = json.loads((tmp_path / ".claude" / "settings.json").read_text())["hooks"]["PreToolUse"]
    assert hooks[0]["hooks"][0]["command"] == '"$CLAUDE_PROJECT_DIR"/.venv/bin/gateway hook claude-code'
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["gateway"]["command"] == "${CLAUDE_PROJECT_DIR:-.}/.venv/bin/gateway"


def test_hook_help_lists_install_and_uninstall() -> None:
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    assert "gateway hook install claude-code" in done.stdout and "gateway hook uninstall claude-code" in done.stdout
    assert "--absolute" in done.stdout


def test_install_into_empty_project_and_uninstall_leaves_nothing(tmp_path: Path) -> None:
    for action in ("install", "uninstall"):
        subprocess.run([sys.executable, "-m", "gateway", "hook", action, "claude-code", "--workspace", str(tmp_path)], check=True, timeout=60)
    assert not (tmp_path / ".claude" / "settings.json").exists() and not (tmp_path / ".mcp.json").exists()


def test_hook_path_imports_no_server_machinery(project: Path) -> None:
    code = (
        "import io, json, sys; from gateway.hooks.claude_code import run;"
        f"run(json.dumps({{'tool_name': 'Edit', 'tool_input': {{'file_path': {str(project / 'account.py')!r},"
        f" 'old_string': {DECORATED!r}, 'new_string': ''}}}}).encode());"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('multilspy', 'pygls', 'mcp', 'lsprotocol')"
        " or m == 'tree_sitter_language_pack');"
        "print(json.dumps(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []
