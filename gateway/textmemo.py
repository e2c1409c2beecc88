"""What a pure function makes of a text, kept for the last few texts: one write's texts (before,
after, and the C preprocessor's views of each) are read by several steps of one judgement, and a
warm process judges the next write from the last one's after text."""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from typing import Generic, ParamSpec, TypeVar

from gateway.bounded import Bounded

P = ParamSpec("P")
R = TypeVar("R")

_ENTRIES = 12
_MAX_BYTES = 8 << 20  # of the texts kept (a result holds a text or two more at most), beyond the two newest


class per_text(Generic[P, R]):  # noqa: N801 - used as a decorator
    """`function(*arguments)` (all hashable, texts as bytes; positional only), worked out once
    for the last few arguments. A result is shared: callers never change it."""

    def __init__(self, function: Callable[P, R]) -> None:
        self.function = function
        self._kept: Bounded[tuple[Hashable, ...], R] = Bounded(_ENTRIES, _MAX_BYTES)
        functools.update_wrapper(self, function)

    def __call__(self, *arguments: P.args, **named: P.kwargs) -> R:
        assert not named, "per_text: positional arguments only"
        found = self._kept.get(arguments)
        if found is not None:
            return found
        result = self.function(*arguments, **named)
        self.keep(arguments, result)
        return result

    def known(self, *arguments: Hashable) -> R | None:
        """What is kept for `arguments`, if anything (nothing worked out)."""
        return self._kept.get(arguments)

    def keep(self, arguments: tuple[Hashable, ...], result: R) -> None:
        """Keep what `function(*arguments)` is, worked out another way (from a similar text's)."""
        self._kept.put(arguments, result, sum(len(a) for a in arguments if isinstance(a, bytes)))
