"""The workspace's files at one moment, compared with a later moment, and put back where they changed.

The files are those git lists (tracked, and untracked but not ignored; every file outside
git) plus everything under `.gateway/` but its state. Each is read and hashed: git's own
view (`git status`, `git diff`, the index) is never trusted, since `--skip-worktree` and
`--assume-unchanged` hide changes from it. The bytes of every file are kept, content-addressed,
in the objects directory the caller names (outside the workspace), so that any of them can
be put back. `.git/` and `.gateway/state/` are never part of it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Set as AbstractSet
from typing import Any

from gateway.errors import GatewayError
from gateway.atomic import replace_atomically, sha256
from gateway.config import STATE_DIR
from gateway.gitcalls import git

KEEP_OBJECTS_SECONDS = 24 * 3600
_SKIPPED_DIRS = {".git"}
GATEWAY_DIR = ".gateway"


@dataclass(frozen=True)
class FileState:
    """One file as it was: its mode and the SHA-256 of its bytes (kept in the object store)."""

    mode: int
    sha256: str

    def to_json(self) -> list[Any]:
        return [self.mode, self.sha256]


@dataclass
class Snapshot:
    files: dict[str, FileState]
    taken_at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"files": {p: s.to_json() for p, s in self.files.items()}, "taken_at": self.taken_at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        return cls({p: FileState(int(v[0]), str(v[1])) for p, v in data["files"].items()}, float(data["taken_at"]))


@dataclass(frozen=True)
class Change:
    path: str
    what: str
    """changed, created or deleted."""
    before: FileState | None
    after: FileState | None = None


def _excluded(path: str) -> bool:
    return path == ".git" or path.startswith((".git/", f"{STATE_DIR.as_posix()}/"))


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
    return paths | _walk(root / GATEWAY_DIR, root)


def _read(root: Path, path: str) -> tuple[bytes, int] | None:
    """A regular file's bytes and permission bits; None for anything else (absent, a link, a directory)."""
    from gateway.reading import open_regular, read_fd

    try:
        fd = open_regular(root / path, path, follow=False)
    except GatewayError:
        return None
    if fd is None:
        return None
    try:
        return read_fd(fd, path, seconds=float("inf")), stat.S_IMODE(os.fstat(fd).st_mode)
    except (OSError, GatewayError):
        return None
    finally:
        os.close(fd)


def _keep(objects: Path, data: bytes) -> str:
    digest = sha256(data)
    target = objects / digest
    if not target.exists():
        objects.mkdir(parents=True, exist_ok=True, mode=0o700)
        temp = objects / f".{digest}.{os.getpid()}.{time.monotonic_ns()}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temp, target)
    return digest


def scan(root: Path, objects: Path, also: AbstractSet[str] = frozenset()) -> dict[str, FileState]:
    """Every watched file (and the paths in `also`) as it is now, its bytes kept in `objects`."""
    files = {}
    for path in listed(root) | also:
        read = _read(root, path)
        if read is not None:
            files[path] = FileState(read[1], _keep(objects, read[0]))
    return files


def take(root: Path, objects: Path) -> Snapshot:
    """The workspace's files now (a change made while reading counts as after)."""
    started = time.time()
    return Snapshot(scan(root, objects), started)


def differences(before: dict[str, FileState], now: dict[str, FileState], root: Path) -> list[Change]:
    """Every file changed, created or deleted from `before` to `now` (mode changes included)."""
    changes = []
    for path in sorted(before.keys() | now.keys()):
        old, new = before.get(path), now.get(path)
        if old is None:
            if new is not None:
                changes.append(Change(path, "created", None, new))
        elif new is None:
            changes.append(Change(path, "deleted", old))
        elif new.sha256 != old.sha256 or (new.mode & 0o111) != (old.mode & 0o111):
            changes.append(Change(path, "changed", old, new))
    for path in sorted(p for p in listed(root) - before.keys() - now.keys() if (root / p).is_symlink()):
        changes.append(Change(path, "created", None))
    return changes


def compare(root: Path, before: Snapshot, objects: Path) -> list[Change]:
    """Every file changed, created or deleted since `before`."""
    return differences(before.files, scan(root, objects, set(before.files)), root)


def previous_bytes(objects: Path, state: FileState) -> bytes | None:
    """A file's bytes as a snapshot saw them; None if they can no longer be found (or were altered)."""
    with contextlib.suppress(OSError):
        data = (objects / state.sha256).read_bytes()
        return data if sha256(data) == state.sha256 else None
    return None


def restore(root: Path, changes: list[Change], objects: Path) -> list[str]:
    """Put each changed file back (remove the created ones); the paths that could not be."""
    failed = []
    for change in changes:
        target = root / change.path
        try:
            if change.before is None:
                if target.is_symlink() or target.is_file():
                    target.unlink()
                continue
            data = previous_bytes(objects, change.before)
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
