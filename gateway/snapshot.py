"""The workspace's files at one moment, compared with a later moment, and put back where they changed.

The files are those gateway.snapshot_paths lists (git's tracked and not-ignored files, the
gateway's configuration, git's hooks and config). Each is read and hashed: git's own
view (`git status`, `git diff`, the index) is never trusted, since `--skip-worktree` and
`--assume-unchanged` hide changes from it. A scan compared with an earlier snapshot reads
again only the files whose stat (size, mtime, ctime, inode, mode) differs from the one they had
when read, or whose ctime falls within `RACY_NS` of that snapshot (git's "racily clean" rule:
a write in the clock tick of the reading leaves the stat as it was). ctime cannot be set by a
user process, so a write that puts size and mtime back (`touch -d`) still changes the stat.
The bytes of every file are kept, content-addressed, twice (gateway.snapshot_store).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from gateway.atomic import replace_atomically, sha256
from gateway.snapshot_delta import apart, made_from
from gateway.snapshot_paths import StatKey, Stats, listed, listed_and_stats, lstat_at, opened_directory, read_file, stat_key
from gateway.snapshot_store import from_mirror, kept_names, mirror_blobs, mirror_dir, write_private

RACY_NS = 2_000_000_000


@dataclass(frozen=True)
class FileState:
    """One file as it was: its mode, the SHA-256 of its bytes (kept in the object store), the
    git blob id of its second copy (in the mirror; "" when none was kept) and its stat when it
    was read (() when unknown: it is read again at the next scan)."""

    mode: int
    sha256: str
    blob: str = ""
    stat: StatKey | tuple[()] = ()

    def to_json(self) -> list[Any]:
        if self.stat:
            return [self.mode, self.sha256, self.blob, *self.stat]
        return [self.mode, self.sha256, self.blob] if self.blob else [self.mode, self.sha256]

    @classmethod
    def from_json(cls, value: list[Any]) -> FileState:
        key = tuple(int(v) for v in value[3:8]) if len(value) >= 8 else ()
        return cls(int(value[0]), str(value[1]), str(value[2]) if len(value) > 2 else "", key)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Mark:
    """A moment of one workspace watch (gateway.watcher): every event up to it was read;
    `stat_at`: when the states it stands for were last stat-ed whole (time.monotonic())."""

    watch: int
    seq: int
    stat_at: float = 0.0


@dataclass
class Snapshot:
    """`mark`: the watch's moment its states hold at, in this process only (never saved: a
    snapshot read back has none, and is stat-ed again whole)."""

    files: dict[str, FileState]
    taken_at: float = field(default_factory=time.time)
    mark: Mark | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"files": {p: _entry(p, s)[1] for p, s in self.files.items()}, "taken_at": self.taken_at}

    def canonical(self) -> bytes:
        """`userstate.canonical(self.to_json())`, each file's part made once while its state is the
        same (a snapshot takes most of them from the one before it)."""
        files = ",".join(_entry(path, self.files[path])[2] for path in sorted(self.files))
        if len(_entries) > 2 * len(self.files) + 1000:  # paths gone since: kept no longer
            for path in _entries.keys() - self.files.keys():
                _entries.pop(path, None)
        return f'{{"files":{{{files}}},"taken_at":{json.dumps(self.taken_at)}}}'.encode()

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        return cls({p: FileState.from_json(v) for p, v in data["files"].items()}, float(data["taken_at"]))


_entries: dict[str, tuple[FileState, list[Any], str]] = {}  # path -> (its last state, as JSON, its canonical `"path":[...]`)


def _entry(path: str, state: FileState) -> tuple[FileState, list[Any], str]:
    found = _entries.get(path)
    if found is None or found[0] is not state:
        value = state.to_json()
        found = _entries[path] = (state, value, f"{json.dumps(path)}:{json.dumps(value, separators=(',', ':'))}")
    return found


@dataclass(frozen=True)
class Change:
    path: str
    what: str
    """changed, created or deleted."""
    before: FileState | None
    after: FileState | None = None



def scan(root: Path, objects: Path, also: AbstractSet[str] = frozenset(), mirrored: AbstractSet[str] | None = None,
         known: Snapshot | None = None, listing: AbstractSet[str] | None = None, stats: Stats | None = None,
         changed: AbstractSet[str] | None = None, keep_known: bool = False) -> dict[str, FileState]:
    """Every watched file (and the paths in `also`, and with `keep_known` every path of
    `known`) as it is now, its bytes kept in `objects`.
    `mirrored` (enforcement): the blob ids already in the workspace's mirror; the others are
    kept there too. None: no second copy. `known`: an earlier snapshot whose file states are
    taken again where the stat says the file is unchanged (its bytes are kept already).
    `listing`, `stats`: `listed_and_stats(root, ...)` when the caller has them. `changed`: the
    paths with an event since `known`'s mark (gateway.watcher); the others are taken again
    unstat-ed. None: every file is stat-ed."""
    files: dict[str, FileState] = {}
    previous = known.files if known is not None else {}
    trusted_before_ns = int(known.taken_at * 1e9) - RACY_NS if known is not None else 0
    if listing is None:
        listing, stats = listed_and_stats(root, previous.keys() | also) if previous else (listed(root), {})
    stats = stats or {}
    if changed is not None and previous:
        return _rescanned(root, objects, previous, Scope(listing, also, keep_known), changed, mirrored, stats, trusted_before_ns)
    paths = listing | also | (previous.keys() if keep_known else frozenset())
    unread = _taken_again(root, previous, paths, mirrored, stats, trusted_before_ns, files)
    files.update(_read_and_kept(root, objects, unread, mirrored))
    return files


def _taken_again(root: Path, previous: dict[str, FileState], paths: Iterable[str], mirrored: AbstractSet[str] | None, stats: Stats,
                 trusted_before_ns: int, files: dict[str, FileState]) -> list[str]:
    """Into `files`, the previous state of each of `paths` whose stat is the one it had when read
    and that was not written within RACY_NS of that snapshot; the other paths, to be read. One
    loop, no call per file: it runs for every file."""
    unread = []
    with opened_directory(root) as root_fd:
        for path in paths:
            old = previous.get(path)
            if old is not None and old.stat and (mirrored is None or old.blob):
                info = stats[path] if path in stats else lstat_at(root_fd, path)
                if info is not None and info.st_ctime_ns < trusted_before_ns and stat_key(info) == old.stat:
                    files[path] = old
                    continue
            unread.append(path)
    return unread


@dataclass(frozen=True)
class Scope:
    """What a scan looks at: `listing`, the paths in `also`, and with `keep_known` every path of
    the snapshot it starts from."""

    listing: AbstractSet[str]
    also: AbstractSet[str] = frozenset()
    keep_known: bool = False

    def holds(self, path: str, previous: dict[str, FileState]) -> bool:
        return path in self.listing or path in self.also or (self.keep_known and path in previous)


def reconsidered(previous: dict[str, FileState], scope: Scope, changed: AbstractSet[str], mirrored: bool) -> set[str]:
    """The paths a watched scan of `scope` looks at again: new ones, those with an event, and
    those whose state cannot be taken again unread (no stat kept; no blob id where the mirror is
    kept). The others keep their state object, so that a check costs what changed, not the
    workspace (gateway.snapshot_delta: the listing is not compared whole with `previous`)."""
    beyond = scope.also - previous.keys() if scope.also else frozenset()
    return {*apart(scope.listing, previous).unheld, *beyond, *(p for p in changed if scope.holds(p, previous)),
            *(p for p in _incomplete(previous, mirrored) if scope.holds(p, previous))}


def _incomplete(previous: dict[str, FileState], mirrored: bool) -> frozenset[str]:
    last = _incomplete_of.get(mirrored)
    if last is not None and last[0] is previous:
        return last[1]
    found = frozenset(p for p, s in previous.items() if not s.stat or (mirrored and not s.blob))
    _incomplete_of[mirrored] = (previous, found)
    return found


_incomplete_of: dict[bool, tuple[dict[str, FileState], frozenset[str]]] = {}  # the last snapshot asked about (callers do not change it)


def _rescanned(root: Path, objects: Path, previous: dict[str, FileState], scope: Scope, changed: AbstractSet[str],
               mirrored: AbstractSet[str] | None, stats: Stats, trusted_before_ns: int) -> dict[str, FileState]:
    """`scan` where the watch names the paths with an event: `previous` taken again but for the
    paths `reconsidered`, each stat-ed (and read when its stat says it may differ), and the gone
    (held, and out of `scope`). The paths it looked at are `touched_since(files, previous)`."""
    again = reconsidered(previous, scope, changed, mirrored is not None)
    gone = set() if scope.keep_known else {p for p in apart(scope.listing, previous).unlisted if p not in scope.also}
    files = dict(previous)
    for path in gone | again:
        files.pop(path, None)
    unread = _taken_again(root, previous, again, mirrored, stats, trusted_before_ns, files)
    files.update(_read_and_kept(root, objects, unread, mirrored))
    made_from(files, previous, gone | again)
    return files


def _read_and_kept(root: Path, objects: Path, paths: list[str], mirrored: AbstractSet[str] | None) -> dict[str, FileState]:
    """The files at `paths` read and hashed, their bytes kept in `objects` (and the mirror, as `scan` says)."""
    files, kept, new = {}, None, {}
    for path in paths:
        read = read_file(root, path)
        if read is None:
            continue
        data, info = read
        digest = sha256(data)
        if kept is None:
            kept = kept_names(objects)
        if digest not in kept:
            write_private(objects, digest, data)
            kept.add(digest)
        blob = ""
        if mirrored is not None:
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
            if blob not in mirrored:
                new[blob] = data
        files[path] = FileState(stat.S_IMODE(info.st_mode), digest, blob, stat_key(info))
    if new:
        mirror_blobs(root, mirror_dir(root), new)
    return files


def take(root: Path, objects: Path) -> Snapshot:
    """The workspace's files now (a change made while reading counts as after)."""
    started = time.time()
    return Snapshot(scan(root, objects), started)


