"""The bytes of the files a snapshot saw, kept content-addressed: in an objects directory outside
the workspace (named by the caller), and a second copy in the workspace's own store
(`mirror_dir`: git's object store as loose blobs, or `.gateway/state/objects` outside git), so
that removing the first does not lose them."""

from __future__ import annotations

import contextlib
import os
import time
import zlib
from pathlib import Path

from gateway.atomic import sha256
from gateway.config import STATE_DIR
from gateway.gitcalls import git

KEEP_OBJECTS_SECONDS = 24 * 3600
ASK_GIT_PAST = 16


def write_private(directory: Path, name: str, data: bytes) -> None:
    """`data` as `directory/name` (0600), written aside and renamed in (not fsynced: a kept copy
    lost in a crash is a copy the next scan keeps again, or one `gateway.snapshot.restore` says it
    could not find)."""
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
        write_private(objects, digest, data)
    return digest


def mirror_dir(root: Path) -> Path:
    """Where the second copies of `root`'s files are kept: git's object store when `.git` is a
    directory (a loose blob, as git itself writes one), else `.gateway/state/objects`."""
    git_dir = root / ".git"
    if git_dir.is_dir() and not git_dir.is_symlink() and (git_dir / "objects").is_dir():
        return git_dir / "objects"
    return root / STATE_DIR / "objects"


def mirror_blobs(root: Path, mirror: Path, new: dict[str, bytes]) -> None:
    """Second copies of `new` (blob id -> bytes) as git loose blobs in `mirror`, but for those
    git already holds loose and, past ASK_GIT_PAST of them (the first scan of a workspace), those
    it holds packed (a tracked file as committed). A few are written without asking: a `git`
    process costs more than writing them, and a loose copy of a packed blob is one git itself
    drops at its next `gc`."""
    new = {blob: data for blob, data in new.items() if not (mirror / blob[:2] / blob[2:]).exists()}
    if mirror.parent.name == ".git" and len(new) > ASK_GIT_PAST:
        done = git(root, "cat-file", "--batch-check", stdin="".join(f"{blob}\n" for blob in new).encode())
        held = {line.split(b" ")[0].decode() for line in done.stdout.splitlines() if not line.endswith(b" missing")} if done else set()
        new = {blob: data for blob, data in new.items() if blob not in held}
    for blob, data in new.items():
        write_private(mirror / blob[:2], blob[2:], zlib.compress(b"blob %d\0" % len(data) + data, 1))


def kept_names(directory: Path) -> set[str]:
    try:
        return set(os.listdir(directory))
    except OSError:
        return set()


def from_mirror(mirror: Path, blob: str) -> bytes | None:
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


def prune_objects(objects: Path, keep: set[str]) -> None:
    """Drop kept bytes no snapshot needs any more (older than a day, and not in `keep`)."""
    limit = time.time() - KEEP_OBJECTS_SECONDS
    with contextlib.suppress(OSError):
        for entry in os.scandir(objects):
            if entry.name not in keep and entry.stat().st_mtime < limit:
                os.unlink(entry.path)
