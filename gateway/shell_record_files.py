"""How the shell check's records (gateway.shell_record) are stored: in the workspace's user state,
`shell-watch/`, a small head per record (the command's, or `index.json`, the last one taken:
the next command's stat cache) naming the body that holds its files (`files-<sha256>.json`,
named by its own digest). A body is written only when the files it holds are new: a command
that changes nothing writes its head alone, and one that changes a file writes one body, which
the command before it and the index then share. A body no head names is removed when a new
one is written. Records are notes, not enforcement: not signed, not fsynced (one lost in a crash
means a command not checked, which its PostToolUse says, or every file read again).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.atomic import sha256
from gateway.snapshot import FileState, Mark
from gateway.statcache import StatCache, read_stated
from gateway.userstate import private_file
from gateway.workspace import exclusive

INDEX = "index.json"
BODY = "files-{}.json"
LOCK = "records.lock"
_BODY_NAME = re.compile(r"files-[0-9a-f]{64}\.json")


@dataclass(frozen=True)
class Seen:
    """One file as recorded: its state (mode, SHA-256 of the kept bytes; UNREAD when too large)
    and the stat it had when read: (size, mtime_ns, ctime_ns, inode)."""

    state: FileState
    stat: tuple[int, int, int, int]

    def to_json(self) -> list[Any]:
        return [self.state.mode, self.state.sha256, *self.stat]

    @classmethod
    def from_json(cls, value: list[Any]) -> Seen:
        return cls(FileState(int(value[0]), str(value[1])), (int(value[2]), int(value[3]), int(value[4]), int(value[5])))


@dataclass
class Record:
    """The source files at `taken_ns`; `setting`: `[gate] shell` when it was taken (what the
    command finds in the config afterwards does not decide: it may have changed it); `mark`:
    the workspace watch's moment the files hold at, in this process only (never saved); `body`:
    the body it was read from or saved to ("" for none yet, or a record of an earlier version);
    `looked`: see below."""

    files: dict[str, Seen]
    taken_ns: int
    setting: str = ""
    mark: Mark | None = field(default=None, compare=False)
    body: str = field(default="", compare=False)
    looked: AbstractSet[str] | None = field(default=None, compare=False)
    """The paths a watched scan looked at again (every other file's Seen is the known record's
    own object), in this process only; None: every path was."""


_entries: dict[str, tuple[Seen, str]] = {}  # path -> (the Seen last saved, its JSON entry)
_last_body: dict[str, tuple[dict[str, Seen], str, bytes]] = {}  # "last": the files last saved, their body's name and bytes


def _body(files: dict[str, Seen]) -> tuple[str, bytes]:
    """The name and bytes of the body holding `files`; each file's entry made once while its Seen
    is the same (a record takes most of them from the one before it)."""
    last = _last_body.get("last")
    if last is not None and last[0] == files:  # the same Seen objects: compared by identity first
        return last[1], last[2]
    parts = []
    for path, seen in files.items():
        found = _entries.get(path)
        if found is None or found[0] is not seen:
            found = _entries[path] = (seen, f"{json.dumps(path)}:{json.dumps(seen.to_json(), separators=(',', ':'))}")
        parts.append(found[1])
    if len(_entries) > 2 * len(files) + 1000:  # paths gone since: kept no longer
        for path in _entries.keys() - files.keys():
            _entries.pop(path, None)
    data = ("{" + ",".join(parts) + "}").encode()
    name = BODY.format(sha256(data))
    _last_body["last"] = (dict(files), name, data)
    return name, data


def safe(path: str) -> bool:
    """A relative path inside the workspace, as the listing gives them (a record is state anyone
    of the user could write: it never names a file elsewhere)."""
    return bool(path) and not path.startswith("/") and "\\" not in path and "\0" not in path and ".." not in path.split("/")


_records: StatCache[Record] = StatCache()
_bodies: StatCache[dict[str, Seen]] = StatCache()


def _files(value: dict[str, Any]) -> dict[str, Seen]:
    return {p: Seen.from_json(v) for p, v in value.items() if safe(p)}


def _body_files(path: Path) -> dict[str, Seen]:
    cached = _bodies.get(path)
    if cached is not None:
        return cached
    raw, info = read_stated(path)
    files = _files(json.loads(raw))
    _bodies.put(path, files, info=info)
    return files


def load(path: Path) -> Record | None:
    """The record in `path` (parsed once while the file and its body are unchanged; callers do not
    change it); None when there is none, or it does not read."""
    cached = _records.get(path)
    if cached is not None and (not cached.body or _bodies.get(path.with_name(cached.body)) is cached.files):
        return cached
    try:
        raw, info = read_stated(path)
        data = json.loads(raw)
        if "body" in data:
            body = str(data["body"])
            if not _BODY_NAME.fullmatch(body):
                return None
            record = Record(_body_files(path.with_name(body)), int(data["taken_ns"]), str(data.get("setting", "")), body=body)
        else:  # a record of an earlier version, files and all
            record = Record(_files(data["files"]), int(data["taken_ns"]), str(data.get("setting", "")))
        _records.put(path, record, info=info)
        return record
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, IndexError, AttributeError):
        return None  # unreadable: taken again, every file read


def skipped(path: Path) -> str | None:
    """Why the command `path` records was not recorded (too many files), if it was not."""
    try:
        if path.stat().st_size >= 4096:
            return None
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    reason = data.get("skipped") if isinstance(data, dict) else None
    return str(reason) if reason is not None else None


def save(record: Record, *paths: Path, key: str = "") -> None:
    """`record` in each of `paths` (of one directory): its body, unless one holds its files, and a
    head naming it in each; the index (a stat cache) is not written again while it names the same
    body (an older `taken_ns` there only trusts fewer stats)."""
    directory = paths[0].parent
    name, data = _body(record.files)
    record.body = name
    with exclusive(directory / LOCK):  # a body is named by its head before any other save removes it
        written = False
        if _bodies.get(directory / name) is None and not (directory / name).exists():
            private_file(directory / name, data, durable=False)
            written = True
        _bodies.put(directory / name, record.files)
        head = json.dumps({"key": key, "taken_ns": record.taken_ns, "setting": record.setting, "body": name}).encode()
        for path in paths:
            if path.name == INDEX and (saved := load(path)) is not None and saved.body == name:
                _records.put(path, record)
                continue
            private_file(path, head, durable=False)
            _records.put(path, record)
        if written:
            _remove_unnamed(directory)


def _remove_unnamed(directory: Path) -> None:
    """Remove the bodies no head names (call under the lock)."""
    named, bodies = set(), []
    for entry in os.scandir(directory):
        if _BODY_NAME.fullmatch(entry.name):
            bodies.append(entry)
        elif entry.name.endswith(".json"):
            found = load(Path(entry.path))
            named.add(found.body if found is not None else "")
    for entry in bodies:
        if entry.name not in named:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)


def is_body(name: str) -> bool:
    return _BODY_NAME.fullmatch(name) is not None
