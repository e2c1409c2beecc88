"""Lifting: the net effect B → A of a write, as symbol operations on whole definitions.

Every changed region is widened until it cuts no definition in two, on either side: the
region then lies in one container (a definition, or the file) and covers whole children
of it. In that span, children of B missing from A are removed, children of A missing
from B are inserted beside a sibling, children whose text changed are replaced, and a
change to the container's own text (its header, a statement between its children) makes
the container itself the replaced definition; at file level that is a plain text change.
Each widened span becomes one patch: B's text in it replaced by A's. Applying every patch
gives A byte for byte.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gateway.symbols.model import Symbol

Tool = Literal["replace_symbol", "insert_code", "remove_symbol", "text"]
Span = tuple[int, int]


@dataclass(frozen=True)
class LiftedOperation:
    """One operation: `symbol` is B's definition (for an insertion, the sibling it goes beside;
    None: the file); `result` is A's definition that replaces it or is inserted."""

    tool: Tool
    symbol: Symbol | None
    result: Symbol | None = None
    position: str = ""
    renamed_to: str | None = None


@dataclass
class Patch:
    """B's characters [before) become A's characters [after)."""

    before: Span
    after: Span
    operations: list[LiftedOperation] = field(default_factory=list)
    regions: tuple[int, int] = (0, 0)


def _block(symbol: Symbol) -> Span:
    return symbol.doc_start, symbol.end


def _parents(symbols: Sequence[Symbol]) -> dict[int, Symbol | None]:
    """Each symbol's innermost enclosing symbol, by extent (None: the file)."""
    parent: dict[int, Symbol | None] = {}
    stack: list[Symbol] = []
    for symbol in sorted(symbols, key=lambda s: (s.doc_start, -s.end)):
        while stack and not (stack[-1].doc_start <= symbol.doc_start and symbol.end <= stack[-1].end):
            stack.pop()
        parent[id(symbol)] = stack[-1] if stack else None
        stack.append(symbol)
    return parent


def _cuts(block: Span, span: Span) -> bool:
    """Whether `span` cuts `block`: they overlap and neither holds the other."""
    (b0, b1), (s0, s1) = block, span
    if s0 == s1:
        return False
    overlaps = b0 < s1 and s0 < b1
    return overlaps and not (s0 <= b0 and b1 <= s1) and not (b0 <= s0 and s1 <= b1)


def _holds(block: Span, span: Span) -> bool:
    """Whether `block` strictly holds `span` (an empty one: after its start, up to its end)."""
    (b0, b1), (s0, s1) = block, span
    if s0 == s1:
        return b0 < s0 <= b1
    return b0 <= s0 and s1 <= b1 and (b0, b1) != (s0, s1)


class _Alignment:
    """The changed regions (sorted, disjoint) and spans of B and A that stay aligned through them."""

    def __init__(self, regions: Sequence[tuple[Span, Span]]) -> None:
        self.regions = sorted(regions)

    def widen(self, first: int, last: int, before: Span, after: Span | None = None) -> tuple[int, int, Span]:
        """Regions first..last grown to take in `before` (B) and `after` (A), and every region they touch."""
        regions = self.regions
        lo, hi = min(before[0], regions[first][0][0]), max(before[1], regions[last][0][1])
        if after is not None:
            lo, hi = min(lo, self._to_b(first, after[0], True)), max(hi, self._to_b(last, after[1], False))
        while True:
            moved = False
            while first > 0 and regions[first - 1][0][1] > lo:
                first, moved = first - 1, True
                lo = min(lo, regions[first][0][0])
            while last + 1 < len(regions) and regions[last + 1][0][0] < hi:
                last, moved = last + 1, True
                hi = max(hi, regions[last][0][1])
            if after is not None:
                while first > 0 and regions[first - 1][1][1] > after[0]:
                    first, moved = first - 1, True
                    lo = min(lo, regions[first][0][0])
                while last + 1 < len(regions) and regions[last + 1][1][0] < after[1]:
                    last, moved = last + 1, True
                    hi = max(hi, regions[last][0][1])
                lo, hi = min(lo, self._to_b(first, after[0], True)), max(hi, self._to_b(last, after[1], False))
            if not moved:
                return first, last, (lo, hi)

    def _to_b(self, index: int, offset: int, start: bool) -> int:
        (b0, b1), (a0, a1) = self.regions[index]
        if start:
            return b0 if offset >= a0 else offset - (a0 - b0)
        return b1 if offset <= a1 else offset - (a1 - b1)

    def after(self, first: int, last: int, before: Span) -> Span:
        (b0, _), (a0, _) = self.regions[first]
        (_, b1), (_, a1) = self.regions[last]
        return before[0] + (a0 - b0), before[1] + (a1 - b1)


