"""The workspace's files at one moment, compared with a later moment, and put back where they changed.

The files are those git lists (tracked, and untracked but not ignored; every file outside
git) plus everything under `.gateway/` but its state. Each is read and hashed: git's own
view (`git status`, `git diff`, the index) is never trusted, since `--skip-worktree` and
`--assume-unchanged` hide changes from it. A scan compared with an earlier snapshot reads
again only the files whose stat (size, mtime, ctime, inode, mode) differs from the one they had
when read, or whose ctime falls within `RACY_NS` of that snapshot (git's "racily clean" rule:
a write in the clock tick of the reading leaves the stat as it was). ctime cannot be set by a
user process, so a write that puts size and mtime back (`touch -d`) still changes the stat. Git's hooks and `.git/config` are watched too: code
in them runs at the user's next git command. The bytes of every file are kept, content-addressed,
in the objects directory the caller names (outside the workspace), and a second copy in the
workspace's own store (`mirror_dir`: git's object store as loose blobs, or `.gateway/state/objects`
outside git), so that removing the first does not lose them. The rest of `.git/` and
`.gateway/state/` are never part of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Set as AbstractSet
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from gateway.errors import GatewayError
from gateway.atomic import replace_atomically, sha256
from gateway.config import STATE_DIR
from gateway.gitcalls import git

KEEP_OBJECTS_SECONDS = 24 * 3600
RACY_NS = 2_000_000_000
_SKIPPED_DIRS = {".git"}
GATEWAY_DIR = ".gateway"
GIT_WATCHED = (".git/hooks/", ".git/config")
"""Inside `.git/`: what runs code at the user's next git command (hooks, and the config's
`core.fsmonitor`, `core.pager`, `!` aliases...)."""


StatKey = tuple[int, int, int, int, int]
"""(size, mtime_ns, ctime_ns, inode, st_mode) of a file: what says it may have changed."""


def stat_key(info: os.stat_result) -> StatKey:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)


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


_EXCLUDED_UNDER = (".git/", f"{STATE_DIR.as_posix()}/")


def _excluded(path: str) -> bool:
    if path.startswith(GIT_WATCHED):
        return False
    return path == ".git" or path.startswith(_EXCLUDED_UNDER)


def _walk(top: Path, root: Path) -> set[str]:
    found = set()
    for directory, subdirs, files in os.walk(top):
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED_DIRS]
        for name in files:
            path = (Path(directory) / name).relative_to(root).as_posix()
            if not _excluded(path):
                found.add(path)
    return found


def listed(root: Path) -> set[str]:
    """The paths watched in `root`: git's tracked and not-ignored files (all files outside git)
    and the gateway's own configuration, whatever git ignores."""
    done = git(root, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ".")
    if done is None:
        paths = _walk(root, root)
    else:
        paths = {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p and not _excluded(p)}
    return paths | _walk(root / GATEWAY_DIR, root) | _git_watched(root)


def _git_watched(root: Path) -> set[str]:
    """`.git/config` and every file under `.git/hooks/` (of a repository whose `.git` is a directory)."""
    git_dir = root / ".git"
    if not git_dir.is_dir() or git_dir.is_symlink():
        return set()
    found = _walk(git_dir / "hooks", root)
    return found | ({".git/config"} if (git_dir / "config").exists() or (git_dir / "config").is_symlink() else set())


def _read(root: Path, path: str) -> tuple[bytes, os.stat_result] | None:
    """A regular file's bytes and its stat from before they were read (so that a write while
    reading changes the stat); None for anything else (absent, a link, a directory)."""
    from gateway.reading import open_regular, read_fd

    try:
        fd = open_regular(root / path, path, follow=False)
    except GatewayError:
        return None
    if fd is None:
        return None
    try:
        info = os.fstat(fd)
        return read_fd(fd, path, seconds=float("inf")), info
    except (OSError, GatewayError):
        return None
    finally:
        os.close(fd)


def _write_new(directory: Path, name: str, data: bytes) -> None:
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    temp = directory / f".{name}.{os.getpid()}.{time.monotonic_ns()}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temp, directory / name)


def keep(objects: Path, data: bytes) -> str:
    """`data` kept in the object store `objects` (once, by its SHA-256, which is returned)."""
    digest = sha256(data)
    if not (objects / digest).exists():
        _write_new(objects, digest, data)
    return digest


def mirror_dir(root: Path) -> Path:
    """Where the second copies of `root`'s files are kept: git's object store when `.git` is a
    directory (a loose blob, as git itself writes one), else `.gateway/state/objects`."""
    git_dir = root / ".git"
    if git_dir.is_dir() and not git_dir.is_symlink() and (git_dir / "objects").is_dir():
        return git_dir / "objects"
    return root / STATE_DIR / "objects"


