"""Records read from the gateway's own state files, kept in memory (in the daemon, across hook
calls) while the file's stat says it was not written since, so that a record of a large
workspace is parsed, and its signature checked, once rather than at every hook call.

The stat is (inode, size, mtime, ctime): every state file is written to a new file renamed
over the old one, and a write in place changes the ctime, which no user process can set back.
A value is cached when read (the stat of the opened file, taken before reading it) or when
written by this process (its own bytes, so a file swapped in meanwhile is not trusted either:
only ignored until its stat changes again, and then read and checked). Left open: a write in
place by another process in the same clock tick (a few ms) as this one's read, keeping the size.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Generic, TypeVar

T = TypeVar("T")
Key = tuple[int, int, int, int, int]


def file_key(info: os.stat_result) -> Key:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


class StatCache(Generic[T]):
    """The last values of a few files, each valid while its file's stat (and `tag`, e.g. the
    signing key it was checked with) is the same."""

    def __init__(self, entries: int = 16) -> None:
        self._entries: OrderedDict[str, tuple[Key, object, T]] = OrderedDict()
        self._size = entries
        self._lock = threading.Lock()  # the daemon answers hook calls on several threads

    def get(self, path: Path | str, tag: object = None) -> T | None:
        found = self._entries.get(str(path))
        if found is None:
            return None
        try:
            key = file_key(os.stat(path))
        except OSError:
            return None
        return found[2] if found[0] == key and found[1] == tag else None

    def put(self, path: Path | str, value: T, tag: object = None, info: os.stat_result | None = None) -> None:
        """`value` for the file as it is (`info`: its stat from before it was read)."""
        try:
            key = file_key(info if info is not None else os.stat(path))
        except OSError:
            return
        with self._lock:
            self._entries[str(path)] = (key, tag, value)
            self._entries.move_to_end(str(path))
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


def read_stated(path: Path) -> tuple[bytes, os.stat_result]:
    """The file's bytes and its stat from before they were read (OSError as `open` raises it)."""
    with open(path, "rb") as handle:
        info = os.fstat(handle.fileno())
        return handle.read(), info
