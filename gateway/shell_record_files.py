"""How the shell check's records (gateway.shell_record) are stored: in the workspace's user state,
`shell-watch/`, a small head per record (the command's, or `index.json`, the last one taken:
the next command's stat cache) naming the bodies that hold its files (`files-<sha256>.json`,
each named by its own digest). The files are split between bodies by a hash of their path
(`buckets`: about CHUNK_FILES files each), so that a command that changes one file writes the
one body that holds it (about 20 KB on 10,000 files, not the 1.5 MB of them all), and the
command before it and the index share the others. A command that changes nothing writes its
head alone. A body no head names is removed when a new one is written. Records are notes, not
enforcement: not signed, not fsynced (one lost in a crash means a command not checked, which
its PostToolUse says, or every file read again).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.shell_record_bodies import MAX_BUCKETS, Seen, split
from gateway.snapshot import Mark
from gateway.statcache import StatCache, read_stated
from gateway.userstate import private_file
from gateway.workspace import exclusive

INDEX = "index.json"
LOCK = "records.lock"
_BODY_NAME = re.compile(r"files-[0-9a-f]{64}\.json")


@dataclass
class Record:
    """The source files at `taken_ns`; `setting`: `[gate] shell` when it was taken (what the
    command finds in the config afterwards does not decide: it may have changed it); `mark`:
    the workspace watch's moment the files hold at, in this process only (never saved);
    `bodies`: the bodies it was read from or saved to (none yet, or a record of an earlier
    version: ())."""

    files: dict[str, Seen]
    taken_ns: int
    setting: str = ""
    mark: Mark | None = field(default=None, compare=False)
    bodies: tuple[str, ...] = field(default=(), compare=False)


def safe(path: str) -> bool:
    """A relative path inside the workspace, as the listing gives them (a record is state anyone
    of the user could write: it never names a file elsewhere)."""
    return bool(path) and not path.startswith("/") and "\\" not in path and "\0" not in path and ".." not in path.split("/")


_records: StatCache[Record] = StatCache()
_bodies: StatCache[dict[str, Seen]] = StatCache(4 * MAX_BUCKETS)


def _files(value: dict[str, Any]) -> dict[str, Seen]:
    return {p: Seen.from_json(v) for p, v in value.items() if safe(p)}


def _body_files(path: Path) -> dict[str, Seen]:
    cached = _bodies.get(os.fspath(path))
    if cached is not None:
        return cached
    raw, info = read_stated(path)
    files = _files(json.loads(raw))
    _bodies.put(os.fspath(path), files, info=info)
    return files


def load(path: Path) -> Record | None:
    """The record in `path` (parsed once while the file and its bodies are unchanged; callers do
    not change it); None when there is none, or it does not read."""
    cached = _records.get(path)
    directory = os.fspath(path.parent)
    if cached is not None and all(_bodies.get(f"{directory}/{body}") is not None for body in set(cached.bodies)):
        return cached
    try:
        raw, info = read_stated(path)
        data = json.loads(raw)
        if "bodies" in data or "body" in data:  # "body": one body, as an earlier version wrote
            bodies = tuple(str(name) for name in data["bodies"]) if "bodies" in data else (str(data["body"]),)
            if not all(_BODY_NAME.fullmatch(name) for name in bodies):
                return None
            files: dict[str, Seen] = {}
            for body in bodies:
                files.update(_body_files(path.with_name(body)))
            record = Record(files, int(data["taken_ns"]), str(data.get("setting", "")), bodies=bodies)
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
    """`record` in each of `paths` (of one directory): the bodies no earlier record wrote, and a
    head naming them in each; the index (a stat cache) is not written again while it names the
    same bodies (an older `taken_ns` there only trusts fewer stats)."""
    directory = paths[0].parent
    bodies = split(record.files)
    record.bodies = tuple(bodies.names)
    with exclusive(directory / LOCK):  # a body is named by its head before any other save removes it
        written = False
        for name, data, files in zip(bodies.names, bodies.data, bodies.parts):
            body = f"{os.fspath(directory)}/{name}"  # a string: a path made for each body costs more than its stat
            if _bodies.get(body) is None:
                if not os.path.exists(body):
                    private_file(directory / name, data, durable=False)
                    written = True
                _bodies.put(body, files)
        head = json.dumps({"key": key, "taken_ns": record.taken_ns, "setting": record.setting, "bodies": record.bodies}).encode()
        for path in paths:
            if path.name == INDEX and (saved := load(path)) is not None and saved.bodies == record.bodies:
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
            named.update(found.bodies if found is not None else ())
    for entry in bodies:
        if entry.name not in named:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(entry.path)


def is_body(name: str) -> bool:
    return _BODY_NAME.fullmatch(name) is not None