def _mirror(root: Path, mirror: Path, new: dict[str, bytes]) -> None:
    """Second copies of `new` (blob id -> bytes) as git loose blobs in `mirror`, but for those
    git already holds (packed: a tracked file as committed)."""
    if mirror.parent.name == ".git" and new:
        done = git(root, "cat-file", "--batch-check", stdin="".join(f"{blob}\n" for blob in new).encode())
        held = {line.split(b" ")[0].decode() for line in done.stdout.splitlines() if not line.endswith(b" missing")} if done else set()
        new = {blob: data for blob, data in new.items() if blob not in held}
    for blob, data in new.items():
        if not (mirror / blob[:2] / blob[2:]).exists():
            _write_new(mirror / blob[:2], blob[2:], zlib.compress(b"blob %d\0" % len(data) + data, 1))


def _names(directory: Path) -> set[str]:
    try:
        return set(os.listdir(directory))
    except OSError:
        return set()


def _from_mirror(mirror: Path, blob: str) -> bytes | None:
    """The blob's bytes: a loose object, or (once git has packed it) as `git cat-file` gives it."""
    try:
        raw = zlib.decompress((mirror / blob[:2] / blob[2:]).read_bytes())
        return raw[raw.index(b"\0") + 1:]
    except (OSError, ValueError, zlib.error):
        pass
    if mirror.name != "objects" or mirror.parent.name != ".git":
        return None
    done = git(mirror.parent.parent, "cat-file", "blob", blob)
    return done.stdout if done is not None else None


@contextlib.contextmanager
def opened_directory(root: Path) -> Iterator[int]:
    """A descriptor of `root`, to `lstat` many paths relative to it without joining each."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def lstat_at(root_fd: int, path: str) -> os.stat_result | None:
    """The lstat of `path` relative to the directory `root_fd`; None when there is nothing."""
    try:
        return os.stat(path, dir_fd=root_fd, follow_symlinks=False)
    except OSError:
        return None


Stats = dict[str, os.stat_result | None]


def listed_and_stats(root: Path, paths: AbstractSet[str]) -> tuple[set[str], Stats]:
    """`listed(root)`, and the lstat of each of `paths` (None: absent) taken while git lists
    (git runs as its own process meanwhile, so the two costs overlap)."""
    with ThreadPoolExecutor(1) as pool:
        listing = pool.submit(listed, root)
        with opened_directory(root) as root_fd:
            stats = {path: lstat_at(root_fd, path) for path in paths}
        return listing.result(), stats


def scan(root: Path, objects: Path, also: AbstractSet[str] = frozenset(), mirrored: AbstractSet[str] | None = None,
         known: Snapshot | None = None, listing: AbstractSet[str] | None = None, stats: Stats | None = None,
         changed: AbstractSet[str] | None = None) -> dict[str, FileState]:
    """Every watched file (and the paths in `also`) as it is now, its bytes kept in `objects`.
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
        return _rescanned(root, objects, previous, listing | also, changed, mirrored, stats, trusted_before_ns)
    unread = []
    with opened_directory(root) as root_fd:
        for path in listing | also:
            # Taken again when its stat is the one it had when read, and it was not written within
            # RACY_NS of that snapshot (one loop, no call per file: it runs for every file).
            old = previous.get(path)
            if old is not None and old.stat and (mirrored is None or old.blob):
                if changed is not None and path not in changed:
                    files[path] = old
                    continue
                info = stats[path] if path in stats else lstat_at(root_fd, path)
                if info is not None and info.st_ctime_ns < trusted_before_ns and stat_key(info) == old.stat:
                    files[path] = old
                    continue
            unread.append(path)
    files.update(_read_and_kept(root, objects, unread, mirrored))
    return files


def reconsidered(previous: dict[str, FileState], paths: AbstractSet[str], changed: AbstractSet[str], mirrored: bool) -> AbstractSet[str]:
    """The paths a watched scan looks at again: new ones, those with an event, and those whose
    state cannot be taken again unread (no stat kept; no blob id where the mirror is kept). The
    others keep their state object, so that a check costs what changed, not the workspace."""
    return (paths - previous.keys()) | (changed & paths) | (_incomplete(previous, mirrored) & paths)


def _incomplete(previous: dict[str, FileState], mirrored: bool) -> frozenset[str]:
    last = _incomplete_of.get(mirrored)
    if last is not None and last[0] is previous:
        return last[1]
    found = frozenset(p for p, s in previous.items() if not s.stat or (mirrored and not s.blob))
    _incomplete_of[mirrored] = (previous, found)
    return found


