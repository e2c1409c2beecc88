"""Pure: a text's whole list of definitions after an edit, from the list before it and a fresh
look at the edited window only.

Outside the bytes where an incremental parse says the syntax changed, every character has the
same ancestors in both trees, so a definition wholly before the window is the one before the
edit and one wholly after it is that one moved by the edit's length (and line count).
Definitions that meet the window, which include every one enclosing it, are found again.
Name paths are then rebuilt from the nesting, since an enclosing definition in the window
may have been renamed.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, bisect_right
from operator import attrgetter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gateway.bounded import Bounded

Self = TypeVar("Self", bound="Located")


class Located(Protocol):
    @property
    def start_byte(self) -> int: ...

    @property
    def end_byte(self) -> int: ...

    @property
    def name_start_byte(self) -> int: ...

    @property
    def name_path(self) -> str: ...

    def shifted(self: Self, by: int, lines: int) -> Self: ...

    def renamed(self: Self, name_path: str) -> Self: ...


D = TypeVar("D", bound=Located)


@dataclass(frozen=True)
class TextEdit:
    """Bytes [start, old_end) of the old text became [start, new_end) of the new; `lines`: how
    many more line breaks the new text has."""

    start: int
    old_end: int
    new_end: int
    lines: int

    @property
    def shift(self) -> int:
        return self.new_end - self.old_end


@dataclass(frozen=True)
class _Nesting:
    """How a kept list nests: each definition's name path below the one that holds it, the
    outermost ones (`tops`: index, start, end; none overlaps the next), and whether every name
    path is its holder's plus that own part (`regular`: then renaming from the nesting changes
    nothing where the nesting did not change)."""

    names: list[str]
    tops: list[int]
    top_starts: list[int]
    top_ends: list[int]
    regular: bool


def _nesting(definitions: Sequence[Located]) -> _Nesting:
    """Each definition's name path below the definition that encloses it (as found: in order,
    an enclosing one first, nesting by extent), and the outermost ones."""
    names: list[str] = []
    tops: list[int] = []
    regular = True
    stack: list[Located] = []
    for at, definition in enumerate(definitions):
        while stack and stack[-1].end_byte < definition.end_byte:
            stack.pop()
        path = definition.name_path
        if stack:
            prefix = stack[-1].name_path + "/"
            regular = regular and path.startswith(prefix)
            names.append(path[len(prefix) :] if path.startswith(prefix) else path)
        else:
            regular = regular and not (tops and definition.start_byte < definitions[tops[-1]].end_byte)
            names.append(path)
            tops.append(at)
        stack.append(definition)
    return _Nesting(names, tops, [definitions[i].start_byte for i in tops], [definitions[i].end_byte for i in tops], regular)


def _own_names(definitions: Sequence[Located]) -> list[str]:
    return _nesting(definitions).names


# By list (held, so its id is not reused), bounded by the bytes of text the lists cover: between
# a daemon's requests (`settle_all`) only the newest long one's is kept.
_kept_nesting: Bounded[int, tuple[Sequence[Located], _Nesting]] = Bounded(8)


def _nesting_of_kept(definitions: Sequence[Located]) -> _Nesting:
    """`_nesting` of a list that is kept (a tree's whole list), worked out once per list."""
    found = _kept_nesting.get(id(definitions))
    if found is None or found[0] is not definitions:
        return _keep_nesting(definitions, _nesting(definitions))
    return found[1]


def _keep_nesting(definitions: Sequence[Located], nesting: _Nesting) -> _Nesting:
    _kept_nesting.put(id(definitions), (definitions, nesting), nesting.top_ends[-1] if nesting.top_ends else 0)
    return nesting


def named_within(definitions: Sequence[D], low: int, high: int) -> list[D]:
    """The definitions of a kept list (in order, an enclosing one first) whose names start
    within [low, high): looked for from the outermost definition that holds `low` on, not over
    the whole list."""
    nesting = _nesting_of_kept(definitions)
    first = 0
    if nesting.regular:
        top = bisect_right(nesting.top_starts, low) - 1
        holds = top >= 0 and nesting.top_ends[top] > low  # a definition that starts before `low` may name itself after it
        first = nesting.tops[top] if holds else bisect_left(definitions, low, key=attrgetter("start_byte"))
    last = bisect_left(definitions, high, key=attrgetter("start_byte"), lo=first)
    return [d for d in definitions[first:last] if low <= d.name_start_byte < high]


def merged(before: Sequence[D], window: Sequence[D], low: int, high: int, edit: TextEdit, part: tuple[int, int] | None = None) -> list[D]:
    """The new text's definitions: `before` (the old text's whole list, as kept) outside
    [low, high] of the new text, `window` (the new text's that meet it) inside. `part`: only
    `before[i:j]`, a run that nothing outside it encloses."""
    nesting = _nesting_of_kept(before)
    if part is not None:
        return _renested(before[part[0] : part[1]], nesting.names[part[0] : part[1]], window, low, high, edit)
    # The outermost definitions wholly before the window and what the window holds, and those
    # wholly after it, keep their name paths (nothing that holds them changed): the first as
    # they are, the others moved; only those between are nested again.
    reach_low = min(low, window[0].start_byte) if window else low
    reach_high = max([high, *(d.end_byte for d in window)]) - edit.shift
    first = bisect_left(nesting.top_ends, reach_low)
    last = bisect_right(nesting.top_starts, reach_high)
    if not nesting.regular or last < first:
        return _renested(before, nesting.names, window, low, high, edit)
    head = nesting.tops[first] if first < len(nesting.tops) else len(before)
    tail = nesting.tops[last] if last < len(nesting.tops) else len(before)
    moved = [d.shifted(edit.shift, edit.lines) for d in before[tail:]] if edit.shift or edit.lines else list(before[tail:])
    middle = _renested(before[head:tail], nesting.names[head:tail], window, low, high, edit)
    result = [*before[:head], *middle, *moved]
    inner = _nesting(middle)
    if inner.regular:  # the new list's nesting, from the old one's: the next edit's derivation starts from it
        after = len(middle) - (tail - head)
        _keep_nesting(result, _Nesting(
            [*nesting.names[:head], *inner.names, *nesting.names[tail:]],
            [*nesting.tops[:first], *map(head.__add__, inner.tops), *map(after.__add__, nesting.tops[last:])],
            [*nesting.top_starts[:first], *inner.top_starts, *map(edit.shift.__add__, nesting.top_starts[last:])],
            [*nesting.top_ends[:first], *inner.top_ends, *map(edit.shift.__add__, nesting.top_ends[last:])],
            True,
        ))
    return result


def _renested(before: Sequence[D], kept_names: Sequence[str], window: Sequence[D], low: int, high: int, edit: TextEdit) -> list[D]:
    """`merged` over `before`, a run that nothing outside it encloses (with its own names), every
    name path rebuilt from the nesting, since an enclosing definition in the window may have been renamed."""
    high_before = high - edit.shift
    ahead = [(d, n) for d, n in zip(before, kept_names, strict=True) if d.end_byte < low]
    behind = [(d.shifted(edit.shift, edit.lines), n) for d, n in zip(before, kept_names, strict=True) if d.start_byte > high_before]
    fresh = list(zip(window, _own_names(window), strict=True))
    order = heapq.merge(ahead, fresh, behind, key=lambda pair: (pair[0].start_byte, -pair[0].end_byte))
    result: list[D] = []
    stack: list[D] = []
    for definition, own in order:
        while stack and stack[-1].end_byte < definition.end_byte:
            stack.pop()
        path = (stack[-1].name_path + "/" if stack else "") + own
        if path != definition.name_path:
            definition = definition.renamed(path)
        result.append(definition)
        stack.append(definition)
    return result
