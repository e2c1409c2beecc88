"""What a pure function makes of a text, kept for the last few texts: one write's texts (before,
after, and the C preprocessor's views of each) are read by several steps of one judgement, and a
warm process judges the next write from the last one's after text."""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_ENTRIES = 12
_MAX_BYTES = 16 << 20  # of the texts kept, beyond the two newest


def per_text(function: Callable[P, R]) -> Callable[P, R]:
    """`function(*arguments)` (all hashable, texts as bytes; positional only), worked out once
    for the last few arguments. A result is shared: callers never change it."""
    kept: OrderedDict[tuple[Hashable, ...], tuple[int, R]] = OrderedDict()
    lock = threading.Lock()
    held = [0]

    @functools.wraps(function)
    def memo(*arguments: P.args, **named: P.kwargs) -> R:
        assert not named, "per_text: positional arguments only"
        with lock:
            found = kept.get(arguments)
            if found is not None:
                kept.move_to_end(arguments)
                return found[1]
        result = function(*arguments)
        size = sum(len(a) for a in arguments if isinstance(a, bytes))
        with lock:
            if arguments not in kept:
                kept[arguments] = (size, result)
                held[0] += size
            while len(kept) > _ENTRIES or (held[0] > _MAX_BYTES and len(kept) > 2):
                held[0] -= kept.popitem(last=False)[1][0]
        return result

    return memo
