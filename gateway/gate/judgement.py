"""Pure: B's and A's definitions around a write's changed regions, matched by name path and
order: which pairs, which are added, removed or renamed, and whose header changed. The trees
are those of the texts as given (the file itself, or a view of it the preprocessor reads)."""

from __future__ import annotations

import bisect
import functools
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tree_sitter import Tree

from gateway.langs import Language
from gateway.syntax import Definition, common_ends, definitions, edited_tree, header_tokens, parse, widened_range

Span = tuple[int, int]


@functools.lru_cache(maxsize=1)
def _one_region(before: bytes, after: bytes) -> tuple[Span, Span]:
    """Where two texts differ, from the first difference to the last (a routed write's texts are
    compared by the routing and by its verification alike: once)."""
    prefix, suffix = common_ends(before, after)
    return (prefix, len(before) - suffix), (prefix, len(after) - suffix)


class Mapping:
    """Byte offsets of B carried to A through the changed regions (None: inside one)."""

    def __init__(self, regions: Sequence[tuple[Span, Span]]) -> None:
        self.regions = sorted(regions)

    @classmethod
    def between(cls, before: bytes, after: bytes) -> Mapping:
        """The mapping of a write known only by its two texts: one region, from the first
        difference to the last."""
        return cls([_one_region(before, after)])

    def reversed(self) -> Mapping:
        """A's byte offsets carried back to B."""
        return Mapping([(a, b) for b, a in self.regions])

    def __call__(self, offset: int) -> int | None:
        shift = 0
        for (b0, b1), (_, a1) in self.regions:
            if offset < b0:
                return offset + shift
            if offset == b0 == b1:
                return a1
            if offset < b1:
                return None
            shift = a1 - b1
        return offset + shift


def _touches(spans: Iterable[Span], regions: Sequence[Span], ends: Sequence[int]) -> bool:
    """Whether any span meets any region (sorted, disjoint), edges included."""
    for start, end in spans:
        at = bisect.bisect_left(ends, start)
        if at < len(regions) and regions[at][0] <= end:
            return True
    return False


@dataclass
class _Matching:
    pairs: list[tuple[Definition, Definition]] = field(default_factory=list)
    removed: list[Definition] = field(default_factory=list)
    added: list[Definition] = field(default_factory=list)
    renamed: list[tuple[Definition, Definition]] = field(default_factory=list)


def _key(definition: Definition, renames: dict[str, str]) -> str:
    """B's name path with renamed ancestors given their new names."""
    parts = definition.name_path.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        prefix = "/".join(parts[:cut])
        if prefix in renames:
            return renames[prefix] + "/" + "/".join(parts[cut:])
    return definition.name_path


def _pair(defs_b: list[Definition], defs_a: list[Definition], mapping: Mapping, renames: dict[str, str]) -> _Matching:
    """Same name path: the one at the same place first, then in order."""
    by_path: dict[str, list[Definition]] = defaultdict(list)
    for d in defs_a:
        by_path[d.name_path].append(d)
    result, waiting = _Matching(), defaultdict(list)
    for b in defs_b:
        candidates = by_path.get(_key(b, renames), [])
        target = mapping(b.name_start_byte)
        same = next((a for a in candidates if a.name_start_byte == target), None)
        if same is None:
            waiting[_key(b, renames)].append(b)
            continue
        candidates.remove(same)
        result.pairs.append((b, same))
    for path, left in waiting.items():
        candidates = by_path.get(path, [])
        result.pairs += zip(left, candidates[: len(left)])
        result.removed += left[len(candidates) :]
        del candidates[: len(left)]
    result.added = sorted((a for rest in by_path.values() for a in rest), key=lambda d: d.start_byte)
    result.removed.sort(key=lambda d: d.start_byte)
    return result


def _same_place(b: Definition, a: Definition, mapping: Mapping) -> bool:
    end = mapping(b.end_byte - 1)
    return mapping(b.start_byte) == a.start_byte or (end is not None and end + 1 == a.end_byte)


