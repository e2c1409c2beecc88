"""Whether a host will run the gateway's installed hooks in a workspace, read from the records
the host itself keeps: each host's module reads its own (`Host.trust`; checked against Codex
CLI 0.169.0, Copilot CLI 1.0.102, Gemini CLI 0.61.0, Claude Code 2.1.197; see docs/hosts.md "When the
host has not trusted the hooks"). What they share is here."""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from gateway.errors import UsageError
from gateway.surfaces.hooks import registry

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


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return {}


def read_json(path: Path) -> Any:
    """JSON, or the JSON with `//` comment lines Copilot writes; None when absent or unreadable."""
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return json.loads("\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//")))
    except json.JSONDecodeError:
        return None


def within(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def git_root(workspace: Path) -> Path:
    """The directory a host takes as the project: the nearest one holding `.git`, else the workspace."""
    return next((folder for folder in (workspace, *workspace.parents) if (folder / ".git").exists()), workspace)


def hook_trust(host: str, workspace: Path, user: bool = False) -> HookTrust:
    """Whether `host` will run the gateway's hooks installed for `workspace` (or for the user):
    its module's reading of its own records (`hooks.registry`)."""
    found = registry.host(host)
    if found is None:
        raise UsageError(f"unknown host {host!r} (one of {', '.join(registry.names())})")
    return found.trust(workspace.absolute(), user)


def session_notices(workspace: Path) -> list[str]:
    """What a session in `workspace` must be told at its start: a host that still starts the
    gateway's MCP server while it does not run its installed hooks says so (Codex); the other
    hosts load neither hooks nor MCP servers of a folder they do not trust."""
    notices: list[str] = []
    for host in registry.hosts().values():
        if host.notices is not None:
            notices += [notice for notice in host.notices(workspace) if notice not in notices]
    return notices
