"""Where each host reads hooks and MCP servers, and the gateway's entries in those files.

A `ConfigFile` says how to add the gateway's entries to a file's text and how to take them
out again; `install` does the rest. JSON files are merged as data; Codex's TOML gets one
delimited block (TOML has no writer in the standard library, and a block comes out exactly).
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.errors import UsageError
from gateway.surfaces.hooks.host_settings import json_settings

SERVER = "gateway"
HOSTS = ("claude-code", "copilot", "gemini", "codex", "opencode")
CLAUDE_MATCHERS = {"PreToolUse": "Edit|MultiEdit|Write|NotebookEdit|Bash", "PostToolUse": "Edit|MultiEdit|Write|Bash"}
GEMINI_MATCHER = "replace|write_file|run_shell_command"
CODEX_MATCHER = "apply_patch|Bash"
HOOK_TIMEOUT_SECONDS = 120
MCP_STARTUP_SECONDS = 60
BLOCK_START = "# >>> gateway: added by `gateway hook install codex`; `gateway hook uninstall codex` removes this block"
BLOCK_END = "# <<< gateway"


@dataclass(frozen=True)
class Commands:
    """The commands a host is given: the hook per event ("pre", "post", "start", "stop") and the
    MCP server's (`mcp_writes`: with its write tools)."""

    host: str
    program: str
    hook: dict[str, str]
    mcp_command: str | None = None
    mcp_writes: bool = False

    @property
    def mcp(self) -> str:
        return self.mcp_command or self.program.strip("'")

    def mcp_args(self, workspace_arg: str) -> list[str]:
        """The MCP server's arguments: told its host, whose user's denies its writes obey."""
        return ["mcp", "--workspace", workspace_arg, "--host", self.host, *(["--writes"] if self.mcp_writes else [])]


@dataclass(frozen=True)
class ConfigFile:
    """`add`: the file's text with the gateway's entries (from its text, None when absent);
    `remove`: the text without them (None: nothing left); `bare`: what is left to compare once
    the gateway's entries and settings are gone (two texts with equal `bare` differ only by the
    gateway)."""

    path: Path
    add: Callable[[str | None], str]
    remove: Callable[[str], str | None]
    bare: Callable[[str | None], object]
    note: str = ""


@dataclass(frozen=True)
class JsonEntries:
    """A JSON file's gateway entries: `merge` puts them into the data, `strip` takes them out."""

    merge: Callable[[dict[str, Any]], None]
    strip: Callable[[dict[str, Any]], None]
    settings: Callable[[dict[str, Any]], None] = lambda data: None


def _load(path: Path, text: str | None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}: not valid JSON ({error.msg} at line {error.lineno}); fix it first") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    return data


def json_file(path: Path, entries: JsonEntries, note: str = "") -> ConfigFile:
    def add(text: str | None) -> str:
        data = _load(path, text)
        entries.strip(data)
        entries.merge(data)
        if text is not None and data == _load(path, text):
            return text  # installed already: not a byte changes
        return json.dumps(data, indent=2) + "\n"

    def remove(text: str) -> str | None:
        data = _load(path, text)
        entries.strip(data)
        return json.dumps(data, indent=2) + "\n" if data else None

    def bare(text: str | None) -> object:
        data = _load(path, text)
        entries.strip(data)
        entries.settings(data)
        return data

    return ConfigFile(path, add, remove, bare, note)


def whole_file(path: Path, content: str, note: str = "") -> ConfigFile:
    """A file that is the gateway's alone (a plugin, a hooks file)."""
    return ConfigFile(path, lambda text: content, lambda text: None, lambda text: None, note)


def _ours(value: Any) -> bool:
    """A hook entry the gateway wrote (any host's form, any version's)."""
    text = json.dumps(value)
    return "gateway" in text and any(f" hook {host}" in text for host in HOSTS)


