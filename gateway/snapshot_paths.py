"""Which paths a workspace snapshot watches, and how each is stat-ed and read (gateway.snapshot's
scans, the shell check's records in gateway.shell_record, and the workspace watch in
gateway.watcher all use them).

The paths are those git lists (tracked, and untracked but not ignored; every file outside
git) plus everything under `.gateway/` but its state, and git's hooks and `.git/config`
(code in them runs at the user's next git command). The rest of `.git/` and `.gateway/state/`
are never part of it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from gateway.config import STATE_DIR
from gateway.errors import GatewayError
from gateway.gitcalls import git

_SKIPPED_DIRS = {".git"}
GATEWAY_DIR = ".gateway"
GIT_WATCHED = (".git/hooks/", ".git/config")
"""Inside `.git/`: what runs code at the user's next git command (hooks, and the config's
`core.fsmonitor`, `core.pager`, `!` aliases...)."""


StatKey = tuple[int, int, int, int, int]
"""(size, mtime_ns, ctime_ns, inode, st_mode) of a file: what says it may have changed."""


def stat_key(info: os.stat_result) -> StatKey:
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)


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


def read_file(root: Path, path: str) -> tuple[bytes, os.stat_result] | None:
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
