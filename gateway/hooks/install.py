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


def _gateway_program() -> str:
    beside = Path(sys.executable).parent / "gateway"
    return str(beside) if beside.exists() else shutil.which("gateway") or "gateway"


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


def install(workspace: Path) -> dict[str, Any]:
    program = _gateway_program()
    settings_path, mcp_path = workspace / ".claude" / "settings.json", workspace / ".mcp.json"
    settings, mcp = _load(settings_path), _load(mcp_path)
    for event, matcher in MATCHERS.items():
        hooks = settings.setdefault("hooks", {}).setdefault(event, [])
        if not any(_is_ours(entry) for entry in hooks):
            hooks.append({"matcher": matcher, "hooks": [{"type": "command", "command": f"{shlex.quote(program)} hook claude-code"}]})
    enabled = settings.setdefault("enabledMcpjsonServers", [])
    if SERVER not in enabled:
        enabled.append(SERVER)
    mcp.setdefault("mcpServers", {})[SERVER] = {"command": program, "args": ["mcp", "--workspace", str(workspace)]}
    _save(settings_path, settings)
    _save(mcp_path, mcp)
    return {"ok": True, "files": [str(settings_path), str(mcp_path)], "message": f"installed the gateway hook and MCP server in {workspace}"}


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
