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
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

Self = TypeVar("Self", bound="Located")


class Located(Protocol):
    @property
    def start_byte(self) -> int: ...

    @property
    def end_byte(self) -> int: ...

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


def _own_names(definitions: Sequence[Located]) -> list[str]:
    """Each definition's name path below the definition that encloses it (as found: in order,
    an enclosing one first, nesting by extent)."""
    names: list[str] = []
    stack: list[Located] = []
    for definition in definitions:
        while stack and stack[-1].end_byte < definition.end_byte:
            stack.pop()
        prefix = stack[-1].name_path + "/" if stack else ""
        path = definition.name_path
        names.append(path[len(prefix) :] if prefix and path.startswith(prefix) else path)
        stack.append(definition)
    return names


_kept_names: dict[int, tuple[Sequence[Located], list[str]]] = {}  # by list (held, so its id is not reused)


def _names_of_kept(definitions: Sequence[Located]) -> list[str]:
    """`_own_names` of a list that is kept (a tree's whole list), worked out once per list."""
    found = _kept_names.get(id(definitions))
    if found is None or found[0] is not definitions:
        if len(_kept_names) >= 8:
            _kept_names.clear()
        found = _kept_names[id(definitions)] = (definitions, _own_names(definitions))
    return found[1]


def merged(before: Sequence[D], window: Sequence[D], low: int, high: int, edit: TextEdit, part: tuple[int, int] | None = None) -> list[D]:
    """The new text's definitions: `before` (the old text's whole list, as kept) outside
    [low, high] of the new text, `window` (the new text's that meet it) inside. `part`: only
    `before[i:j]`, a run that nothing outside it encloses."""
    high_before = high - edit.shift
    kept_names = _names_of_kept(before)
    if part is not None:
        before, kept_names = before[part[0] : part[1]], kept_names[part[0] : part[1]]
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
