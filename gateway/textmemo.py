"""What a pure function makes of a text, kept for the last few texts: one write's texts (before,
after, and the C preprocessor's views of each) are read by several steps of one judgement, and a
warm process judges the next write from the last one's after text."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_ENTRIES = 12
_MAX_BYTES = 8 << 20  # of the texts kept (a result holds a text or two more at most), beyond the two newest


class per_text(Generic[P, R]):  # noqa: N801 - used as a decorator
    """`function(*arguments)` (all hashable, texts as bytes; positional only), worked out once
    for the last few arguments. A result is shared: callers never change it."""

    def __init__(self, function: Callable[P, R]) -> None:
        self.function = function
        self._kept: OrderedDict[tuple[Hashable, ...], tuple[int, R]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()
        functools.update_wrapper(self, function)

    def __call__(self, *arguments: P.args, **named: P.kwargs) -> R:
        assert not named, "per_text: positional arguments only"
        with self._lock:
            found = self._kept.get(arguments)
            if found is not None:
                self._kept.move_to_end(arguments)
                return found[1]
        result = self.function(*arguments, **named)
        self.keep(arguments, result)
        return result

    def known(self, *arguments: Hashable) -> R | None:
        """What is kept for `arguments`, if anything (nothing worked out)."""
        with self._lock:
            found = self._kept.get(arguments)
            return None if found is None else found[1]

    def keep(self, arguments: tuple[Hashable, ...], result: R) -> None:
        """Keep what `function(*arguments)` is, worked out another way (from a similar text's)."""
        size = sum(len(a) for a in arguments if isinstance(a, bytes))
        with self._lock:
            if arguments not in self._kept:
                self._kept[arguments] = (size, result)
                self._held += size
            while len(self._kept) > _ENTRIES or (self._held > _MAX_BYTES and len(self._kept) > 2):
                self._held -= self._kept.popitem(last=False)[1][0]