def _strip_hooks(data: dict[str, Any]) -> None:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return
    for event in list(hooks):
        if isinstance(hooks[event], list):
            hooks[event] = [entry for entry in hooks[event] if not _ours(entry)]
            if not hooks[event]:
                del hooks[event]
    if not hooks:
        del data["hooks"]


def _hooks(entries: dict[str, dict[str, Any]]) -> JsonEntries:
    """One entry appended to each `hooks.<Event>` list (the shape of Claude Code, Gemini and Copilot)."""

    def merge(data: dict[str, Any]) -> None:
        hooks = data.setdefault("hooks", {})
        for event, entry in entries.items():
            hooks.setdefault(event, []).append(entry)

    return JsonEntries(merge, _strip_hooks)


def _matched(matcher: str | None, hook: dict[str, Any]) -> dict[str, Any]:
    return {"hooks": [hook]} if matcher is None else {"matcher": matcher, "hooks": [hook]}


def _parent(data: dict[str, Any], keys: tuple[str, ...], create: bool) -> dict[str, Any] | None:
    """The object holding data[k1]...[kn] (made on the way when `create`); None if it is not there."""
    node = data
    for key in keys[:-1]:
        child = node.setdefault(key, {}) if create else node.get(key)
        if not isinstance(child, dict):
            return None
        node = child
    return node


def _prune(data: dict[str, Any], keys: tuple[str, ...]) -> None:
    """Remove the objects along data[k1]...[kn-1] that are left empty, innermost first."""
    for depth in range(len(keys) - 1, 0, -1):
        parent = _parent(data, keys[:depth], False)
        if parent is not None and parent.get(keys[depth - 1]) == {}:
            del parent[keys[depth - 1]]


def _keyed(path_keys: tuple[str, ...], value: Any) -> JsonEntries:
    """data[k1][k2]...[SERVER] = value (an MCP server's entry)."""
    keys = (*path_keys, SERVER)

    def merge(data: dict[str, Any]) -> None:
        node = _parent(data, keys, True)
        assert node is not None
        node[SERVER] = value

    def strip(data: dict[str, Any]) -> None:
        node = _parent(data, keys, False)
        if node is not None:
            node.pop(SERVER, None)
            _prune(data, keys)

    return JsonEntries(merge, strip)


def _listed(key: tuple[str, ...], item: str) -> JsonEntries:
    """`item` in the list data[k1]...[kn] (an approval)."""

    def merge(data: dict[str, Any]) -> None:
        node = _parent(data, key, True)
        assert node is not None
        items = node.setdefault(key[-1], [])
        if item not in items:
            items.append(item)

    def strip(data: dict[str, Any]) -> None:
        node = _parent(data, key, False)
        items = node.get(key[-1]) if node is not None else None
        if node is not None and isinstance(items, list) and item in items:
            items.remove(item)
            if not items:
                del node[key[-1]]
            _prune(data, (*key[:-1], ""))

    return JsonEntries(merge, strip)


def _all(*parts: JsonEntries) -> JsonEntries:
    def merge(data: dict[str, Any]) -> None:
        for part in parts:
            part.merge(data)

    def strip(data: dict[str, Any]) -> None:
        for part in parts:
            part.strip(data)

    def settings(data: dict[str, Any]) -> None:
        for part in parts:
            part.settings(data)

    return JsonEntries(merge, strip, settings)


def _flag(key: tuple[str, ...], value: Any) -> JsonEntries:
    """data[k1]...[kn] = value: a setting the user may have had already, so uninstall leaves it
    (the original bytes come back when nothing else changed)."""

    def merge(data: dict[str, Any]) -> None:
        node = _parent(data, key, True)
        assert node is not None
        node[key[-1]] = value

    def settings(data: dict[str, Any]) -> None:
        node = _parent(data, key, False)
        if node is not None:
            node.pop(key[-1], None)
            _prune(data, key)

    return JsonEntries(merge, lambda data: None, settings)


