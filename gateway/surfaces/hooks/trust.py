"""Whether a host will run the gateway's installed hooks in a workspace, read from the records
the host itself keeps (checked against Codex CLI 0.169.0, Copilot CLI 1.0.102, Gemini CLI 0.61.0,
Claude Code 2.1.197; see README "When the host has not trusted the hooks").

- Codex loads a project's `.codex/config.toml` only when `[projects."<root>"] trust_level =
  "trusted"` is in `$CODEX_HOME/config.toml`, and runs a hook only when
  `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash` there equals the hook's hash.
- Copilot reads a folder's hooks and MCP servers only when the folder or a parent is in
  `trustedFolders` (or `trusted_folders`) of `$COPILOT_HOME/config.json`.
- Gemini, with `security.folderTrust.enabled` (the default), loads a project's settings only
  where `~/.gemini/trustedFolders.json` trusts it (the longest matching rule wins).
- Claude Code runs hooks of an interactive session only once its trust dialog was accepted
  (`projects[<dir or a parent>].hasTrustDialogAccepted` in `~/.claude.json`); `-p` skips the check.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

State = Literal["runs", "asks", "off"]


@dataclass(frozen=True)
class HookTrust:
    """`runs`: the hooks run as things stand. `asks`: the host asks the user at start and runs
    them once accepted (its headless mode decides without asking: `detail` says how). `off`: not
    run until the user acts. `mcp_runs`: the host still starts the gateway's MCP server, so the
    session can be told (`notice`)."""

    host: str
    state: State
    detail: str
    mcp_runs: bool = False
    notice: str = ""


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def _read_json(path: Path) -> Any:
    """JSON, or the JSON with `//` comment lines Copilot writes; None when absent or unreadable."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))
    except json.JSONDecodeError:
        return None


def _within(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def _git_root(workspace: Path) -> Path:
    """The directory a host takes as the project: the nearest one holding `.git`, else the workspace."""
    return next((folder for folder in (workspace, *workspace.parents) if (folder / ".git").exists()), workspace)


# Codex


CODEX_START = "Start `codex` in {ws}"


def _codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or _home() / ".codex")


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_hook_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """Codex's trust hash of one command hook (hooks/src/engine/discovery.rs `command_hook_hash`):
    sha256 of the compact, key-sorted JSON of the normalized hook, absent fields left out."""
    hook = {"type": "command", "command": handler.get("command", ""), "timeout": max(1, int(handler.get("timeout", 600))),
            "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        hook["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [hook]}
    if group.get("matcher") is not None:
        identity["matcher"] = group["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def codex_gateway_hooks(source: Path) -> list[tuple[str, str, str]]:
    """(event, key, hash) of each gateway hook in a Codex config file, keyed as Codex keys its trust."""
    found = []
    for event, groups in _read_toml(source).get("hooks", {}).items():
        for group_index, group in enumerate(groups if isinstance(groups, list) else []):
            for handler_index, handler in enumerate(group.get("hooks", [])):
                if " hook codex " in str(handler.get("command", "")):
                    key = f"{source}:{_snake(event)}:{group_index}:{handler_index}"
                    found.append((event, key, codex_hook_hash(event, group, handler)))
    return found


def _codex(workspace: Path, user: bool) -> HookTrust:
    record = _codex_home() / "config.toml"
    settings = _read_toml(record)
    ws = workspace
    if not user:
        # As Codex decides (config_loader `decision_for_dir`): the first of the folder and its project root with a level.
        projects = settings.get("projects", {})
        levels = [projects[key].get("trust_level") for folder in (ws, _git_root(ws)) for key in dict.fromkeys((str(folder.resolve()), str(folder)))
                  if isinstance(projects.get(key), dict) and projects[key].get("trust_level")]
        if levels[:1] != ["trusted"]:
            return HookTrust("codex", "off", (
                f"Codex reads {ws}/.codex/config.toml only in a trusted project, and {record} does not trust {ws}: the gateway's "
                f"hooks and MCP server do not run and edits are NOT judged. {CODEX_START.format(ws=ws)}, choose \"Trust and continue\", "
                "then trust the gateway's hooks when it says \"Hooks need review\" (`codex exec` never asks)"))
    source = record if user else ws / ".codex" / "config.toml"
    states = settings.get("hooks", {}).get("state", {})
    pending = [event for event, key, digest in codex_gateway_hooks(source)
               if states.get(key, {}).get("enabled") is False or states.get(key, {}).get("trusted_hash") != digest]
    if not pending:
        return HookTrust("codex", "runs", f"Codex has trusted the gateway's hooks ({record}): edits are judged", mcp_runs=True)
    names = ", ".join(dict.fromkeys(pending))
    return HookTrust("codex", "off", (
        f"Codex runs a hook only once you trust it, and the gateway's {names} hooks are not trusted (or changed since) in {record}: "
        f"edits are NOT judged until you do. {CODEX_START.format(ws=ws)} and choose \"Trust all and continue\" when it says "
        "\"Hooks need review\", or trust them in /hooks (`codex exec` never asks: it skips them)"), mcp_runs=True, notice=(
        "EDITS ARE NOT JUDGED: Codex has not trusted the gateway's hooks, so a Codex session writes edits without the gate. "
        "Tell the user: start `codex` here and trust them (\"Hooks need review\" or /hooks)."))


# Copilot, Gemini, Claude Code


def _copilot(workspace: Path, user: bool) -> HookTrust:
    if user:
        return HookTrust("copilot", "runs", "Copilot CLI runs hooks of ~/.copilot/settings.json in every folder")
    record = Path(os.environ.get("COPILOT_HOME") or _home() / ".copilot") / "config.json"
    data = _read_json(record)
    listed = [*data.get("trustedFolders", []), *data.get("trusted_folders", [])] if isinstance(data, dict) else []
    if _within(workspace, [Path(folder) for folder in listed if isinstance(folder, str)]):
        return HookTrust("copilot", "runs", f"Copilot CLI trusts {workspace} ({record}): edits are judged")
    return HookTrust("copilot", "asks", (
        f"Copilot CLI loads a folder's hooks and MCP servers only once you trust the folder, and {record} does not trust {workspace}: "
        "until then edits are NOT judged and nothing of the gateway runs to say so. Start `copilot` there and answer \"Yes, and "
        "remember this folder for future sessions\" (`copilot -p` never asks: it skips them silently)"))


def _gemini_rule(workspace: Path, rules: dict[str, Any]) -> str | None:
    """The trust level of the longest rule covering the workspace (TRUST_PARENT covers its rule's parent)."""
    matched = [(len(path), level) for path, level in rules.items()
               if _within(workspace.resolve(), [(Path(path).parent if level == "TRUST_PARENT" else Path(path)).resolve()])]
    return max(matched)[1] if matched else None


def _gemini(workspace: Path, user: bool) -> HookTrust:
    gemini_home = _home() / ".gemini"
    settings = _read_json(gemini_home / "settings.json")
    folder_trust = settings.get("security", {}).get("folderTrust", {}).get("enabled", True) if isinstance(settings, dict) else True
    forced = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if user or folder_trust is False or forced == "true":
        return HookTrust("gemini", "runs", "Gemini CLI runs these hooks without asking for folder trust")
    record = Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home / "trustedFolders.json")
    rules = _read_json(record)
    level = _gemini_rule(workspace, rules) if isinstance(rules, dict) and forced != "false" else None
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return HookTrust("gemini", "runs", f"Gemini CLI trusts {workspace} ({record}): edits are judged")
    why = f"{record} distrusts {workspace}" if level == "DO_NOT_TRUST" else f"{record} does not trust {workspace} yet"
    return HookTrust("gemini", "off" if level == "DO_NOT_TRUST" else "asks", (
        f"Gemini CLI loads a project's hooks and MCP servers only in a trusted folder, and {why}: until then edits are NOT judged "
        "and nothing of the gateway runs to say so. Start `gemini` there and trust the folder when it asks, or with `/permissions trust` "
        "(`gemini -p` never asks: it skips them)"))


