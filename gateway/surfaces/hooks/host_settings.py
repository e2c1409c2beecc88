"""Reading what a host was told by its user: its settings files (JSON, or JSON with comments and
trailing commas, as Gemini CLI and OpenCode accept) and the command line it was started with.

Both are read as they are at the time of the call; a file that is absent or cannot be parsed
says nothing (the host itself refuses to start on a broken settings file)."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

MAX_SETTINGS_BYTES = 1 << 20
# A string literal (kept as it is), then what is dropped: a // or /* */ comment, or a comma
# before a closing bracket (once the comments are gone).
_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'"(?:\\.|[^"\\])*"|,(?=\s*[]}])')


def _dropped(match: re.Match[str]) -> str:
    return match.group(0) if match.group(0).startswith('"') else ""


def jsonc(text: str) -> Any:
    """The value of a JSON text that may have comments and trailing commas (ValueError if it is not one)."""
    return json.loads(_TRAILING_COMMA.sub(_dropped, _COMMENT.sub(_dropped, text)))


def _text(path: Path) -> str | None:
    try:
        if not path.is_file() or path.stat().st_size > MAX_SETTINGS_BYTES:
            return None
        return path.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def json_settings(path: Path) -> dict[str, Any]:
    """A JSON (or JSONC) settings file's object; empty when it is absent or not an object."""
    text = _text(path)
    try:
        data = jsonc(text) if text is not None else {}
    except (ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def toml_settings(path: Path) -> dict[str, Any]:
    text = _text(path)
    try:
        return tomllib.loads(text) if text is not None else {}
    except tomllib.TOMLDecodeError:
        return {}


def home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2:].split()  # the name, in parentheses, may hold spaces
    return int(fields[1]) if len(fields) > 1 else None


def _argv(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode("utf-8", "replace") for part in raw.split(b"\0") if part]


def host_process(names: dict[str, tuple[str, ...]], depth: int = 6) -> tuple[str, list[str]] | None:
    """(host, command line) of the nearest ancestor process that is a host: its program, or
    the script node runs, is named (or lies in a directory named) one of the host's `names`;
    None where none is found or /proc cannot be read (macOS)."""
    pid: int | None = os.getppid()
    for _ in range(depth):
        if pid is None or pid <= 1:
            return None
        argv = _argv(pid)
        words = {part.removesuffix(".js") for word in argv[:2] for part in Path(word).parts[-3:]}
        for host, known in names.items():
            if words & set(known):
                return host, argv
        pid = _parent_of(pid)
    return None


def flag_values(argv: list[str], flags: tuple[str, ...], many: bool = False) -> list[str]:
    """The values given to `flags` in a command line: `--flag VALUE`, `--flag=VALUE` and, for a
    flag that takes `many`, its further words (`--flag A B`) up to the next option."""
    values: list[str] = []
    taking = 0
    for word in argv[1:]:
        name, equals, value = word.partition("=")
        if word.startswith("-") and name in flags:
            values += [value] if equals else []
            taking = 0 if equals else -1 if many else 1
        elif word.startswith("-") or taking == 0:
            taking = 0
        else:
            values.append(word)
            taking -= 1 if taking > 0 else 0
    return values


def table(data: dict[str, Any], key: str) -> dict[str, Any]:
    """data[key] when it is a table (an object), else an empty one."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}