def _mcp_server(commands: Commands, workspace_arg: str, **extra: Any) -> dict[str, Any]:
    return {"command": commands.mcp, "args": commands.mcp_args(workspace_arg), **extra}


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _claude(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    settings = (_home() / ".claude" if user else workspace / ".claude") / "settings.json"
    events = {"PreToolUse": ("pre", CLAUDE_MATCHERS["PreToolUse"]), "PostToolUse": ("post", CLAUDE_MATCHERS["PostToolUse"]),
              "SessionStart": ("start", None), "Stop": ("stop", None)}
    parts = [_hooks({event: _matched(matcher, {"type": "command", "command": commands.hook.get(kind, ""), "timeout": HOOK_TIMEOUT_SECONDS})
                     for event, (kind, matcher) in events.items()})]
    if not user:
        parts.append(_listed(("enabledMcpjsonServers",), SERVER))
    if allow_mcp:
        parts.append(_listed(("permissions", "allow"), f"mcp__{SERVER}"))
    server = _mcp_server(commands, "${CLAUDE_PROJECT_DIR:-.}")
    mcp_path = _home() / ".claude.json" if user else workspace / ".mcp.json"
    return [json_file(settings, _all(*parts)), json_file(mcp_path, _keyed(("mcpServers",), server))]


def _copilot_home() -> Path:
    return Path(os.environ.get("COPILOT_HOME") or _home() / ".copilot")


def _copilot(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    if allow_mcp:
        raise UsageError("Copilot CLI takes tool permissions on its command line: run it with --allow-tool gateway")
    hooks = {name: {"type": "command", "bash": commands.hook.get(event, ""), "cwd": ".", "timeoutSec": HOOK_TIMEOUT_SECONDS}
             for name, event in (("preToolUse", "pre"), ("postToolUse", "post"), ("sessionStart", "start"), ("sessionEnd", "stop"))}
    server = _mcp_server(commands, ".")
    if user:
        home = _copilot_home()
        return [json_file(home / "settings.json", _hooks(hooks)), json_file(home / "mcp-config.json", _keyed(("mcpServers",), server))]
    note = "Copilot CLI runs project hooks only in a trusted folder"
    return [whole_file(workspace / ".github" / "hooks" / "gateway.json", json.dumps({"version": 1, "hooks": {name: [hook] for name, hook in hooks.items()}}, indent=2) + "\n", note),
            json_file(workspace / ".github" / "mcp.json", _keyed(("mcpServers",), server))]


def _gemini(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    settings = (_home() / ".gemini" if user else workspace / ".gemini") / "settings.json"
    events = {"BeforeTool": ("pre", GEMINI_MATCHER), "AfterTool": ("post", GEMINI_MATCHER), "SessionStart": ("start", None),
              "SessionEnd": ("stop", None)}
    hooks = _hooks({event: _matched(matcher, {"type": "command", "name": SERVER, "command": commands.hook.get(kind, ""),
                                              "timeout": HOOK_TIMEOUT_SECONDS * 1000})
                    for event, (kind, matcher) in events.items()})
    server = _mcp_server(commands, ".", **({"trust": True} if allow_mcp else {}))
    notes = [] if user else ["Gemini CLI runs project hooks only in a trusted folder"]
    turned_off = [path for path in _gemini_settings(workspace, user) if _hooks_turned_off(path)]
    if turned_off:  # the user's choice stands: said plainly, never flipped
        notes.append(f"hooksConfig.enabled is false in {turned_off[0]} and stays so: Gemini CLI will not run the gateway's hooks, "
                     "and will write edits unjudged, until you set it to true")
    enabled = [] if turned_off else [_flag(("hooksConfig", "enabled"), True)]
    return [json_file(settings, _all(hooks, *enabled, _keyed(("mcpServers",), server)), "; ".join(notes))]


def _gemini_settings(workspace: Path, user: bool) -> list[Path]:
    """The settings files whose `hooksConfig.enabled` holds for this install: the system's (it
    overrides), the project's (for a project install) and the user's (a project's `true` would
    override the user's `false`)."""
    system = Path(os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")
    return [system, *([] if user else [workspace / ".gemini" / "settings.json"]), _home() / ".gemini" / "settings.json"]


def _hooks_turned_off(path: Path) -> bool:
    hooks = json_settings(path).get("hooksConfig")
    return isinstance(hooks, dict) and hooks.get("enabled") is False


def _toml_string(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def _codex_block(commands: Commands, allow_mcp: bool, user: bool) -> str:
    lines = [BLOCK_START]
    for event, kind, matcher in (("PreToolUse", "pre", CODEX_MATCHER), ("PostToolUse", "post", CODEX_MATCHER), ("SessionStart", "start", None),
                                 ("Stop", "stop", None)):
        lines.append(f"[[hooks.{event}]]")
        if matcher:
            lines.append(f"matcher = {_toml_string(matcher)}")
        lines += [f"[[hooks.{event}.hooks]]", 'type = "command"', f"command = {_toml_string(commands.hook.get(kind, ''))}",
                  f"timeout = {HOOK_TIMEOUT_SECONDS}"]
    lines += [f"[mcp_servers.{SERVER}]", f"command = {_toml_string(commands.mcp)}", f"args = {json.dumps(commands.mcp_args('.'))}"]
    if not user:  # Codex then waits for the server before the first request, so its instructions (a
        # notice when the hooks are not trusted) reach the session's start; a missing gateway stops it
        lines += ["required = true", f"startup_timeout_sec = {MCP_STARTUP_SECONDS}"]
    if allow_mcp:
        lines.append('default_tools_approval_mode = "approve"')
    return "\n".join([*lines, BLOCK_END]) + "\n"


def _without_block(text: str) -> str:
    start = text.find(BLOCK_START)
    if start < 0:
        return text
    end = text.find(BLOCK_END + "\n", start)
    return text[:start] + (text[end + len(BLOCK_END) + 1:] if end >= 0 else "")


def _codex(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    path = (Path(os.environ.get("CODEX_HOME") or _home() / ".codex") if user else workspace / ".codex") / "config.toml"

    def add(text: str | None) -> str:
        base = _without_block(text or "")
        merged = base + ("\n" if base and not base.endswith("\n") else "") + _codex_block(commands, allow_mcp, user)
        try:
            if SERVER in tomllib.loads(base).get("mcp_servers", {}):
                raise UsageError(f"{path}: already has [mcp_servers.{SERVER}]; remove it first")
            tomllib.loads(merged)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(f"{path}: the gateway's hooks cannot be added to it ({error}); add them by hand") from None
        return merged

    def remove(text: str) -> str | None:
        return _without_block(text) or None

    def bare(text: str | None) -> object:
        try:
            return tomllib.loads(_without_block(text or ""))
        except tomllib.TOMLDecodeError:
            return text

    return [ConfigFile(path, add, remove, bare)]


def _opencode(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    base = Path(os.environ.get("XDG_CONFIG_HOME") or _home() / ".config") / "opencode" if user else workspace / ".opencode"
    plugin = (Path(__file__).parent / "opencode_plugin.js").read_text("utf-8").replace("__GATEWAY_PROGRAM__", commands.mcp)
    config = (base if user else workspace) / "opencode.json"
    server = {"type": "local", "command": [commands.mcp, *commands.mcp_args(".")], "enabled": True}
    note = "OpenCode allows MCP tools without asking unless its permission settings say otherwise" if allow_mcp else ""
    return [whole_file(base / "plugins" / "gateway.js", plugin), json_file(config, _keyed(("mcp",), server), note)]


CONFIGS: dict[str, Callable[[Path, bool, Commands, bool], list[ConfigFile]]] = {
    "claude-code": _claude, "copilot": _copilot, "gemini": _gemini, "codex": _codex, "opencode": _opencode,
}


def config_files(host: str, workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    return CONFIGS[host](workspace, user, commands, allow_mcp)
