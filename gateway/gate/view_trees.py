"""The preprocessor views of a C or C++ write's text after it (gateway/preprocessor.py), carried
from those of its text before where the change cannot alter them, and the trees of views,
parsed from the tree of the text as written, or of another view of it, where they differ in
few places."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from tree_sitter import Tree

from gateway.langs import Language, Preprocessor
from gateway.preprocessor import (View, blank, both_views, distinct, fragment_macros, fragment_names, fragment_use, prefix_macros, prefix_names,
                                  prefix_use, views)
from gateway.syntax import parse_blanked

Span = tuple[int, int]
_TEXT = re.compile(rb"\S")


def view_tree(lang: Language, source: bytes, view: View, parsed: Sequence[View] = ()) -> Tree:
    """`view`'s tree (a view of `source`), incrementally from `source`'s cached tree or from one
    of the views `parsed` already: the same tree as a parse from scratch."""
    return parse_blanked(lang, view.text, [(source, view.blanked), *((other.text, other.blanked + view.blanked) for other in parsed)])


@dataclass(frozen=True)
class _Window:
    """The lines around a write's change (`start` a line start; `end_before`, `end_after` where
    the same rest of the text starts in each), which nothing the preprocessor reads stands in."""

    start: int
    end_before: int
    end_after: int
    change: tuple[int, int, int]  # the change itself: start, end before, end after

    def moved(self, spans: Sequence[Span]) -> tuple[Span, ...] | None:
        """B's spans as they stand in A: after the window shifted, one holding it stretched;
        None when one ends or starts inside it."""
        delta = self.end_after - self.end_before
        found: list[Span] = []
        for start, end in spans:
            if end <= self.start:
                found.append((start, end))
            elif start >= self.end_before:
                found.append((start + delta, end + delta))
            elif start <= self.start and end >= self.end_before:
                found.append((start, end + delta))
            else:
                return None
        return tuple(found)


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _after_line(source: bytes, offset: int) -> int:
    """The end (its line break, or the text's end) of the line after the one `offset` is in."""
    end = source.find(b"\n", offset)
    end = source.find(b"\n", end + 1) if end >= 0 else -1
    return len(source) if end < 0 else end


def _reads(spec: Preprocessor, source: bytes, low: int, high: int, uses: Sequence[re.Pattern[bytes] | None]) -> bool:
    """Whether the preprocessor's reading of `source` may take anything in the lines [low, high):
    a `#`, a macro line (whose look past its end reaches the first text after `high`), a use
    of a prefix or fragment macro (`uses`: the text's `#define` lines name them, none of which
    is in these lines)."""
    if source.find(b"#", low, high) >= 0:
        return True
    if spec.macro_line.pattern:
        text = _TEXT.search(source, high)
        found = spec.macro_line.search(source, low, text.end() if text is not None else len(source))
        if found is not None and found.start() < high:
            return True
    return any(use is not None and use.search(source, low, high) is not None for use in uses)


@functools.lru_cache(maxsize=2)
def _window(spec: Preprocessor, before: bytes, after: bytes, start: int, end_b: int, end_a: int) -> _Window | None:
    """The lines holding the change [start, end_b) -> [start, end_a), with one more either side
    (above, up to a line with text: a macro line's look past its end stops there, the same in
    both), when no line there is read by the preprocessor nor continues a line above it."""
    line = _line_start(before, start)
    low = _line_start(before, line - 1) if line > 0 else 0
    while 0 < low < line and not before[low:before.find(b"\n", low)].strip():
        low = _line_start(before, low - 1)
    if low > 0 and before[max(low - 3, 0):low - 1].endswith((b"\\", b"\\\r")):
        return None
    high_b = _after_line(before, end_b)
    high_a = high_b + end_a - end_b
    uses = (prefix_use(prefix_names(before)), fragment_use(fragment_names(before)))
    if high_a < end_a or _reads(spec, before, low, high_b, uses) or _reads(spec, after, low, high_a, uses):
        return None
    return _Window(low, high_b, high_a, (start, end_b, end_a))


def _change(regions: Sequence[tuple[Span, Span]]) -> tuple[int, int, int]:
    """The write's regions as one change: from the first's start to the last's end."""
    return min(b0 for (b0, _), _ in regions), max(b1 for (_, b1), _ in regions), max(a1 for _, (_, a1) in regions)


def carry_macros(spec: Preprocessor, before: bytes, after: bytes, regions: Sequence[tuple[Span, Span]]) -> None:
    """A's prefix and fragment macro uses, from B's where the change cannot alter them (the
    same as worked out over A)."""
    if prefix_macros.known(after) is not None and fragment_macros.known(after) is not None:
        return
    window = _window(spec, before, after, *_change(regions))
    if window is None:
        return
    prefix_names.keep((after,), prefix_names(before))
    fragment_names.keep((after,), fragment_names(before))
    for uses in (prefix_macros, fragment_macros):
        moved = window.moved(uses(before))
        if moved is not None:
            uses.keep((after,), moved)


def carry_views(spec: Preprocessor, before: bytes, after: bytes, regions: Sequence[tuple[Span, Span]]) -> None:
    """A's views, from B's where the change cannot alter how the preprocessor reads the rest:
    B's with A's changed text in place (blanked where a view does not take the branch it is
    in), the same views as worked out over A."""
    if views.known(spec, after) is not None:
        return
    window = _window(spec, before, after, *_change(regions))
    if window is None:
        return
    carry_macros(spec, before, after, regions)
    start, end_b, end_a = window.change
    found: list[View] = []
    for view in both_views(spec, before):
        inactive, blanked = window.moved(view.inactive), window.moved(view.blanked)
        if inactive is None or blanked is None:
            return
        changed = bytearray(after[start:end_a])
        if any(s <= window.start and window.end_before <= e for s, e in view.blanked):
            blank(changed, 0, len(changed))
        found.append(View(view.kind, view.text[:start] + bytes(changed) + view.text[end_b:], inactive, blanked))
    both_views.keep((spec, after), tuple(found))
    views.keep((spec, after), distinct(tuple(found)))
