"""`Bounded`: the last few things worked out from texts, bounded in number and in the characters
of the texts they stand for. What is kept per text (a server's outline, its symbols read and
normalised, a line index) grows with the text: 32 outlines of small files cost little, two of a
50,000-line file tens of MiB. The two newest entries (a write's text before and after) are kept
whatever their size."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

KEPT_CHARS = 4 << 20  # characters of text stood for, across the entries (about two 50k-line files)


class Bounded(Generic[K, V]):
    """A thread-safe LRU mapping of at most `count` entries and `chars` characters of text."""

    def __init__(self, count: int, chars: int = KEPT_CHARS) -> None:
        self.count, self.chars = count, chars
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: K, value: V, chars: int) -> None:
        """Keep `value`, worked out from a text of `chars` characters."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._held -= old[1]
            self._entries[key] = (value, chars)
            self._held += chars
            while len(self._entries) > self.count or (self._held > self.chars and len(self._entries) > 2):
                self._held -= self._entries.popitem(last=False)[1][1]

    def values(self) -> list[V]:
        """What is kept, oldest first."""
        with self._lock:
            return [value for value, _ in self._entries.values()]

    def newest(self) -> V | None:
        with self._lock:
            return next(reversed(self._entries.values()))[0] if self._entries else None
