"""What each host's user denies of its own edit tools, read as `gateway mcp --host HOST` reads it
at each write: from the host's settings files and the host's command line (given here as the
argv the server would find among its ancestors). The hosts themselves run in
tests/test_hosts_gateway.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.surfaces.hooks import host_denies, registry
from gateway.surfaces.hooks.host_denies import Deny


pytestmark = pytest.mark.workspace(copy=None, files={"src/": ""})


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's home at `tmp_path/home`, and no host setting from this process's environment."""
    home = tmp_path / "home"
    home.mkdir()
    for variable in ("CLAUDE_CONFIG_DIR", "OPENCODE_CONFIG", "OPENCODE_CONFIG_CONTENT", "OPENCODE_PERMISSION", "OPENCODE_CONFIG_DIR",
                     "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    return home


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


def denied(host: str, workspace: Path, relative: str | None, argv: tuple[str, ...] = ()) -> list[str]:
    """The sources of the rules that deny a write to `relative` (None: files not known before the write)."""
    rules: list[Deny] = registry.hosts()[host].denies(workspace, [host, *argv] if argv else [])
    paths = None if relative is None else [workspace / relative]
    return [rule.source for rule in rules if rule.denies(paths)]


def test_claude_code_deny_rules_whole_and_by_path(workspace: Path) -> None:
    settings = workspace / ".claude" / "settings.json"
    assert denied("claude-code", workspace, "src/a.py") == []
    _write(settings, {"permissions": {"deny": ["Bash(rm:*)", "Read(.env)"]}})
    assert denied("claude-code", workspace, "src/a.py") == []
    _write(settings, {"permissions": {"deny": ["Edit", "Write"]}})
    assert denied("claude-code", workspace, "lib/a.py") == [f"Edit in permissions.deny of {settings}", f"Write in permissions.deny of {settings}"]
    _write(settings, {"permissions": {"deny": ["Edit(src/**)"]}})
    assert denied("claude-code", workspace, "src/deep/a.py") and denied("claude-code", workspace, "src/a.py")
    assert denied("claude-code", workspace, "lib/a.py") == [] and denied("claude-code", workspace, "lib/src/a.py") == []
    assert denied("claude-code", workspace, None)  # a rename may write under src/
    _write(settings, {"permissions": {"deny": ["Edit(*.env)", "Write(/config/)"]}})
    assert denied("claude-code", workspace, "a/b/prod.env") and denied("claude-code", workspace, "config/x.toml")
    assert denied("claude-code", workspace, "a/config/x.toml") == [] and denied("claude-code", workspace, "a.py") == []


def test_claude_code_user_local_and_command_line_rules(workspace: Path, tmp_path: Path) -> None:
    _write(tmp_path / "home" / ".claude" / "settings.json", {"permissions": {"deny": ["Write"]}})
    assert denied("claude-code", workspace, "a.py") == [f"Write in permissions.deny of {tmp_path}/home/.claude/settings.json"]
    (tmp_path / "home" / ".claude" / "settings.json").unlink()
    _write(workspace / ".claude" / "settings.local.json", {"permissions": {"deny": ["MultiEdit(src/**)"]}})
    assert denied("claude-code", workspace, "src/a.py") and not denied("claude-code", workspace, "a.py")
    assert denied("claude-code", workspace, "a.py", ("-p", "x", "--disallowedTools", "Bash", "Edit")) == ["Edit in --disallowedTools"]
    assert denied("claude-code", workspace, "a.py", ("--disallowed-tools=Bash,Write(a.py)",)) == ["Write(a.py) in --disallowedTools"]
    assert denied("claude-code", workspace, "a.py", ("--permission-mode", "plan")) == ["--permission-mode plan"]
    assert denied("claude-code", workspace, "a.py", ("--settings", '{"permissions": {"deny": ["Edit"]}}')) == ["Edit in permissions.deny of --settings"]
    assert denied("claude-code", workspace, "a.py", ("--permission-mode", "bypassPermissions", "--allowedTools", "Edit")) == []


def test_opencode_permission_edit(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = workspace / "opencode.json"
    _write(config, {"permission": {"bash": "deny", "edit": "allow"}})
    assert denied("opencode", workspace, "src/a.py") == []
    _write(config, '{\n  // the user\'s own\n  "permission": {"edit": "deny",},\n}\n')  # JSONC
    assert denied("opencode", workspace, "src/a.py")
    _write(config, {"permission": {"edit": "ask"}})
    assert denied("opencode", workspace, "src/a.py")  # the gateway's tools cannot ask
    _write(config, {"permission": {"edit": {"*": "allow", "src/*": "deny"}}})
    assert denied("opencode", workspace, "src/x/a.py") and not denied("opencode", workspace, "lib/a.py")
    assert denied("opencode", workspace, None)
    _write(config, {"permission": {"edit": {"src/*": "deny", "*": "allow"}}})  # the last match wins
    assert not denied("opencode", workspace, "src/a.py") and not denied("opencode", workspace, None)
    _write(config, {"permission": "deny"})
    assert denied("opencode", workspace, "a.py")
    _write(config, {"agent": {"build": {"permission": {"edit": "deny"}}, "plan": {}}})
    assert denied("opencode", workspace, "a.py") and not denied("opencode", workspace, "a.py", ("run", "--agent", "other"))
    config.unlink()
    _write(tmp_path / "home" / ".config" / "opencode" / "opencode.json", {"tools": {"write": False}})
    assert denied("opencode", workspace, "a.py") and denied("opencode", workspace, "a.py")[0].startswith("tools.write false")
    (tmp_path / "home" / ".config" / "opencode" / "opencode.json").unlink()
    monkeypatch.setenv("OPENCODE_PERMISSION", '{"edit": "deny"}')
    assert denied("opencode", workspace, "a.py") == ['permission.edit "deny" in OPENCODE_PERMISSION; the gateway\'s tools cannot ask']


def test_gemini_excluded_tools_and_plan_mode(workspace: Path, tmp_path: Path) -> None:
    settings = workspace / ".gemini" / "settings.json"
    assert denied("gemini", workspace, "a.py", ("--yolo",)) == []
    _write(settings, {"tools": {"exclude": ["run_shell_command"]}})
    assert denied("gemini", workspace, "a.py") == []
    _write(settings, {"tools": {"exclude": ["replace"]}})
    assert denied("gemini", workspace, "a.py") == [f"replace in tools.exclude of {settings}"]
    _write(tmp_path / "home" / ".gemini" / "settings.json", {"excludeTools": ["write_file"]})
    assert len(denied("gemini", workspace, "a.py")) == 2
    settings.unlink()
    (tmp_path / "home" / ".gemini" / "settings.json").unlink()
    assert denied("gemini", workspace, "a.py", ("--approval-mode", "plan")) == ["--approval-mode plan"]
    assert denied("gemini", workspace, "a.py", ("--approval-mode=plan",)) == ["--approval-mode plan"]
    _write(settings, {"general": {"defaultApprovalMode": "plan"}})
    assert denied("gemini", workspace, "a.py") and not denied("gemini", workspace, "a.py", ("--approval-mode", "yolo"))
    _write(settings, {"tools": {"core": ["read_file", "glob"]}})
    assert denied("gemini", workspace, "a.py")


def test_copilot_deny_tool(workspace: Path) -> None:
    assert denied("copilot", workspace, "a.py", ("-p", "x", "--allow-all-tools")) == []
    assert denied("copilot", workspace, "a.py", ("--deny-tool", "shell(rm)")) == []
    assert denied("copilot", workspace, "a.py", ("--allow-all-tools", "--deny-tool", "write")) == ["--deny-tool write"]
    assert denied("copilot", workspace, "a.py", ("--deny-tool=shell(git:*),write",)) == ["--deny-tool write"]
    assert denied("copilot", workspace, "x/.env", ("--deny-tool", "write(.env)")) and not denied("copilot", workspace, "a.py", ("--deny-tool", "write(.env)"))
    absolute = f"write({workspace}/src)"
    assert denied("copilot", workspace, "src/a.py", ("--deny-tool", absolute)) and not denied("copilot", workspace, "a.py", ("--deny-tool", absolute))
    assert denied("copilot", workspace, "a.py", ("--excluded-tools", "edit", "create")) == ["--excluded-tools create", "--excluded-tools edit"]
    assert denied("copilot", workspace, "a.py", ("--available-tools", "view", "bash")) == ["--available-tools leaves out edit and create"]


def test_codex_read_only_sandbox(workspace: Path, tmp_path: Path) -> None:
    assert denied("codex", workspace, "a.py", ("exec", "--dangerously-bypass-approvals-and-sandbox", "x")) == []
    assert denied("codex", workspace, "a.py", ("exec", "-s", "workspace-write", "x")) == []
    assert denied("codex", workspace, "a.py", ("exec", "--full-auto", "x")) == []
    assert denied("codex", workspace, "a.py", ("exec", "x")) == ["the read-only sandbox, codex exec's default"]
    assert denied("codex", workspace, "a.py", ("exec", "--sandbox", "read-only", "x")) == ["the read-only sandbox, --sandbox read-only"]
    assert denied("codex", workspace, "a.py", ("-c", 'sandbox_mode="read-only"', "exec", "--full-auto", "x")) == [
        "the read-only sandbox, -c sandbox_mode"]
    config = tmp_path / "home" / ".codex" / "config.toml"
    _write(config, 'sandbox_mode = "read-only"\n')
    assert denied("codex", workspace, "a.py", ("exec", "x")) == [f"the read-only sandbox, sandbox_mode in {config}"]
    _write(config, 'sandbox_mode = "read-only"\nprofile = "w"\n[profiles.w]\nsandbox_mode = "workspace-write"\n')
    assert denied("codex", workspace, "a.py", ("exec", "x")) == []
    _write(config, f'[projects."{workspace}"]\ntrust_level = "trusted"\n')
    assert denied("codex", workspace, "a.py", ("resume",)) == []  # interactive in a trusted project: workspace-write
    assert denied("codex", workspace, "a.py") == ["the read-only sandbox, Codex's default (its command line could not be read)"]


def test_refusal_names_the_rule_and_what_to_do(workspace: Path) -> None:
    _write(workspace / ".claude" / "settings.json", {"permissions": {"deny": ["Edit(src/**)"]}})
    reason = host_denies.refusal("claude-code", workspace, [workspace / "src" / "a.py"])
    assert reason is not None and "\n" not in reason
    assert reason.startswith("claude-code's own edit tools are denied for this file (Edit(src/**) in permissions.deny of ")
    assert reason.endswith("so the gateway's MCP tools do not write it either; ask the user")
    assert host_denies.refusal("claude-code", workspace, [workspace / "lib.py"]) is None