def _match(defs_b: list[Definition], defs_a: list[Definition], mapping: Mapping) -> _Matching:
    """Pairs, removals, additions and renames; a rename's children keep their pairing."""
    renames: dict[str, str] = {}
    total = _Matching()
    left_b, left_a = defs_b, defs_a
    for _ in range(16):
        step = _pair(left_b, left_a, mapping, renames)
        total.pairs += step.pairs
        left_b, left_a = step.removed, step.added
        found = []
        for b in left_b:
            parent = _key(b, renames).rpartition("/")[0]
            a = next((a for a in left_a if a.kind == b.kind and a.name_path.rpartition("/")[0] == parent and _same_place(b, a, mapping)), None)
            if a is not None:
                found.append((b, a))
                left_a = [x for x in left_a if x is not a]
        if not found:
            break
        total.renamed += found
        renames.update({b.name_path: a.name_path for b, a in found})
        left_b = [b for b in left_b if all(b is not r for r, _ in found)]
    total.removed, total.added = left_b, left_a
    return total


@dataclass
class _Judgement:
    """Everything the verdict and its commands need."""

    lang: Language
    tree_b: Tree
    tree_a: Tree
    matching: _Matching
    header: list[tuple[Definition, Definition]]
    swallowed: list[Definition]
    inside: bool
    delta: int
    window_a: Span
    mapping: Mapping

    @property
    def structural(self) -> bool:
        m = self.matching
        return bool(self.header or self.swallowed or m.removed or m.added or m.renamed)


def judge(lang: Language, before: bytes, after: bytes, regions: list[tuple[Span, Span]]) -> _Judgement:
    """B (`before`) and A (`after`) parsed and their definitions matched; `regions` are the
    changed byte spans, (B's, A's)."""
    low = min(b0 for (b0, _), _ in regions)
    high_b, high_a = max(b1 for (_, b1), _ in regions), max(a1 for _, (_, a1) in regions)
    tree_b = parse(lang, before)
    tree_a, changed = edited_tree(lang, tree_b, before, after, low, high_b, high_a)
    delta = high_a - high_b
    start = min([low] + [s for s, _ in changed])
    end_a = max([high_a] + [e for _, e in changed])
    end_a = max(end_a, start + 1)
    # Widened alike on both sides, so a definition outside the change is on both lists or on neither.
    wide_b = widened_range(lang, tree_b, (start, end_a - delta))[1]
    wide_a = widened_range(lang, tree_a, (start, end_a))[1]
    window_a = (start, max(wide_a, wide_b + delta))
    defs_b = definitions(lang, tree_b, (start, window_a[1] - delta))
    defs_a = definitions(lang, tree_a, window_a)
    mapping = Mapping(regions)
    back = mapping.reversed()
    matching = _match(defs_b, defs_a, mapping)
    # A definition the change shrinks (or grows) out of one window is looked up where it starts.
    more_a = _at_starts(lang, tree_a, matching.removed, mapping, defs_a)
    more_b = _at_starts(lang, tree_b, matching.added, back, defs_b)
    if more_a or more_b:
        defs_b = sorted(defs_b + more_b, key=lambda d: (d.start_byte, -d.end_byte))
        defs_a = sorted(defs_a + more_a, key=lambda d: (d.start_byte, -d.end_byte))
        matching = _match(defs_b, defs_a, mapping)
    spans_b, spans_a = sorted(r for r, _ in regions), sorted(r for _, r in regions)
    ends_b, ends_a = [e for _, e in spans_b], [e for _, e in spans_a]
    header, swallowed = [], []
    for b, a in matching.pairs:
        if a.in_error and not b.in_error:
            swallowed.append(b)
        elif b.kind != a.kind or (
            (_touches(b.header_spans, spans_b, ends_b) or _touches(a.header_spans, spans_a, ends_a))
            and header_tokens(tree_b, b) != header_tokens(tree_a, a)
        ):
            header.append((b, a))
    inside = any(_touches([(d.start_byte, d.end_byte)], spans_b, ends_b) for d in defs_b)
    return _Judgement(lang, tree_b, tree_a, matching, header, swallowed, inside, delta, window_a, mapping)


def _at_starts(lang: Language, tree: Tree, unmatched: list[Definition], mapping: Mapping, known: list[Definition]) -> list[Definition]:
    """Definitions of the other side that begin where the unmatched ones begin (mapped)."""
    found: list[Definition] = []
    for d in unmatched:
        at = mapping(d.start_byte)
        if at is None:
            continue
        for other in definitions(lang, tree, (at, at + 1)):
            if other.start_byte == at and other not in known and other not in found:
                found.append(other)
    return found