@dataclass
class _Group:
    first: int
    last: int
    before: Span
    after: Span


class _Side:
    """One text's symbols with their containers."""

    def __init__(self, text: str, symbols: Sequence[Symbol]) -> None:
        self.text = text
        self.symbols = list(symbols)
        self.parent = _parents(self.symbols)

    def cut_by(self, span: Span) -> list[Symbol]:
        return [s for s in self.symbols if _cuts(_block(s), span)]

    def container(self, span: Span, like: list[str] | None = None) -> Symbol | None:
        """The innermost definition holding `span`. An empty span may also sit after a
        definition's end with only whitespace between: it is held by the one whose chain is
        `like` (the other side's container), if any is."""
        holding = sorted((s for s in self.symbols if _holds(_block(s), span)), key=lambda s: (s.doc_start, -s.end))
        if span[0] == span[1] and like:
            at = gap = span[0]
            while gap > 0 and self.text[gap - 1].isspace():  # what str.strip() takes: only whitespace since `gap`
                gap -= 1
            near = [s for s in self.symbols if s.doc_start < at and s.end >= gap]  # it reaches `at`, or ends in that whitespace
            alike = sorted((s for s in near if self.chain(s) == like), key=lambda s: (s.doc_start, -s.end))
            if alike:
                return alike[-1]
        return holding[-1] if holding else None

    def children(self, container: Symbol | None, span: Span) -> list[Symbol]:
        return [
            s for s in self.symbols
            if self.parent[id(s)] is container and span[0] <= s.doc_start and s.end <= span[1]
        ]

    def chain(self, symbol: Symbol | None) -> list[str]:
        names = []
        while symbol is not None:
            names.append(f"{symbol.kind}:{symbol.name}")
            symbol = self.parent[id(symbol)]
        return names

    def residue(self, span: Span, children: list[Symbol]) -> str:
        """The span's text outside its children, whitespace dropped."""
        parts, cursor = [], span[0]
        for child in sorted(children, key=lambda s: s.doc_start):
            parts.append(self.text[cursor : child.doc_start])
            cursor = child.end
        parts.append(self.text[cursor : span[1]])
        return "".join("".join(parts).split())


def _close(alignment: _Alignment, b: _Side, a: _Side, group: _Group) -> tuple[_Group, Symbol | None, Symbol | None]:
    """The group widened until it cuts nothing, with its container on each side."""
    while True:
        cut_b = b.cut_by(group.before)
        cut_a = a.cut_by(group.after)
        container_b, container_a = _containers(b, a, group.before, group.after)
        if not cut_b and not cut_a and b.chain(container_b) != a.chain(container_a):
            # The containers do not correspond: the change takes the definitions themselves.
            cut_b, cut_a = [c for c in (container_b,) if c], [c for c in (container_a,) if c]
        if not cut_b and not cut_a:
            return group, container_b, container_a
        grow_b = (min([group.before[0]] + [s.doc_start for s in cut_b]), max([group.before[1]] + [s.end for s in cut_b]))
        grow_a = (min([group.after[0]] + [s.doc_start for s in cut_a]), max([group.after[1]] + [s.end for s in cut_a]))
        first, last, before = alignment.widen(group.first, group.last, grow_b, grow_a)
        group = _Group(first, last, before, alignment.after(first, last, before))


def _key(symbol: Symbol) -> str:
    return f"{symbol.kind}:{symbol.name}"


