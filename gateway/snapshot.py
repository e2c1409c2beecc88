"""The workspace's files before a command, compared after it, and put back where they changed.

In a git work tree the files are those git tracks plus the untracked ones it does not
ignore. A file that `git status` calls clean is recorded by its index blob, which git
already holds; only the dirty and untracked files are read, and their bytes are kept in
`.gateway/state/objects/` (content-addressed) so that they can be put back. Outside git
every file is read. `.git/` and `.gateway/state/` are never part of it.
"""

from __future__ import annotations

import contextlib
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.config import STATE_DIR
from gateway.errors import GatewayError
from gateway.gitcalls import git, git_all
from gateway.atomic import replace_atomically, sha256

OBJECTS = "objects"
KEEP_OBJECTS_SECONDS = 24 * 3600
_SKIPPED_DIRS = {".git"}


@dataclass(frozen=True)
class FileState:
    """One file as it was: its SHA-256 (bytes kept in the object store) or its git blob, and its mode."""

    mode: int
    sha256: str | None = None
    blob: str | None = None

    def to_json(self) -> list[Any]:
        return [self.mode, self.sha256, self.blob]


@dataclass
class Snapshot:
    files: dict[str, FileState]
    dirty: set[str]
    index: dict[str, str]
    """Path -> "mode blob" of git's index (empty outside git)."""
    git: bool
    taken_at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        return {"files": {p: s.to_json() for p, s in self.files.items()}, "dirty": sorted(self.dirty),
                "index": self.index, "git": self.git, "taken_at": self.taken_at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Snapshot:
        files = {p: FileState(*v) for p, v in data["files"].items()}
        return cls(files, set(data["dirty"]), dict(data["index"]), bool(data["git"]), float(data["taken_at"]))


@dataclass(frozen=True)
class Change:
    path: str
    what: str
    """changed, created or deleted."""
    before: FileState | None


def _excluded(path: str) -> bool:
    return path.startswith((".git/", f"{STATE_DIR.as_posix()}/")) or path == ".git"


def _git_lists(root: Path) -> tuple[dict[str, str], set[str]] | None:
    listed, status, prefix = git_all(
        root,
        ("ls-files", "-s", "-z", "--", "."),
        ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all", "--", "."),
        ("rev-parse", "--show-prefix"),
    )
    if listed is None or status is None or prefix is None:
        return None
    index = {}
    for entry in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if entry:
            meta, path = entry.split("\t", 1)
            mode, blob, _stage = meta.split(" ")
            if not _excluded(path):
                index[path] = f"{mode} {blob}"
    strip = len(prefix.stdout.decode().strip())
    dirty = set()
    for entry in status.stdout.decode("utf-8", "surrogateescape").split("\0"):
        if entry and (entry[1] != " " or entry[:2] == "??") and not _excluded(entry[3 + strip :]):
            dirty.add(entry[3 + strip :])
    return index, dirty


def _walk(root: Path) -> set[str]:
    found = set()
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in _SKIPPED_DIRS]
        for name in files:
            path = (Path(directory) / name).relative_to(root).as_posix()
            if not _excluded(path):
                found.add(path)
    return found


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
        objects.mkdir(parents=True, exist_ok=True)
        replace_atomically(target, data, 0o600)
    return digest


def take(root: Path) -> Snapshot:
    """The workspace's files now; the bytes of those git cannot give back are kept aside."""
    objects, started = root / STATE_DIR / OBJECTS, time.time()  # a change made while listing counts as after
    lists = _git_lists(root)
    index, dirty = lists if lists is not None else ({}, _walk(root))
    files = {}
    for path, entry in index.items():
        if path not in dirty:
            mode, blob = entry.split(" ")
            files[path] = FileState(int(mode, 8) & 0o777, blob=blob)
    for path in dirty:
        read = _read(root, path)
        if read is not None:
            files[path] = FileState(read[1], sha256=_keep(objects, read[0]))
    return Snapshot(files, dirty, index, lists is not None, started)


def _blob_ids(root: Path, paths: list[str]) -> dict[str, str | None]:
    """git's blob id for each file as it is now (git's own filters applied)."""
    if not paths:
        return {}
    done = git(root, "hash-object", "--stdin-paths", stdin="".join(f"{p}\n" for p in paths).encode("utf-8", "surrogateescape"))
    ids = done.stdout.decode().split() if done is not None else []
    return dict(zip(paths, ids)) if len(ids) == len(paths) else dict.fromkeys(paths)


def compare(root: Path, before: Snapshot) -> list[Change]:
    """Every file changed, created or deleted since `before` (mode changes included)."""
    if before.git:
        lists = _git_lists(root)
        index, dirty = lists if lists is not None else ({}, set(before.files))
        moved = {p for p in index.keys() | before.index.keys() if index.get(p) != before.index.get(p)}
        candidates = before.dirty | dirty | moved
    else:
        candidates = set(before.files) | _walk(root)
    blob_paths = [p for p in candidates if p in before.files and before.files[p].blob and (root / p).is_file()]
    blobs = _blob_ids(root, blob_paths)
    changes = []
    for path in sorted(candidates):
        old, now = before.files.get(path), _read(root, path)
        if old is None:
            if now is not None or (root / path).is_symlink():
                changes.append(Change(path, "created", None))
            continue
        if now is None:
            changes.append(Change(path, "deleted", old))
            continue
        same = blobs.get(path) == old.blob if old.blob else sha256(now[0]) == old.sha256
        if not same or (now[1] & 0o111) != (old.mode & 0o111):
            changes.append(Change(path, "changed", old))
    return changes


def previous_bytes(root: Path, state: FileState, path: str) -> bytes | None:
    """A file's bytes as the snapshot saw them; None if they can no longer be found."""
    if state.sha256 is not None:
        with contextlib.suppress(OSError):
            data = (root / STATE_DIR / OBJECTS / state.sha256).read_bytes()
            return data if sha256(data) == state.sha256 else None
        return None
    done = git(root, "cat-file", "--filters", f"--path={path}", state.blob or "")
    return done.stdout if done is not None else None


def restore(root: Path, changes: list[Change]) -> list[str]:
    """Put each changed file back (remove the created ones); the paths that could not be."""
    failed = []
    for change in changes:
        target = root / change.path
        try:
            if change.before is None:
                if target.is_symlink() or target.is_file():
                    target.unlink()
                continue
            data = previous_bytes(root, change.before, change.path)
            if data is None:
                failed.append(change.path)
                continue
            if target.is_dir() and not target.is_symlink():
                failed.append(change.path)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            replace_atomically(target, data, change.before.mode)
        except OSError:
            failed.append(change.path)
    return failed


def prune_objects(root: Path, keep: set[str]) -> None:
    """Drop kept bytes no snapshot needs any more (older than a day, and not in `keep`)."""
    objects = root / STATE_DIR / OBJECTS
    limit = time.time() - KEEP_OBJECTS_SECONDS
    with contextlib.suppress(OSError):
        for entry in os.scandir(objects):
            if entry.name not in keep and entry.stat().st_mtime < limit:
                os.unlink(entry.path)
