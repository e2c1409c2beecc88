"""`Bounded`: the last few things worked out from texts, bounded in number and in the characters
of the texts they stand for. What is kept per text (a server's outline, its symbols read and
normalised, a line index) grows with the text: 32 outlines of small files cost little, two of a
50,000-line file tens of MiB. The two newest entries (a write's text before and after) are kept
whatever their size while a request runs; between requests (`settle_all`, the daemon's tidy)
each keeps at most REST_CHARS of text, its newest entry whatever its size: the texts a long
file had before its last write are not current any more, and ten caches keeping one each held
tens of MiB of a daemon at rest."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")

KEPT_CHARS = 4 << 20  # characters of text stood for, across the entries (about two 50k-line files)
REST_CHARS = 1 << 20  # between requests: a 10k-line file's few texts, but one of a 50k-line file

_ALL: weakref.WeakSet[Bounded[object, object]] = weakref.WeakSet()
_all_lock = threading.Lock()


class Bounded(Generic[K, V]):
    """A thread-safe LRU mapping of at most `count` entries and `chars` characters of text."""

    def __init__(self, count: int, chars: int = KEPT_CHARS) -> None:
        self.count, self.chars = count, chars
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        with _all_lock:
            _ALL.add(self)  # type: ignore[arg-type]

    def get(self, key: K) -> V | None:
        with self._lock:
            found = self._entries.pop(key, None)  # and put back last: one look-up (a long text's comparison) rather than two
            if found is None:
                return None
            self._entries[key] = found
            return found[0]

    def put(self, key: K, value: V, chars: int) -> None:
        """Keep `value`, worked out from a text of `chars` characters."""
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._held -= old[1]
            self._entries[key] = (value, chars)
            self._held += chars
            self._evict(self.chars, 2)

    def settle(self, chars: int = REST_CHARS) -> None:
        """Keep at most `chars` characters' worth, the newest entry whatever its size."""
        with self._lock:
            self._evict(chars, 1)

    def _evict(self, chars: int, newest: int) -> None:
        while len(self._entries) > self.count or (self._held > chars and len(self._entries) > newest):
            self._held -= self._entries.popitem(last=False)[1][1]

    def over(self, chars: int) -> bool:
        """Whether `settle(chars)` would let something go."""
        with self._lock:
            return self._held > chars and len(self._entries) > 1

    def values(self) -> list[V]:
        """What is kept, oldest first."""
        with self._lock:
            return [value for value, _ in self._entries.values()]

    def newest(self) -> V | None:
        with self._lock:
            return next(reversed(self._entries.values()))[0] if self._entries else None


def settle_all(chars: int = REST_CHARS) -> None:
    """`settle` every Bounded of this process (a long-lived one, between its requests)."""
    with _all_lock:
        every = list(_ALL)
    for kept in every:
        kept.settle(chars)


def over_rest(chars: int = REST_CHARS) -> bool:
    """Whether any Bounded of this process holds more than `settle_all(chars)` keeps."""
    with _all_lock:
        every = list(_ALL)
    return any(kept.over(chars) for kept in every)
