"""Parsing with tree-sitter: the cache of the last trees by exact source, incremental
re-parses that remember their base, and what other modules attach to a tree."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any

from tree_sitter import Tree

from gateway.bounded import Bounded
from gateway.edits import common_ends
from gateway.incremental import TextEdit
from gateway.langs import Language
from gateway.syntax.grammars import input_after, parse_input, parser_for

Span = tuple[int, int]


@dataclass
class _Cached:
    tree: Tree
    source: bytes
    # The source this tree was parsed from incrementally (its tree is looked up, never held: a
    # chain of trees would outlive the cache's bound), the byte ranges of this one where the
    # edit or the syntax changed (outside them, every character has the same ancestors in
    # both), and the edit.
    base: tuple[bytes, list[tuple[int, int]], TextEdit] | None = None
    attached: dict[str, Any] = field(default_factory=dict)  # what other modules work out once per tree
    # The base's `attached`, held: what was worked out from the base outlives its tree here
    # (a long file's trees are evicted an edit after they are made), one level deep.
    base_attached: dict[str, Any] | None = None


class _TreeCache:
    """The last parsed trees by (grammar, exact source), each with what is worked out from it
    once (its whole-tree definitions among them): a warm process (the daemon) judges an edit
    without parsing the file it has seen, and the tree of the edit's result, parsed
    incrementally, is the next edit's starting tree.
    Callers never edit a tree they are given. Bounded in number and in source bytes (a tree
    takes some 20 to 100 bytes per byte of source), the two newest trees (an edit's before and
    after) kept whatever their size."""

    def __init__(self, size: int, max_bytes: int) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[tuple[str, bytes], _Cached] = OrderedDict()
        self._by_tree: dict[int, _Cached] = {}  # the entry's tree is held, so its id is not reused meanwhile
        self._lock = threading.Lock()

    def get(self, grammar: str, source: bytes) -> Tree | None:
        with self._lock:
            entry = self._entries.get((grammar, source))
            if entry is None:
                return None
            self._entries.move_to_end((grammar, source))
            return entry.tree

    def put(self, grammar: str, source: bytes, tree: Tree) -> None:
        with self._lock:
            self._put(grammar, source, tree)

    def first(self, grammar: str, source: bytes, tree: Tree) -> Tree:
        """`tree` put, unless another thread has put one for `source` meanwhile: then that one, so
        that both work from one tree (and what is attached to it)."""
        with self._lock:
            entry = self._entries.get((grammar, source))
            if entry is not None:
                return entry.tree
            self._put(grammar, source, tree)
            return tree

    def _put(self, grammar: str, source: bytes, tree: Tree) -> None:
        old = self._entries.pop((grammar, source), None)
        if old is not None:
            del self._by_tree[id(old.tree)]
            self._bytes -= len(source)
        self._entries[(grammar, source)] = self._by_tree[id(tree)] = _Cached(tree, source)
        self._bytes += len(source)
        while len(self._entries) > self.size or (self._bytes > self.max_bytes and len(self._entries) > 2):
            (_, evicted), entry = self._entries.popitem(last=False)
            del self._by_tree[id(entry.tree)]
            self._bytes -= len(evicted)

    def _entry(self, tree: Tree) -> _Cached | None:
        entry = self._by_tree.get(id(tree))
        return entry if entry is not None and entry.tree is tree else None

    def derive(self, grammar: str, tree: Tree, base: bytes, changed: list[tuple[int, int]], edit: TextEdit) -> None:
        with self._lock:
            entry, base_entry = self._entry(tree), self._entries.get((grammar, base))
            if entry is not None:
                entry.base = (base, changed, edit)
                entry.base_attached = base_entry.attached if base_entry is not None else None

    def base(self, grammar: str, tree: Tree) -> tuple[Tree, list[tuple[int, int]], TextEdit] | None:
        """`tree`'s base, when both are cached: the base source's tree now (if it was parsed
        again, the same text's tree: the changed ranges hold for it alike)."""
        with self._lock:
            entry = self._entry(tree)
            if entry is None or entry.base is None:
                return None
            source, changed, edit = entry.base
            old = self._entries.get((grammar, source))
            return (old.tree, changed, edit) if old is not None else None

    def attached_to_base(self, tree: Tree, key: str) -> tuple[Any, list[tuple[int, int]], TextEdit] | None:
        """What was attached under `key` to the tree `tree` was parsed from (whether or not that
        tree is still cached), with `base`'s changed ranges and edit."""
        with self._lock:
            entry = self._entry(tree)
            if entry is None or entry.base is None or entry.base_attached is None or key not in entry.base_attached:
                return None
            return entry.base_attached[key], entry.base[1], entry.base[2]

    def attached(self, tree: Tree, key: str) -> Any:
        with self._lock:
            entry = self._entry(tree)
            return entry.attached.get(key) if entry is not None else None

    def attach(self, tree: Tree, key: str, value: Any) -> None:
        with self._lock:
            entry = self._entry(tree)
            if entry is not None:
                entry.attached[key] = value

_TREES = _TreeCache(16, 2 << 20)


def parse_once(lang: Language, source: bytes) -> Tree:
    """`parse` without keeping the tree in the cache."""
    return _TREES.get(lang.grammar, source) or parser_for(lang.grammar).parse(parse_input(lang, source))


# The last few texts' UTF-8, by text (which the key holds alive too); between a daemon's requests
# only the newest long one's (`settle_all`).
_ENCODED: Bounded[str, bytes] = Bounded(12, 8 << 20)


def utf8(text: str) -> bytes:
    """`text` in UTF-8 (lone surrogates passed through), kept for the last few texts: one
    write's B and A are encoded by the gate, the routing and the verification alike (and the
    same bytes object keeps its hash, which the tree cache's look-ups would otherwise work out
    again over the whole text)."""
    if len(text) < 4096 and text.isascii():
        return text.encode()
    found = _ENCODED.get(text)
    if found is None:
        found = text.encode("utf-8", "surrogatepass")
        _ENCODED.put(text, found, len(found))
    return found


def parse(lang: Language, source: bytes) -> Tree:
    tree = _TREES.get(lang.grammar, source)
    if tree is None:
        tree = _TREES.first(lang.grammar, source, parser_for(lang.grammar).parse(parse_input(lang, source)))
    return tree


_MOST_BLANKED_EDITS = 64  # beyond this many edits, tree-sitter parses a text faster from scratch
_EDIT_GAP = 2048  # blanked spans this close are one edit: fewer, wider edits re-parse faster


def parse_blanked(lang: Language, source: bytes, bases: Sequence[tuple[bytes, Sequence[Span]]]) -> Tree:
    """`parse(source)`, where `source` is one of `bases` with its spans blanked (the same length,
    line breaks kept: a C preprocessor's view of the text, or another view of it): parsed
    incrementally from the cached tree of the base that differs in the fewest spans, one edit
    each, when they are few; the same tree either way."""
    tree = _TREES.get(lang.grammar, source)
    if tree is not None:
        return tree
    best, parsed = None, None
    for base, spans in bases:
        base_tree = _TREES.get(lang.grammar, base) if len(base) == len(source) else None
        if base_tree is None:
            continue
        joined = _joined(spans)
        if parsed is None:
            parsed = input_after(lang, base, source, [(start, end, start, end) for start, end in joined])
        edits = _differing(parse_input(lang, base), parsed, joined)
        if edits is not None and (best is None or len(edits) < len(best[1])):
            best = (base_tree, edits, base)
    if best is None or parsed is None:
        return parse(lang, source)
    edits = _joined(best[1], _EDIT_GAP)
    if len(edits) > _MOST_BLANKED_EDITS:
        return parse(lang, source)
    edited, row, at = best[0].copy(), 0, 0
    for start, end in edits:
        row += parsed.count(b"\n", at, start)
        start_point = (row, start - (parsed.rfind(b"\n", 0, start) + 1))
        row += parsed.count(b"\n", start, end)
        end_point = (row, end - (parsed.rfind(b"\n", 0, end) + 1))
        at = end
        edited.edit(start_byte=start, old_end_byte=end, new_end_byte=end, start_point=start_point, old_end_point=end_point, new_end_point=end_point)
    tree = parser_for(lang.grammar).parse(parsed, edited)
    _TREES.put(lang.grammar, source, tree)
    if edits:  # as one edit over them all (the same length), each blanked span a changed range
        changed = [(r.start_byte, r.end_byte) for r in edited.changed_ranges(tree)] + edits
        _TREES.derive(lang.grammar, tree, best[2], changed, TextEdit(edits[0][0], edits[-1][1], edits[-1][1], 0))
    return tree


def _joined(spans: Sequence[Span], gap: int = 0) -> list[Span]:
    """The spans in order, those that overlap or are at most `gap` bytes apart joined."""
    joined: list[Span] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1] + gap:
            joined[-1] = (joined[-1][0], max(joined[-1][1], end))
        else:
            joined.append((start, end))
    return joined


