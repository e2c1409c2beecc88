"""`gateway hook install|uninstall claude-code`: merge the gateway into a project's Claude Code setup.

`.claude/settings.json` gets the PreToolUse hook, the PostToolUse hook for Bash (which
verifies what a command changed under enforcement) and the approval of the gateway's MCP
server (`enabledMcpjsonServers`); `.mcp.json`, where Claude Code reads project MCP
servers, gets the server itself. Nothing else in either file is touched, and uninstall
removes exactly these entries.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

from gateway.errors import UsageError
from gateway.atomic import write_new_text

SERVER = "gateway"
MATCHERS = {"PreToolUse": "Edit|MultiEdit|Write|NotebookEdit|Bash", "PostToolUse": "Bash"}


def _gateway_program() -> Path:
    """The `gateway` program of this installation (the script beside this Python, or on PATH)."""
    beside = Path(sys.executable).parent / "gateway"
    found = beside if beside.exists() else shutil.which("gateway")
    return Path(found).absolute() if found else Path("gateway")


def _commands(workspace: Path, absolute: bool) -> tuple[str, str, str]:
    """(hook command, MCP server command, a note): `gateway` as PATH finds it at run time, a path
    relative to the project when the installation lives inside it, or, with `absolute`, this
    installation's path. Teams commit these files, so nothing machine-specific by default."""
    program = _gateway_program()
    if absolute:
        return f"{shlex.quote(str(program))} hook claude-code", str(program), ""
    if program.is_absolute() and program.is_relative_to(workspace):
        inside = program.relative_to(workspace).as_posix()
        return f'"$CLAUDE_PROJECT_DIR"/{shlex.quote(inside)} hook claude-code', "${CLAUDE_PROJECT_DIR:-.}/" + inside, ""
    on_path = shutil.which("gateway")
    note = "" if on_path and Path(on_path).absolute() == program else (
        f"; note: `gateway` on PATH is {on_path or 'not found'} here, not {program} (--absolute writes that path)"
    )
    return "gateway hook claude-code", "gateway", note


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}: not valid JSON ({error.msg} at line {error.lineno}); fix it first") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    return data


def _save(path: Path, data: dict[str, Any]) -> None:
    if not data:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_new_text(path, json.dumps(data, indent=2) + "\n")


def _is_ours(entry: Any) -> bool:
    return isinstance(entry, dict) and any(
        isinstance(h, dict) and str(h.get("command", "")).endswith(" hook claude-code") for h in entry.get("hooks", [])
    )


def install(workspace: Path, absolute: bool = False) -> dict[str, Any]:
    hook_command, server_command, note = _commands(workspace, absolute)
    settings_path, mcp_path = workspace / ".claude" / "settings.json", workspace / ".mcp.json"
    settings, mcp = _load(settings_path), _load(mcp_path)
    for event, matcher in MATCHERS.items():
        hooks = settings.setdefault("hooks", {}).setdefault(event, [])
        hooks[:] = [entry for entry in hooks if not _is_ours(entry)]
        hooks.append({"matcher": matcher, "hooks": [{"type": "command", "command": hook_command}]})
    enabled = settings.setdefault("enabledMcpjsonServers", [])
    if SERVER not in enabled:
        enabled.append(SERVER)
    workspace_arg = str(workspace) if absolute else "${CLAUDE_PROJECT_DIR:-.}"
    mcp.setdefault("mcpServers", {})[SERVER] = {"command": server_command, "args": ["mcp", "--workspace", workspace_arg]}
    _save(settings_path, settings)
    _save(mcp_path, mcp)
    return {
        "ok": True,
        "files": [str(settings_path), str(mcp_path)],
        "command": hook_command,
        "message": f"installed the gateway hook ({hook_command}) and MCP server in {workspace}{note}",
    }


def uninstall(workspace: Path) -> dict[str, Any]:
    settings_path, mcp_path = workspace / ".claude" / "settings.json", workspace / ".mcp.json"
    settings, mcp = _load(settings_path), _load(mcp_path)
    hooks = settings.get("hooks", {})
    for event in MATCHERS:
        if isinstance(hooks.get(event), list):
            hooks[event] = [entry for entry in hooks[event] if not _is_ours(entry)]
            if not hooks[event]:
                del hooks[event]
    if hooks == {} and "hooks" in settings:
        del settings["hooks"]
    if isinstance(settings.get("enabledMcpjsonServers"), list):
        settings["enabledMcpjsonServers"] = [name for name in settings["enabledMcpjsonServers"] if name != SERVER]
        if not settings["enabledMcpjsonServers"]:
            del settings["enabledMcpjsonServers"]
    servers = mcp.get("mcpServers", {})
    servers.pop(SERVER, None)
    if servers == {} and "mcpServers" in mcp:
        del mcp["mcpServers"]
    if settings_path.exists():
        _save(settings_path, settings)
    if mcp_path.exists():
        _save(mcp_path, mcp)
    return {"ok": True, "files": [str(settings_path), str(mcp_path)], "message": f"removed the gateway hook and MCP server from {workspace}"}
