"""Pure: definitions a write adds or removes where tree-sitter cannot read the file around it.

Where the file's tree has errors at a changed region (macros a grammar does not know, code the
preprocessor makes valid), the definitions there are invisible to the whole-file comparison on
both sides, so "nothing structural changed" would be a guess. The region's whole lines, before
and after, are then parsed on their own: a definition in one and not the other is added or
removed, and the verdict says that tree-sitter could not read the file there.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tree_sitter import Tree

from gateway.gate.tree_errors import errors_within
from gateway.langs import Language
from gateway.syntax import find_definitions

Span = tuple[int, int]


@dataclass(frozen=True)
class Unseen:
    """A definition found only in the changed lines parsed on their own; `line` in its file."""

    kind: str
    name: str
    line: int
    change: str  # "added" or "removed"


def _lines(source: bytes, start: int, end: int) -> tuple[bytes, int]:
    """The whole lines holding [start, end) (none when it is empty), and the 1-based number of the first."""
    if start >= end:
        return b"", 1
    first = source.rfind(b"\n", 0, start) + 1
    last = source.find(b"\n", max(end - 1, start))
    return source[first : len(source) if last < 0 else last + 1], source.count(b"\n", 0, first) + 1


def _found(lang: Language, chunk: bytes, line: int) -> list[tuple[str, str, int]]:
    return [(d.kind, d.name, line + d.name_line - 1) for d in find_definitions(lang, chunk)]


def unseen(lang: Language, trees: tuple[Tree, Tree], sources: tuple[bytes, bytes], regions: list[tuple[Span, Span]]) -> list[Unseen]:
    """Definitions the changed lines add or remove, where either tree has errors at them."""
    tree_b, tree_a = trees
    before, after = sources
    found: list[Unseen] = []
    for (b0, b1), (a0, a1) in regions:
        if not (errors_within(lang, tree_b, b0, b1) or errors_within(lang, tree_a, a0, a1)):
            continue
        old = _found(lang, *_lines(before, b0, b1))
        new = _found(lang, *_lines(after, a0, a1))
        found += [Unseen(k, n, line, "removed") for k, n, line in _only_in(old, new)]
        found += [Unseen(k, n, line, "added") for k, n, line in _only_in(new, old)]
    return found


def _only_in(first: list[tuple[str, str, int]], second: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """The entries of `first` that `second` does not match one for one (by kind and name)."""
    left = Counter((kind, name) for kind, name, _ in second)
    only = []
    for kind, name, line in first:
        if left[(kind, name)]:
            left[(kind, name)] -= 1
        else:
            only.append((kind, name, line))
    return only