def differences(before: dict[str, FileState], now: dict[str, FileState], root: Path, listing: AbstractSet[str] | None = None,
                again: AbstractSet[str] | None = None) -> list[Change]:
    """Every file changed, created or deleted from `before` to `now` (mode changes included);
    `listing`: `listed(root)` when the caller has it; `again`: the paths where `now` may differ
    from `before` (a watched scan's `touched_since`: every other path of `now` holds `before`'s
    state object, and every other path of `before` is in `now`)."""
    changes = []
    if again is None:
        differ = {p for p in now if before.get(p) is not now[p]} | (before.keys() - now.keys())
    else:
        differ = {p for p in again if before.get(p) is not now.get(p)}  # a state taken again is the same
    for path in sorted(differ):
        old, new = before.get(path), now.get(path)
        if old is None:
            if new is not None:
                changes.append(Change(path, "created", None, new))
        elif new is None:
            changes.append(Change(path, "deleted", old))
        elif new.sha256 != old.sha256 or (new.mode & 0o111) != (old.mode & 0o111):
            changes.append(Change(path, "changed", old, new))
    unheld = apart(listed(root) if listing is None else listing, now).unheld
    for path in sorted(p for p in unheld if p not in before and (root / p).is_symlink()):
        changes.append(Change(path, "created", None))
    return changes


