"""`gateway hook install|uninstall HOST` for every host: merged into existing settings,
idempotent, refused when the host could not run it, and undone byte for byte."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("processes")

HOSTS = ("claude-code", "copilot", "gemini", "codex", "opencode")
VENV_BIN = str(Path(sys.executable).parent)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def gateway(*args: str, home: Path, path: str = f"{VENV_BIN}:{SYSTEM_PATH}", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": path, "HOME": str(home), "CODEX_HOME": str(home / ".codex"), "COPILOT_HOME": str(home / ".copilot"),
           "XDG_CONFIG_HOME": str(home / ".config")}
    return subprocess.run([sys.executable, "-m", "gateway", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def snapshot(*roots: Path) -> dict[str, bytes]:
    return {str(p): p.read_bytes() for root in roots for p in sorted(root.rglob("*")) if p.is_file()}


# Settings a user already has, in each host's files: the install must keep every byte of them.
EXISTING = {
    ".claude/settings.json": '{\n  "permissions": {"allow": ["Bash(pytest:*)"]},\n  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "audit-bash"}]}]}\n}\n',
    ".mcp.json": '{"mcpServers": {"other": {"command": "other-mcp"}}}',
    ".gemini/settings.json": '{"ui": {"theme": "dark"}, "mcpServers": {"other": {"command": "x"}}}\n',
    ".codex/config.toml": 'model = "o3"\n\n[mcp_servers.other]\ncommand = "other"\n',
    "opencode.json": '{"$schema": "https://opencode.ai/config.json", "model": "a/b"}\n',
    ".github/mcp.json": '{"mcpServers": {}}\n',
}


@pytest.mark.parametrize("host", HOSTS)
def test_install_merges_is_idempotent_and_uninstall_restores_every_byte(tmp_path: Path, host: str) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    for name, text in EXISTING.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    before = snapshot(workspace, home)
    first = gateway("hook", "install", host, "--workspace", str(workspace), "--json", home=home)
    assert first.returncode == 0, first.stderr
    installed = snapshot(workspace, home)
    assert installed != before
    assert gateway("hook", "install", host, "--workspace", str(workspace), home=home).returncode == 0
    assert snapshot(workspace, home) == installed  # idempotent
    text = "\n".join(data.decode() for data in installed.values())
    assert f"hook {host}" in text and str(workspace) not in text  # nothing machine-specific
    for name in EXISTING:  # the user's own entries are all still there
        path = workspace / name
        if name.endswith(".json"):
            assert _contains(json.loads(path.read_text()), json.loads(EXISTING[name]))
        else:
            assert _contains(tomllib.loads(path.read_text()), tomllib.loads(EXISTING[name]))
    done = gateway("hook", "uninstall", host, "--workspace", str(workspace), home=home)
    assert done.returncode == 0, done.stderr
    assert snapshot(workspace, home) == before


def _contains(big: object, small: object) -> bool:
    if isinstance(small, dict):
        return isinstance(big, dict) and all(k in big and _contains(big[k], v) for k, v in small.items())
    if isinstance(small, list):
        return isinstance(big, list) and all(any(_contains(b, s) for b in big) for s in small)
    return big == small


@pytest.mark.parametrize("host", HOSTS)
def test_install_into_nothing_and_uninstall_leaves_nothing(tmp_path: Path, host: str) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    for scope in ((), ("--user",)):
        assert gateway("hook", "install", host, *scope, "--workspace", str(workspace), home=home).returncode == 0
        assert snapshot(workspace, home)
        assert gateway("hook", "uninstall", host, *scope, "--workspace", str(workspace), home=home).returncode == 0
        assert snapshot(workspace, home) == {}
    assert [p for p in workspace.rglob("*") if p.is_file()] == []


@pytest.mark.parametrize("host", HOSTS)
def test_user_install_writes_the_users_configuration_only(tmp_path: Path, host: str) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    assert gateway("hook", "install", host, "--user", "--workspace", str(workspace), home=home).returncode == 0
    assert snapshot(workspace) == {} and snapshot(home)


@pytest.mark.parametrize("host", HOSTS)
def test_install_refuses_when_gateway_is_not_on_path_and_absolute_pins_it(tmp_path: Path, host: str) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    refused = gateway("hook", "install", host, "--workspace", str(workspace), home=home, path=SYSTEM_PATH)
    assert refused.returncode != 0 and "not on PATH" in refused.stderr and "--absolute" in refused.stderr
    assert refused.stderr.count("\n") == 1 and snapshot(workspace, home) == {}
    pinned = gateway("hook", "install", host, "--absolute", "--workspace", str(workspace), home=home, path=SYSTEM_PATH)
    assert pinned.returncode == 0, pinned.stderr
    assert f"{VENV_BIN}/gateway" in "\n".join(data.decode() for data in snapshot(workspace).values())


def _installed_commands(workspace: Path) -> list[str]:
    text = "\n".join(p.read_text() for p in workspace.rglob("*") if p.is_file())
    found = []
    for line in text.splitlines():
        if " hook " in line and "gateway" in line and "pre" in line and ("command" in line or "bash" in line):
            value = line.split(":", 1)[1] if line.strip().startswith('"') else line.split("=", 1)[1]
            found.append(json.loads(value.strip().rstrip(",")))
    return found


@pytest.mark.parametrize("host", ["claude-code", "copilot", "gemini", "codex"])
@pytest.mark.parametrize("absolute", [False, True])
def test_the_installed_command_fails_closed_when_the_gateway_is_gone(tmp_path: Path, host: str, absolute: bool) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    options = ("--absolute",) if absolute else ()
    assert gateway("hook", "install", host, *options, "--workspace", str(workspace), home=home).returncode == 0
    [command] = _installed_commands(workspace)
    payload = json.dumps({"tool_name": "Edit", "toolName": "edit", "tool_input": {}, "cwd": str(workspace)})
    env = {"PATH": SYSTEM_PATH, "HOME": str(home), "CLAUDE_PROJECT_DIR": str(workspace)}
    if absolute:  # the installation itself has gone
        command = command.replace(f"{VENV_BIN}/gateway", f"{tmp_path}/gone/gateway")
    done = subprocess.run(["sh", "-c", command], input=payload, capture_output=True, text=True, env=env, cwd=workspace, timeout=30)
    assert done.returncode == 2 and "not found" in done.stderr and done.stderr.count("\n") == 1


def test_allow_mcp_adds_the_hosts_permission_entries(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(), home.mkdir()
    assert gateway("hook", "install", "claude-code", "--allow-mcp", "--workspace", str(workspace), home=home).returncode == 0
    assert "mcp__gateway" in json.loads((workspace / ".claude" / "settings.json").read_text())["permissions"]["allow"]
    assert gateway("hook", "install", "gemini", "--allow-mcp", "--workspace", str(workspace), home=home).returncode == 0
    assert json.loads((workspace / ".gemini" / "settings.json").read_text())["mcpServers"]["gateway"]["trust"] is True
    assert gateway("hook", "install", "codex", "--allow-mcp", "--workspace", str(workspace), home=home).returncode == 0
    codex = tomllib.loads((workspace / ".codex" / "config.toml").read_text())
    assert codex["mcp_servers"]["gateway"]["default_tools_approval_mode"] == "approve"
    refused = gateway("hook", "install", "copilot", "--allow-mcp", "--workspace", str(workspace), home=home)
    assert refused.returncode == 1 and "--allow-tool" in refused.stderr


def test_hook_help_lists_every_host_install_and_uninstall(tmp_path: Path) -> None:
    done = gateway("hook", "--help", home=tmp_path)
    assert done.returncode == 0
    assert all(word in done.stdout for word in ("gateway hook install HOST", "gateway hook uninstall HOST", "--absolute", "--user", "--allow-mcp", *HOSTS))


@pytest.mark.parametrize("where", ["project", "user"])
def test_gemini_install_keeps_the_users_hooks_off_and_says_so(tmp_path: Path, where: str) -> None:
    """`hooksConfig.enabled: false` (the project's, or the user's, which a project `true` would
    override) stays false, and the install says plainly that the hooks will not run."""
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    settings = (workspace if where == "project" else home) / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"hooksConfig": {"enabled": false}, "ui": {"theme": "dark"}}\n')
    done = gateway("hook", "install", "gemini", "--workspace", str(workspace), home=home)
    assert done.returncode == 0, done.stderr
    assert f"hooksConfig.enabled is false in {settings} and stays so" in done.stdout, done.stdout
    assert "will not run the gateway's hooks" in done.stdout
    for path in (workspace / ".gemini" / "settings.json", home / ".gemini" / "settings.json"):
        data = json.loads(path.read_text()) if path.exists() else {}
        assert data.get("hooksConfig", {}).get("enabled") is not True, (path, data)
    installed = json.loads((workspace / ".gemini" / "settings.json").read_text())
    assert "BeforeTool" in installed["hooks"]  # registered all the same, for when the user turns hooks on


def test_gemini_install_turns_hooks_on_where_nobody_turned_them_off(tmp_path: Path) -> None:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    done = gateway("hook", "install", "gemini", "--workspace", str(workspace), home=home)
    assert done.returncode == 0 and "stays so" not in done.stdout
    assert json.loads((workspace / ".gemini" / "settings.json").read_text())["hooksConfig"]["enabled"] is True