def _differing(a: bytes, b: bytes, spans: Sequence[Span]) -> list[Span] | None:
    """Those of the spans (in order, apart) where `a` and `b` differ; None when they also differ
    outside them."""
    found, at = [], 0
    for start, end in spans:
        if a[at:start] != b[at:start]:
            return None
        if a[start:end] != b[start:end]:
            found.append((start, end))
        at = end
    return found if a[at:] == b[at:] else None


def _point(source: bytes, offset: int) -> tuple[int, int]:
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def reparse(lang: Language, tree: Tree, before: bytes, after: bytes, start: int, old_end: int, new_end: int) -> Tree:
    """The tree of `after`, which is `before` with [start, old_end) replaced; parsed incrementally."""
    return edited_tree(lang, tree, before, after, start, old_end, new_end)[0]


def edited_tree(
    lang: Language, tree: Tree, before: bytes, after: bytes, start: int, old_end: int, new_end: int
) -> tuple[Tree, list[tuple[int, int]]]:
    """`reparse`, leaving `tree` as it was, with the byte ranges of `after` whose syntax changed.
    The edit is widened over what the grammar is given differently beyond it (a lone CR, or a
    preprocessor rewrite the edit makes or unmakes), so no stale node is reused."""
    parsed = input_after(lang, before, after, [(start, old_end, start, new_end)])
    if parsed is not after or lang.preprocessor is not None:
        start, old_end, new_end = _widened_edit(parse_input(lang, before), parsed, start, old_end, new_end)
    edited = tree.copy()
    edited.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(before, start),
        old_end_point=_point(before, old_end),
        new_end_point=_point(after, new_end),
    )
    new_tree = parser_for(lang.grammar).parse(parsed, edited)
    changed = [(r.start_byte, r.end_byte) for r in edited.changed_ranges(new_tree)]
    _TREES.put(lang.grammar, after, new_tree)
    lines = after.count(b"\n", start, new_end) - before.count(b"\n", start, old_end)
    _TREES.derive(lang.grammar, new_tree, before, [*changed, (start, new_end)], TextEdit(start, old_end, new_end, lines))
    return new_tree, changed


