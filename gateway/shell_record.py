"""A workspace's source files recorded before a shell command and compared after it (`[gate]
shell`), cheaply enough to run around every command.

It is the enforcement snapshot (gateway.snapshot: its listing, its content-addressed store of
kept bytes in the workspace's user state, its file states), bounded:
- only files the gate judges by their name (a language with a symbol backend claims the
  extension or file name), at most `MAX_SOURCES` of them, each at most `[gate]
  max_file_bytes` (a larger one is recorded by its stat alone, and never judged);
- a file is read again only when its stat (size, mtime, ctime, inode) differs from the one it
  had when last read, or when it changed within `RACY_NS` of that reading (git's "racily
  clean" rule: a write in the same clock tick leaves the stat as it was).
So what is kept outside the workspace is one copy of each source file's bytes by digest,
shared by every record and dropped a day after none names it; a command costs a listing and
a stat per source file, plus reading the files that changed. The records themselves are stored
by gateway.shell_record_files (a body of files written only when they changed).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from gateway.errors import GatewayError
from gateway.snapshot import RACY_NS, FileState, previous_bytes
from gateway.snapshot_delta import apart, made_from, touched_since
from gateway.snapshot_paths import Stats, listed, lstat_at, opened_directory, read_file
from gateway.snapshot_store import keep, prune_objects
from gateway.typed.state import objects_dir, state_dir
from gateway.userstate import private_file
from gateway.shell_record_bodies import Seen
from gateway.shell_record_files import INDEX, Record, is_body, load, save, skipped
from gateway.watcher import look

MAX_SOURCES = 20_000
MAX_WALKED = 50_000
KEEP_RECORD_NS = 24 * 3600 * 10**9
RECORDS = "shell-watch"
PRUNE_EVERY_NS = 3600 * 10**9
UNREAD = ""  # the digest of a file too large to be read (known by its stat alone)


class TooManySources(GatewayError):
    pass


@dataclass(frozen=True)
class FileChange:
    """A source file a command created (before None), deleted (after None) or changed."""

    path: str
    before: Seen | None
    after: Seen | None

    @property
    def what(self) -> str:
        return "created" if self.before is None else "deleted" if self.after is None else "changed"


def _directory(root: Path) -> Path:
    directory = state_dir(root) / RECORDS
    directory.mkdir(exist_ok=True, mode=0o700)
    return directory


def _record_file(root: Path, key: str) -> Path:
    return _directory(root) / f"{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


def _in_git(root: Path) -> bool:
    return any((directory / ".git").exists() for directory in (root, *root.parents))


def _walked(root: Path) -> set[str]:
    """Every file under `root` but `.git/` and the gateway's state, as the snapshot lists a
    directory outside git; TooManySources past MAX_WALKED files (a home directory)."""
    found: set[str] = set()
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if d != ".git" and not (d == "state" and directory.endswith(".gateway"))]
        relative = os.path.relpath(directory, root)
        found.update(name if relative == "." else f"{relative}/{name}" for name in names)
        if len(found) > MAX_WALKED:
            raise TooManySources(f"{root} is not a git repository and holds more than {MAX_WALKED} files")
    return found


_last_sources: dict[str, tuple[frozenset[str], Callable[[str], bool], set[str]]] = {}


def sources(root: Path, judged: Callable[[str], bool], listing: AbstractSet[str] | None = None) -> set[str]:
    """The workspace's source files: those the snapshot lists (git's tracked and not-ignored
    files; outside git, every file, at most MAX_WALKED; `listing`: `listed(root)` when the
    caller has it) whose name the gate judges. TooManySources past the bounds."""
    if listing is None:
        listing = listed(root) if _in_git(root) else _walked(root)
    last = _last_sources.get("last")
    if last is not None and last[0] is listing and last[1] is judged:
        found = last[2]  # the watch's listing, unchanged since (callers do not change it)
    else:
        found = {p for p in listing if judged(p)}
        if isinstance(listing, frozenset):
            _last_sources["last"] = (listing, judged, found)
    if len(found) > MAX_SOURCES:
        raise TooManySources(f"the workspace has {len(found)} source files, more than the {MAX_SOURCES} a shell command is checked over")
    return found


def scan(root: Path, judged: Callable[[str], bool], max_bytes: int, known: Record | None, keep_known: bool = False) -> Record:
    """Every source file (and, with `keep_known`, every path of `known`) as it is now, read only
    where its stat says it may differ from `known` (where the workspace is watched, only those
    with an event since `known`'s mark are stat-ed, and the listing is not compared whole with
    `known`: gateway.snapshot_delta); the bytes of each file read are kept in the objects directory."""
    taken, objects, files = time.time_ns(), objects_dir(root), {}
    trusted_before = known.taken_ns - RACY_NS if known is not None else 0
    previous = known.files if known is not None else {}
    seen = look(root, previous.keys(), known.mark if known is not None else None) if _in_git(root) else None
    listing, stats = (seen.listing, seen.stats) if seen is not None else (None, {})
    changed = seen.changed if seen is not None else None
    found = sources(root, judged, listing)
    if changed is not None and previous:  # the watch names what may differ: the others are taken again as they were, unlooked at
        gap = apart(found, previous)
        gone = frozenset() if keep_known else gap.unlisted
        paths: AbstractSet[str] = {*gap.unheld, *(p for p in changed if p in found or (keep_known and p in previous))}
        files = dict(previous)
        for path in (*gone, *paths):
            files.pop(path, None)
    else:
        paths = found | previous.keys() if keep_known else found
    _take(root, objects, paths, previous, stats, trusted_before, max_bytes, files)
    if changed is not None and previous:
        made_from(files, previous, {*gone, *paths})
    return Record(files, taken, mark=seen.mark if seen is not None else None)


def _take(root: Path, objects: Path, paths: AbstractSet[str], previous: dict[str, Seen], stats: Stats, trusted_before: int,
          max_bytes: int, files: dict[str, Seen]) -> None:
    """Into `files`, each of `paths` that is a regular file: its `previous` Seen where its stat
    is the one it had when read (and not within RACY_NS of that), else read (and kept)."""
    with opened_directory(root) as root_fd:
        for path in paths:
            old = previous.get(path)
            info = stats[path] if path in stats else lstat_at(root_fd, path)
            if info is None or not stat.S_ISREG(info.st_mode):
                continue
            key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)
            if old is not None and old.stat == key and info.st_ctime_ns < trusted_before:
                files[path] = old
            elif info.st_size > max_bytes:
                files[path] = Seen(FileState(stat.S_IMODE(info.st_mode), UNREAD), key)
            else:
                read = read_file(root, path)
                if read is not None:
                    files[path] = Seen(FileState(stat.S_IMODE(read[1].st_mode), keep(objects, read[0])), key)


def record_before(root: Path, key: str, judged: Callable[[str], bool], max_bytes: int, setting: str) -> None:
    """Record the source files before the command `key` runs (the last record as the stat cache)."""
    index = _directory(root) / INDEX
    try:
        record = scan(root, judged, max_bytes, load(index))
    except TooManySources as error:
        private_file(_record_file(root, key), json.dumps({"key": key, "skipped": str(error)}).encode(), durable=False)
        return
    record.setting = setting
    save(record, _record_file(root, key), index, key=key)


def recorded(root: Path, key: str) -> bool:
    return _record_file(root, key).exists()


def changes_after(root: Path, key: str, judged: Callable[[str], bool], max_bytes: int) -> tuple[list[FileChange], str] | None:
    """The source files the command `key` created, deleted or changed since its record (taken
    now and kept as the next command's stat cache), and the record's setting; None when there
    is no record of it."""
    path = _record_file(root, key)
    reason = skipped(path)
    if reason is not None:
        path.unlink(missing_ok=True)
        raise TooManySources(reason)
    before = load(path)
    if before is None:
        return None
    now = scan(root, judged, max_bytes, before, keep_known=True)
    index = _directory(root) / INDEX
    save(now, index)
    path.unlink(missing_ok=True)
    _prune(root, now)
    changes = []
    touched = touched_since(now.files, before.files)  # the others hold `before`'s Seen
    if touched is None:
        differ = {p for p in now.files if before.files.get(p) is not now.files[p]} | (before.files.keys() - now.files.keys())
    else:
        differ = {p for p in touched if before.files.get(p) is not now.files.get(p)}
    for name in sorted(differ):
        old, new = before.files.get(name), now.files.get(name)
        if old is None or new is None or old.state.sha256 != new.state.sha256 or (old.state.sha256 == UNREAD and old.stat != new.stat):
            changes.append(FileChange(name, old, new))
    return changes, before.setting


def _prune(root: Path, now: Record) -> None:
    """Drop kept bytes no record needs (at most once an hour; enforcement's own records count)."""
    marker = _directory(root) / ".pruned"
    with contextlib.suppress(OSError):
        if time.time_ns() - marker.stat().st_mtime_ns < PRUNE_EVERY_NS:
            return
    keep = {s.state.sha256 for s in now.files.values()}
    for entry in _directory(root).glob("*.json"):
        if is_body(entry.name):
            continue  # named by the records (gateway.shell_record_files removes those none names)
        if entry.name != INDEX and time.time_ns() - entry.stat().st_mtime_ns > KEEP_RECORD_NS:
            entry.unlink(missing_ok=True)  # a command whose PostToolUse never came (the host refused it)
            continue
        loaded = load(entry)
        keep |= {s.state.sha256 for s in loaded.files.values()} if loaded else set()
    if (state_dir(root) / "baseline.json").exists() or (state_dir(root) / "shell").exists():
        return  # a workspace under enforcement: its records decide (gateway.typed.shell prunes)
    prune_objects(objects_dir(root), keep)
    marker.touch()


def kept_bytes(root: Path, seen: Seen) -> bytes | None:
    """A file's bytes as recorded; None if too large to have been kept, or no longer kept."""
    return None if seen.state.sha256 == UNREAD else previous_bytes(objects_dir(root), seen.state)

