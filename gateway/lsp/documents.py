"""What a session remembers about the documents its server holds: when each was last read from
disk, so that an unchanged file is not read again on every request, and the server's
documentSymbol answer per text (an `Outline`), so that an unchanged file is not asked about again.

Both live in the session, so a server that is replaced (crashed, killed, timed out) starts
with none: its successor is always asked. A kept answer is only given while the server
process is alive (`LspSession.alive`), so a killed server is noticed as if it had been asked.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from gateway.bounded import Bounded
from gateway.syntax import utf8

try:  # hashlib loads OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build has _blake2
    from hashlib import blake2b

Stamp = tuple[int, int, int, int]
# A file modified this recently may be modified again within its file system's timestamp
# granularity without its stamp changing, so it is read again until it has settled.
SETTLED_NS = 2_000_000_000
KEPT_ANSWERS = 32

R = TypeVar("R")


class Outline(Generic[R]):
    """A server's documentSymbol answer about one text, and what was read from it (`read`).
    The answer as decoded is a dict per symbol, range and position: a 50k-line Python file's
    5.8 MiB beside the 1.5 MiB of symbols read from it. It is dropped once read, unless its
    server lists more in it than symbols (`Adapter.lists_macros`: clangd's macro calls)."""

    def __init__(self, reply: Any, keep_reply: bool) -> None:
        self.reply = reply  # None once read, where it is not kept
        self._keep_reply = keep_reply
        self._read: R | None = None
        self._lock = threading.Lock()

    def read(self, reader: Callable[[Any], R]) -> R:
        """What `reader` makes of the answer, made once: the same object every time."""
        with self._lock:
            if self._read is None:
                self._read = reader(self.reply)
                if not self._keep_reply:
                    self.reply = None
            return self._read


def stamp(path: Path) -> Stamp | None:
    """(mtime, ctime, size, inode) of a file whose last change is old enough to tell a later
    one apart; None when it is not (or the file cannot be seen)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - max(info.st_mtime_ns, info.st_ctime_ns) < SETTLED_NS:
        return None
    return info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino


class Documents:
    """Per document (by URI): the stamp of the file when the text last sent was read from it,
    and the server's documentSymbol answers (`Outline`s) by the digest of the text it held."""

    def __init__(self) -> None:
        self._stamps: dict[str, Stamp] = {}
        self._answers: Bounded[tuple[str, bytes], Outline[Any]] = Bounded(KEPT_ANSWERS)  # by text size too: a long file's outline is large
        self._lock = threading.Lock()

    def unchanged(self, uri: str, path: Path) -> tuple[bool, Stamp | None]:
        """Whether the file is as it was when the text sent was read from it, and its stamp now."""
        now = stamp(path)
        with self._lock:
            return now is not None and self._stamps.get(uri) == now, now

    def read_at(self, uri: str, found: Stamp | None) -> None:
        """The text sent for `uri` is the file's as of `found` (None: not known to be)."""
        with self._lock:
            if found is None:
                self._stamps.pop(uri, None)
            else:
                self._stamps[uri] = found

    def changed(self, uri: str) -> None:
        """The server was sent another text for `uri`: what it holds is no longer known to be on
        disk. (Its answers about other documents stand: a document's outline is its own.)"""
        with self._lock:
            self._stamps.pop(uri, None)

    def closed(self, uri: str) -> None:
        with self._lock:
            self._stamps.pop(uri, None)

    def answer(self, uri: str, text: str) -> Outline[Any] | None:
        return self._answers.get((uri, digest(text)))

    def keep(self, uri: str, text: str, reply: Any, keep_reply: bool) -> Outline[Any]:
        """The server's answer about `uri` holding `text`; an empty one is not kept (a server
        still analysing a file may answer [] at first)."""
        outline: Outline[Any] = Outline(reply, keep_reply)
        if reply:
            self._answers.put((uri, digest(text)), outline, len(text))
        return outline


# The last few texts' digests: the same file's is asked for on every request. Bounded by the
# texts' size too: a digest holds its text alive as the key.
_DIGESTS: Bounded[str, bytes] = Bounded(8)


def digest(text: str) -> bytes:
    """A 16-byte digest of `text`, kept for the last few texts."""
    found = _DIGESTS.get(text)
    if found is None:
        found = blake2b(utf8(text), digest_size=16).digest()
        _DIGESTS.put(text, found, len(text))
    return found
