"""Where each host reads hooks and MCP servers, and the gateway's entries in those files.

A `ConfigFile` says how to add the gateway's entries to a file's text and how to take them
out again; `install` does the rest. Each host's module says which files it has (`Host.config_files`). JSON files are merged as data; Codex's TOML gets one
delimited block (TOML has no writer in the standard library, and a block comes out exactly).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.errors import UsageError
from gateway.surfaces.hooks import registry

SERVER = "gateway"
HOOK_TIMEOUT_SECONDS = 120
MCP_STARTUP_SECONDS = 60


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
    return "gateway" in text and any(f" hook {host}" in text for host in registry.names())


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


def hook_entries(entries: dict[str, dict[str, Any]]) -> JsonEntries:
    """One entry appended to each `hooks.<Event>` list (the shape of Claude Code, Gemini and Copilot)."""

    def merge(data: dict[str, Any]) -> None:
        hooks = data.setdefault("hooks", {})
        for event, entry in entries.items():
            hooks.setdefault(event, []).append(entry)

    return JsonEntries(merge, _strip_hooks)


def matched(matcher: str | None, hook: dict[str, Any]) -> dict[str, Any]:
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


def keyed(path_keys: tuple[str, ...], value: Any) -> JsonEntries:
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


def listed(key: tuple[str, ...], item: str) -> JsonEntries:
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


def all_of(*parts: JsonEntries) -> JsonEntries:
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


def flag(key: tuple[str, ...], value: Any) -> JsonEntries:
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


def mcp_server(commands: Commands, workspace_arg: str, **extra: Any) -> dict[str, Any]:
    return {"command": commands.mcp, "args": commands.mcp_args(workspace_arg), **extra}


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def config_files(host: str, workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    """The files `gateway hook install HOST` writes: its module's (`hooks.registry`)."""
    found = registry.host(host)
    if found is None:
        raise UsageError(f"unknown host {host!r} (one of {', '.join(registry.names())})")
    return found.config_files(workspace, user, commands, allow_mcp)
