"""Writing files whole or not at all: a temporary file beside the target, fsynced, then renamed.

A write that replaces a file another process is also writing is checked at the last moment
before the rename, and the replaced inode is held open so that an append landing on it after
that check is carried over instead of being lost with it.
"""

from __future__ import annotations

import contextlib
import hashlib
import fcntl
import os
import signal
import stat
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gateway.errors import NotRegularFile, Stale, WriteFailed

TEMP_SUFFIX = ".gateway-tmp"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def file_digest(path: Path) -> str | None:
    """The SHA-256 of a regular file's bytes; None when there is no such file (or a directory);
    a FIFO or a device is refused unread (NotRegularFile)."""
    from gateway.reading import digest_regular

    try:
        return digest_regular(path)
    except NotRegularFile:
        if path.is_dir():
            return None
        raise


class ReplacedFile:
    """The file a write replaces, held from the last check on, as `display` knows it.

    Where the kernel grants it, the check takes a read lease: it is refused while another
    process has the file open for writing, and an open for writing that arrives before the
    rename is complete breaks it. The old file is kept under a second name until then, so that
    such a writer finds it back in place instead of writing into a file that is gone.
    """

    def __init__(self, path: Path, display: str, digest: str) -> None:
        self.path, self.display, self.digest = path, display, digest
        self.fd = -1
        self.size = 0
        self.kept: Path | None = None  # the old file's second name, while the lease is held

    def check(self) -> None:
        """Refused as stale unless the file still has `digest`; from here on, it is held."""
        try:  # never blocks on a FIFO swapped in, never follows a link swapped in
            self.fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY)
        except FileNotFoundError:
            raise Stale(f"{self.display}: deleted since it was read; nothing written") from None
        except OSError as error:
            raise Stale(f"{self.display}: replaced since it was read ({error.strerror}); nothing written") from None
        if not stat.S_ISREG(os.fstat(self.fd).st_mode):
            raise Stale(f"{self.display}: no longer a regular file; nothing written")
        leased = _read_lease(self.fd, self.display)
        data = _read_all(self.fd)
        self.size = len(data)
        if sha256(data) != self.digest:
            raise Stale(f"{self.display}: changed on disk since it was read; nothing written")
        if leased:
            self._keep()

    def _keep(self) -> None:
        kept = self.path.with_name(f"{_temp_prefix(self.path)}{os.getpid()}-{os.urandom(4).hex()}{TEMP_SUFFIX}")
        try:
            os.link(self.path, kept)
        except OSError:  # a file system without hard links: appends are still carried over
            return
        self.kept = kept
        if os.stat(kept).st_ino != os.fstat(self.fd).st_ino:
            raise Stale(f"{self.display}: replaced on disk since it was read; nothing written")

    def settle(self, mode: int) -> bytes:
        """After the rename: undo it if a writer opened the old file meanwhile, else carry over what
        was appended to the old file since the check; the old file's bytes."""
        if self.kept:
            time.sleep(0.001)  # an open that found the old file just before the rename reaches the lease by now
            if fcntl.fcntl(self.fd, fcntl.F_GETLEASE) != fcntl.F_RDLCK:
                os.replace(self.kept, self.path)
                self.kept = None
                raise Stale(f"{self.display}: opened for writing by another process while being written; put back, nothing written")
        before = _read_all(self.fd)
        if sha256(before[: self.size]) != self.digest:
            replace_atomically(self.path, before, mode)
            raise Stale(f"{self.display}: rewritten by another process while it was being written; left as that process wrote it")
        if late := before[self.size:]:
            with open(self.path, "ab") as handle:
                handle.write(late)
        return before

    def close(self) -> None:
        if self.kept:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.kept)
            self.kept = None
        if self.fd >= 0:
            os.close(self.fd)  # which releases the lease
            self.fd = -1


def _read_lease(fd: int, display: str) -> bool:
    """Whether a read lease was taken on `fd`; Stale while another process keeps the file open
    for writing. The break of the lease is signalled with SIGURG, which is ignored, not with
    SIGIO, which would end the process."""
    deadline = time.monotonic() + 0.2
    fcntl.fcntl(fd, fcntl.F_SETSIG, signal.SIGURG)
    while True:
        try:
            fcntl.fcntl(fd, fcntl.F_SETLEASE, fcntl.F_RDLCK)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise Stale(f"{display}: open for writing by another process; nothing written") from None
            time.sleep(0.002)
        except OSError:  # no leases here (another owner without CAP_LEASE, a network file system)
            return False


def _read_all(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def replace_checked(replaced: ReplacedFile, data: bytes, mode: int) -> bytes:
    """Replace the file with `data` if it is still as read; the bytes it replaced."""
    if not mode & 0o222 or not os.access(replaced.path, os.W_OK):  # as editors do, for root too
        raise WriteFailed(f"{replaced.display}: read-only (mode {mode:04o}); the file is unchanged")
    try:
        replace_atomically(replaced.path, data, mode, before_rename=replaced.check)
        return replaced.settle(mode)
    except OSError as error:
        raise WriteFailed(f"{replaced.display}: cannot write ({error.strerror or error}); the file is unchanged") from None
    finally:
        replaced.close()


def replace_atomically(path: Path, data: bytes, mode: int, before_rename: Callable[[], None] | None = None) -> None:
    """`path` holds `data`, whole, or is unchanged. `before_rename` (a staleness check) runs
    after the new bytes are on disk, immediately before the rename."""
    remove_abandoned_temps(path)
    temp = _written_aside(path, data, mode)
    try:
        if os.geteuid() == 0 and path.exists():
            info = path.stat()
            os.chown(temp, info.st_uid, info.st_gid)
        if before_rename:
            before_rename()
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def create_exclusively(path: Path, data: bytes, display: str) -> None:
    """A new file, complete or absent: written aside, then linked in only if the name is still free."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = _written_aside(path, data, 0o666 & ~_umask())
    try:
        os.link(temp, path)
    except FileExistsError:
        raise Stale(f"{display}: created by someone else meanwhile; nothing written") from None
    except OSError as error:
        raise WriteFailed(f"{display}: cannot create ({error.strerror or error})") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)


def write_new_text(path: Path, text: str) -> None:
    """Atomically write a UTF-8 file the gateway owns (configuration it installs), keeping its mode."""
    mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else 0o644
    replace_atomically(path, text.encode("utf-8"), mode)


def _written_aside(path: Path, data: bytes, mode: int) -> str:
    """A temporary file next to `path` holding `data` on disk, with `mode`; removed if writing fails.
    Its name carries the writer's pid, so that one left by a killed writer can be told apart."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f"{_temp_prefix(path)}{os.getpid()}-", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return temp


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.gw"


def remove_abandoned_temps(path: Path) -> None:
    """Remove the temporary files of writes to `path` whose process is gone (killed mid-write)."""
    prefix = _temp_prefix(path)
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n.endswith(TEMP_SUFFIX)]
    except OSError:
        return
    for name in names:
        pid = name[len(prefix):].partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            with contextlib.suppress(OSError):
                os.unlink(path.parent / name)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
