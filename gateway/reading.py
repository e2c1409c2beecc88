"""Reading files an agent names or a workspace holds: only regular files, never blocking,
bounded in size and in time.

Callers resolve and confine the path first (`Workspace.resolve`, the hook's `real_path`);
`os.stat` must call it a regular file, it is opened with O_NONBLOCK (a FIFO swapped in after
the check cannot block the open; with `follow` False, O_NOFOLLOW too) and checked again on the
open descriptor. At most `limit + 1`
bytes are read, so a file that grows while it is read is refused as too large, not read
without bound. Standard library only: the hook's light client imports this.
"""

from __future__ import annotations

import os
import stat
import time

from gateway.errors import GatewayError, NotRegularFile, TimedOut, TooLarge

READ_SECONDS = 10.0
DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024  # [gate] max_file_bytes unless configured (gateway.config)
CHUNK = 1 << 20
HEAD_BYTES = 256
_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"))


def too_large(where: str, size: int, limit: int) -> TooLarge:
    return TooLarge(
        f"{where}: {size} bytes, over the gate's limit of {limit} ([gate] max_file_bytes in "
        ".gateway/config.toml); refused rather than judged slowly"
    )


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _not_regular(where: str, mode: int) -> NotRegularFile:
    return NotRegularFile(f"{where}: {_kind(mode)}, not a regular file; refusing to read it")


def open_regular(path: str | os.PathLike[str], where: str | None = None, follow: bool = True) -> int | None:
    """A read-only descriptor of the regular file at `path` (links followed; with `follow`
    False a link is refused); None when there is no such file; NotRegularFile for anything else."""
    where = where or str(path)
    real = os.fspath(path)
    try:
        info = os.stat(real) if follow else os.lstat(real)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as error:
        raise GatewayError(f"{where}: cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(where, info.st_mode)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
    except FileNotFoundError:
        return None
    except OSError as error:  # ELOOP without `follow`: a link
        raise GatewayError(f"{where}: cannot be read ({error.strerror or error}); it changed while being opened") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _not_regular(where, mode)
    return fd


def read_fd(fd: int, where: str, limit: int | None = None, seconds: float = READ_SECONDS) -> bytes:
    """The bytes of an open regular file: at most `limit` (TooLarge beyond), within `seconds`."""
    size = os.fstat(fd).st_size
    if limit is not None and size > limit:
        raise too_large(where, size, limit)
    deadline = time.monotonic() + seconds
    chunks: list[bytes] = []
    total = 0
    while limit is None or total <= limit:
        chunk = os.read(fd, CHUNK if limit is None else min(CHUNK, limit + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        if time.monotonic() > deadline:
            raise TimedOut(f"{where}: still being read after {seconds:g} seconds; refused")
    if limit is not None and total > limit:
        raise too_large(where, total, limit)
    return b"".join(chunks)


def read_regular(path: str | os.PathLike[str], where: str | None = None, limit: int | None = None,
                 seconds: float = READ_SECONDS) -> bytes | None:
    """The bytes of the regular file at `path`; None when it does not exist."""
    where = where or str(path)
    fd = open_regular(path, where)
    if fd is None:
        return None
    try:
        return read_fd(fd, where, limit, seconds)
    finally:
        os.close(fd)


def read_head(path: str | os.PathLike[str], where: str | None = None, size: int = HEAD_BYTES) -> bytes | None:
    """The first `size` bytes of a regular file (its `#!` line, say); None when it does not exist."""
    where = where or str(path)
    fd = open_regular(path, where)
    if fd is None:
        return None
    try:
        return os.read(fd, size)
    finally:
        os.close(fd)


def digest_regular(path: str | os.PathLike[str], where: str | None = None) -> str | None:
    """The SHA-256 of a regular file's bytes, read in chunks; None when it does not exist."""
    import hashlib  # loads OpenSSL: not on the hook's light path

    fd = open_regular(path, where)
    if fd is None:
        return None
    digest = hashlib.sha256()
    try:
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()
