"""Reading a host's hook payload: its text and path fields checked (one clear line for what
is wrong), its working directory, and the tool and event of the payloads shaped
`{hook_event_name, tool_name}` (Claude Code, Gemini CLI, Codex CLI)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from gateway.errors import UsageError
from gateway.hostcalls import checked_text

MAX_PATH = 4096


def text_of(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"tool_input.{field} must be a string")
    return checked_text(value, f"tool_input.{field}")


def path_text(value: Any, field: str) -> str:
    text = text_of(value, field)
    if not text or "\x00" in text or len(text.encode()) > MAX_PATH:
        raise UsageError(f"{field} must be a path of 1 to {MAX_PATH} bytes without NUL")
    return text


def named_tool(payload: dict[str, Any], event: str | None, post_event: str) -> tuple[str, Literal["pre", "post"]] | None:
    """(tool name, "pre" or "post") of a payload shaped {hook_event_name, tool_name}; None at a
    session's start, which only warms the daemon."""
    tool, name = payload.get("tool_name"), payload.get("hook_event_name")
    if name == "SessionStart" or event == "start":
        return None
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with tool_name")
    return tool, "post" if name == post_event or event == "post" else "pre"


def cwd_of(payload: dict[str, Any], context: dict[str, str | None], field: str = "cwd") -> Path:
    given = payload.get(field)
    if given is not None:
        return Path(path_text(given, field))
    return Path(context.get("cwd") or os.getcwd())


def path_in(cwd: Path, value: Any, field: str) -> Path:
    path = Path(path_text(value, field))
    return path if path.is_absolute() else cwd / path