def compare(root: Path, before: Snapshot, objects: Path) -> list[Change]:
    """Every file changed, created or deleted since `before`."""
    return differences(before.files, scan(root, objects, known=before, keep_known=True), root)


def previous_bytes(objects: Path, state: FileState, mirror: Path | None = None) -> bytes | None:
    """A file's bytes as a snapshot saw them, from `objects` or else the `mirror`; None if they
    can no longer be found (or were altered)."""
    with contextlib.suppress(OSError):
        data = (objects / state.sha256).read_bytes()
        if sha256(data) == state.sha256:
            return data
    if mirror is None or not state.blob:
        return None
    data = from_mirror(mirror, state.blob)
    return data if data is not None and sha256(data) == state.sha256 else None


def restore(root: Path, changes: list[Change], objects: Path) -> list[str]:
    """Put each changed file back (remove the created ones); the paths that could not be."""
    failed, mirror = [], mirror_dir(root)
    for change in changes:
        target = root / change.path
        try:
            if change.before is None:
                if target.is_symlink() or target.is_file():
                    target.unlink()
                continue
            data = previous_bytes(objects, change.before, mirror)
            if data is None or (target.is_dir() and not target.is_symlink()):
                failed.append(change.path)
                continue
            if target.is_symlink():
                target.unlink()
            target.parent.mkdir(parents=True, exist_ok=True)
            replace_atomically(target, data, change.before.mode)
        except OSError:
            failed.append(change.path)
    return failed