class _Anchors:
    """Where an added definition goes: after the nearest earlier sibling B already has, else
    before the nearest later one, else at the file's end; None inside a definition with no kept child."""

    def __init__(self, b: _Side, container: Symbol | None, span: Span) -> None:
        kept = [s for s in b.children(container, _block(container) if container else (0, len(b.text))) if not (span[0] <= s.doc_start and s.end <= span[1])]
        self.earlier = [s for s in kept if s.end <= span[0]]
        self.later = [s for s in kept if s.doc_start >= span[1]]
        self.container = container

    def place(self, last_kept: Symbol | None, next_kept: Symbol | None) -> tuple[Symbol | None, str] | None:
        previous = last_kept or (self.earlier[-1] if self.earlier else None)
        if previous is not None:
            return previous, "after"
        following = next_kept or (self.later[0] if self.later else None)
        if following is not None:
            return following, "before"
        return (None, "after") if self.container is None else None


def _pairs(olds: list[Symbol], news: list[Symbol]) -> list[tuple[Symbol | None, Symbol | None]]:
    """B's and A's children aligned: same kind and name in order; equal-sized runs of others pair as renames."""
    keys_b, keys_a = [_key(s) for s in olds], [_key(s) for s in news]
    matcher = difflib.SequenceMatcher(None, keys_b, keys_a, autojunk=False)
    names_b, names_a = set(keys_b), set(keys_a)
    aligned: list[tuple[Symbol | None, Symbol | None]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            aligned += zip(olds[i1:i2], news[j1:j2])
        elif tag == "replace" and i2 - i1 == j2 - j1 and all(o.kind == n.kind for o, n in zip(olds[i1:i2], news[j1:j2])):
            for old, new in zip(olds[i1:i2], news[j1:j2]):  # not a rename where a name stays (moved) or was there
                moved = _key(old) in names_a or _key(new) in names_b
                aligned += [(old, None), (None, new)] if moved else [(old, new)]
        else:
            aligned += [(old, None) for old in olds[i1:i2]] + [(None, new) for new in news[j1:j2]]
    return aligned


def _operations(b: _Side, a: _Side, group: _Group, container: Symbol | None, container_a: Symbol | None) -> list[LiftedOperation] | None:
    """The group's operations; None when they cannot be told apart from a change to the container."""
    olds, news = b.children(container, group.before), a.children(container_a, group.after)
    own_text = b.residue(group.before, olds) != a.residue(group.after, news)
    if own_text and container is not None:
        return None
    aligned = _pairs(olds, news)
    anchors = _Anchors(b, container, group.before)
    operations: list[LiftedOperation] = []
    last_kept: Symbol | None = None
    for at, (old, new) in enumerate(aligned):
        if old is not None and new is not None:
            if b.text[old.doc_start : old.end] != a.text[new.doc_start : new.end] or old.name != new.name:
                operations.append(LiftedOperation("replace_symbol", old, new, renamed_to=new.name_path if old.name != new.name else None))
            last_kept = old
        elif old is not None:
            operations.append(LiftedOperation("remove_symbol", old))
        elif new is not None:
            next_kept = next((o for o, n in aligned[at + 1 :] if o is not None and n is not None), None)
            place = anchors.place(last_kept, next_kept)
            if place is None:
                return None
            operations.append(LiftedOperation("insert_code", place[0], new, position=place[1]))
    if own_text or not operations:
        operations.append(LiftedOperation("text", None))
    return operations


def _settle(alignment: _Alignment, b: _Side, a: _Side, group: _Group) -> Patch:
    """The group closed and widened (`_settled`), and grown over the namesakes that show a rename in it misread."""
    while True:
        patch = _settled(alignment, b, a, group)
        grown = _namesakes_taken_in(alignment, b, a, patch)
        if grown is None:
            return patch
        group = grown


def _settled(alignment: _Alignment, b: _Side, a: _Side, group: _Group) -> Patch:
    """The group closed, widened to its container for as long as the container's own text changed."""
    group, container_b, container_a = _close(alignment, b, a, group)
    operations = _operations(b, a, group, container_b, container_a)
    while operations is None and container_b is not None:
        first, last, span = alignment.widen(group.first, group.last, _block(container_b))
        group, container_b, container_a = _close(alignment, b, a, _Group(first, last, span, alignment.after(first, last, span)))
        operations = _operations(b, a, group, container_b, container_a)
    return Patch(group.before, group.after, operations or [LiftedOperation("text", None)], (group.first, group.last))


def _slid(b: _Side, a: _Side, regions: Sequence[tuple[Span, Span]], reach: int = 256) -> list[tuple[Span, Span]]:
    """Pure insertions and deletions moved, where the text allows, to where both sides agree on the container.

    A line inserted after a method's last line may be diffed as inserted after its newline:
    the same text, but outside the method on one side and inside the class on the other.
    """
    result = []
    for (b0, b1), (a0, a1) in regions:
        if (b0 == b1) == (a0 == a1):
            result.append(((b0, b1), (a0, a1)))
            continue
        moved, text = [], (a.text, a0, a1) if b0 == b1 else (b.text, b0, b1)
        other = b.text if b0 == b1 else a.text
        here = b0 if b0 == b1 else a0
        source, start, end = text
        for step in range(1, reach):
            if here - step < 0 or start - step < 0 or other[here - step] != source[end - step]:
                break
            moved.append(-step)
        for step in range(0, reach - 1):
            if here + step >= len(other) or start + step >= len(source) or other[here + step] != source[start + step]:
                break
            moved.append(step + 1)
        candidates = [((b0 + d, b1 + d), (a0 + d, a1 + d)) for d in [0] + sorted(moved, key=abs)]
        result.append(next((c for c in candidates if _agree(b, a, c)), candidates[0]))
    return result


def _containers(b: _Side, a: _Side, span_b: Span, span_a: Span) -> tuple[Symbol | None, Symbol | None]:
    if span_b[0] == span_b[1]:
        container_a = a.container(span_a)
        return b.container(span_b, a.chain(container_a)), container_a
    container_b = b.container(span_b)
    return container_b, a.container(span_a, b.chain(container_b))


def _agree(b: _Side, a: _Side, region: tuple[Span, Span]) -> bool:
    span_b, span_a = region
    container_b, container_a = _containers(b, a, span_b, span_a)
    return not b.cut_by(span_b) and not a.cut_by(span_a) and b.chain(container_b) == a.chain(container_a)


def _namesake(side: _Side, symbol: Symbol, name: str) -> Symbol | None:
    """The sibling of `symbol` on `side` (same container, same kind) called `name`."""
    parent = side.parent[id(symbol)]
    return next((s for s in side.symbols if s.name == name and s.kind == symbol.kind and s is not symbol and side.parent[id(s)] is parent), None)


def _spanning(span: Span, symbol: Symbol | None) -> Span:
    return span if symbol is None else (min(span[0], symbol.doc_start), max(span[1], symbol.end))


def _namesakes_taken_in(alignment: _Alignment, b: _Side, a: _Side, patch: Patch) -> _Group | None:
    """The patch's group grown over the namesake that shows a rename in it misread; None if none does.

    Changed regions are lifted one by one, so a definition added above `a` in one region and
    `a`'s own change in the next read as `a` renamed: A still has an `a` beside the new name
    (or B already had the new name), which the patch must take in to pair them by name."""
    for operation in patch.operations:
        old, new = operation.symbol, operation.result
        if operation.renamed_to is None or old is None or new is None:
            continue
        kept, taken = _namesake(a, new, old.name), _namesake(b, old, new.name)
        grow_b, grow_a = _spanning(patch.before, taken), _spanning(patch.after, kept)
        if (grow_b, grow_a) == (patch.before, patch.after):
            continue
        first, last, span = alignment.widen(patch.regions[0], patch.regions[1], grow_b, grow_a)
        return _Group(first, last, span, alignment.after(first, last, span))
    return None


def lift(before: str, symbols_b: Sequence[Symbol], after: str, symbols_a: Sequence[Symbol], regions: Sequence[tuple[Span, Span]]) -> list[Patch]:
    """The patches that turn `before` into `after`, each with its operations."""
    b, a = _Side(before, symbols_b), _Side(after, symbols_a)
    alignment = _Alignment(_slid(b, a, regions))
    patches: list[Patch] = []
    for index, (span_b, span_a) in enumerate(alignment.regions):
        if patches and patches[-1].regions[1] >= index:
            continue
        patches.append(_settle(alignment, b, a, _Group(index, index, span_b, span_a)))
        while len(patches) > 1 and patches[-2].before[1] > patches[-1].before[0]:
            older, newer = patches[-2], patches.pop()
            first, last, span = alignment.widen(older.regions[0], newer.regions[1], (older.before[0], max(older.before[1], newer.before[1])))
            patches[-1] = _settle(alignment, b, a, _Group(first, last, span, alignment.after(first, last, span)))
    return patches