def _claude(workspace: Path, user: bool) -> HookTrust:
    record = Path(os.environ.get("CLAUDE_CONFIG_DIR") or _home()) / ".claude.json"
    data = _read_json(record)
    projects = data.get("projects", {}) if isinstance(data, dict) else {}
    accepted = [Path(path) for path, project in projects.items() if isinstance(project, dict) and project.get("hasTrustDialogAccepted")]
    if _within(workspace, accepted):
        return HookTrust("claude-code", "runs", f"Claude Code trusts {workspace} ({record}): edits are judged")
    return HookTrust("claude-code", "asks", (
        f"Claude Code asks whether to trust {workspace} when you start it there, and runs the hooks once you accept "
        "(`claude -p` runs them without asking)"))


def hook_trust(host: str, workspace: Path, user: bool = False) -> HookTrust:
    """Whether `host` will run the gateway's hooks installed for `workspace` (or for the user)."""
    if host == "opencode":
        return HookTrust("opencode", "runs", "OpenCode loads the plugin without a trust step")
    readers = {"codex": _codex, "copilot": _copilot, "gemini": _gemini, "claude-code": _claude}
    return readers[host](workspace.absolute(), user)


def session_notices(workspace: Path) -> list[str]:
    """What a session in `workspace` must be told at its start: the gateway's Codex hooks are
    installed (for the project or the user) but not trusted, while Codex still starts the gateway's
    MCP server. The other hosts load neither hooks nor MCP servers of a folder they do not trust."""
    notices = []
    for user, source in ((False, workspace / ".codex" / "config.toml"), (True, _codex_home() / "config.toml")):
        if codex_gateway_hooks(source):
            found = hook_trust("codex", workspace, user)
            notices += [found.notice] if found.notice and found.notice not in notices else []
    return notices