_incomplete_of: dict[bool, tuple[dict[str, FileState], frozenset[str]]] = {}  # the last snapshot asked about (callers do not change it)


def _rescanned(root: Path, objects: Path, previous: dict[str, FileState], paths: AbstractSet[str], changed: AbstractSet[str],
               mirrored: AbstractSet[str] | None, stats: Stats, trusted_before_ns: int) -> dict[str, FileState]:
    """`scan` where the watch names the paths with an event: `previous` taken again but for the
    paths `reconsidered`, each stat-ed (and read when its stat says it may differ), and the gone."""
    again = reconsidered(previous, paths, changed, mirrored is not None)
    files = dict(previous)
    for path in (previous.keys() - paths) | again:
        files.pop(path, None)
    unread = []
    with opened_directory(root) as root_fd:
        for path in again:
            old = previous.get(path)
            if old is not None and old.stat and (mirrored is None or old.blob):
                info = stats[path] if path in stats else lstat_at(root_fd, path)
                if info is not None and info.st_ctime_ns < trusted_before_ns and stat_key(info) == old.stat:
                    files[path] = old
                    continue
            unread.append(path)
    files.update(_read_and_kept(root, objects, unread, mirrored))
    return files


def _read_and_kept(root: Path, objects: Path, paths: list[str], mirrored: AbstractSet[str] | None) -> dict[str, FileState]:
    """The files at `paths` read and hashed, their bytes kept in `objects` (and the mirror, as `scan` says)."""
    files, kept, new = {}, None, {}
    for path in paths:
        read = _read(root, path)
        if read is None:
            continue
        data, info = read
        digest = sha256(data)
        if kept is None:
            kept = _names(objects)
        if digest not in kept:
            _write_new(objects, digest, data)
            kept.add(digest)
        blob = ""
        if mirrored is not None:
            blob = hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()
            if blob not in mirrored:
                new[blob] = data
        files[path] = FileState(stat.S_IMODE(info.st_mode), digest, blob, stat_key(info))
    if new:
        _mirror(root, mirror_dir(root), new)
    return files


def take(root: Path, objects: Path) -> Snapshot:
    """The workspace's files now (a change made while reading counts as after)."""
    started = time.time()
    return Snapshot(scan(root, objects), started)


def differences(before: dict[str, FileState], now: dict[str, FileState], root: Path, listing: AbstractSet[str] | None = None,
                again: AbstractSet[str] | None = None) -> list[Change]:
    """Every file changed, created or deleted from `before` to `now` (mode changes included);
    `listing`: `listed(root)` when the caller has it; `again`: the paths a watched scan
    `reconsidered` (every other path of `now` holds `before`'s state object)."""
    changes = []
    looked = now.keys() if again is None else again & now.keys()
    differ = {p for p in looked if before.get(p) is not now[p]} | (before.keys() - now.keys())  # a state taken again is the same
    for path in sorted(differ):
        old, new = before.get(path), now.get(path)
        if old is None:
            if new is not None:
                changes.append(Change(path, "created", None, new))
        elif new is None:
            changes.append(Change(path, "deleted", old))
        elif new.sha256 != old.sha256 or (new.mode & 0o111) != (old.mode & 0o111):
            changes.append(Change(path, "changed", old, new))
    for path in sorted(p for p in (listed(root) if listing is None else listing) - before.keys() - now.keys() if (root / p).is_symlink()):
        changes.append(Change(path, "created", None))
    return changes


def compare(root: Path, before: Snapshot, objects: Path) -> list[Change]:
    """Every file changed, created or deleted since `before`."""
    return differences(before.files, scan(root, objects, set(before.files), known=before), root)


def previous_bytes(objects: Path, state: FileState, mirror: Path | None = None) -> bytes | None:
    """A file's bytes as a snapshot saw them, from `objects` or else the `mirror`; None if they
    can no longer be found (or were altered)."""
    with contextlib.suppress(OSError):
        data = (objects / state.sha256).read_bytes()
        if sha256(data) == state.sha256:
            return data
    if mirror is None or not state.blob:
        return None
    data = _from_mirror(mirror, state.blob)
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


def prune_objects(objects: Path, keep: set[str]) -> None:
    """Drop kept bytes no snapshot needs any more (older than a day, and not in `keep`)."""
    limit = time.time() - KEEP_OBJECTS_SECONDS
    with contextlib.suppress(OSError):
        for entry in os.scandir(objects):
            if entry.name not in keep and entry.stat().st_mtime < limit:
                os.unlink(entry.path)