def _widened_edit(before: bytes, after: bytes, start: int, old_end: int, new_end: int) -> tuple[int, int, int]:
    """(start, old_end, new_end) grown to take in every byte where `before` and `after` differ."""
    if before == after:
        return start, old_end, new_end
    prefix, suffix = common_ends(before, after)
    return min(start, prefix), max(old_end, len(before) - suffix), max(new_end, len(after) - suffix)


def parse_from(lang: Language, base: bytes, source: bytes) -> Tree:
    """The tree of `source`, parsed incrementally from the tree of `base` where they differ
    (a text an operation made from another): the result is the same tree as `parse`, and
    what is worked out from it can be carried over from the base's."""
    tree = _TREES.get(lang.grammar, source)
    if tree is not None or base == source:
        return tree or parse(lang, source)
    start, end = common_ends(base, source)
    return edited_tree(lang, parse(lang, base), base, source, start, len(base) - end, len(source) - end)[0]


def base_of(lang: Language, tree: Tree) -> tuple[Tree, list[tuple[int, int]], TextEdit] | None:
    """The tree `tree` was parsed from incrementally (`edited_tree`), the byte ranges of `tree`
    where the edit or the syntax changed (outside them, every character has the same ancestors
    in both trees), and the edit; None when not known (or no longer cached)."""
    return _TREES.base(lang.grammar, tree)


def attached_to_base(lang: Language, tree: Tree, key: str) -> tuple[Any, list[tuple[int, int]], TextEdit] | None:
    """What was attached under `key` to the tree `tree` was parsed from incrementally, with
    `base_of`'s changed ranges and edit; known while `tree` is cached, even once that tree is not."""
    return _TREES.attached_to_base(tree, key)


def changes_since(lang: Language, tree: Tree, base: Tree) -> list[tuple[int, int]] | None:
    """`base_of`'s changed ranges, when `tree` was parsed from `base`."""
    found = _TREES.base(lang.grammar, tree)
    return found[1] if found is not None and found[0] is base else None


def attached(tree: Tree, key: str) -> Any:
    """What was attached to a cached tree under `key` (None: nothing, or not cached). Work
    derived from a tree lives and is let go with it, within the cache's bound."""
    return _TREES.attached(tree, key)


def attach(tree: Tree, key: str, value: Any) -> None:
    _TREES.attach(tree, key, value)
