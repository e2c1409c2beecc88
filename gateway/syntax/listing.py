"""Each tree's whole list of definitions, found once per tree (kept with it in the tree cache),
and for a tree parsed incrementally from one whose list is known, derived from that list: the
window where the syntax changed looked at afresh (gateway.incremental)."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from operator import attrgetter

from tree_sitter import Tree

from gateway.incremental import merged
from gateway.langs import Language
from gateway.syntax.definitions import Definition, _definitions, is_attached, widened_range
from gateway.syntax.trees import attach, attached, base_of, parse


def definitions(lang: Language, tree: Tree, byte_range: tuple[int, int] | None = None) -> list[Definition]:
    """Every definition in the tree, in source order, with its name path from the nesting.

    With `byte_range`, only the definitions that meet it (edges included), and so also every
    definition enclosing it (their name paths need them); `widened_range` first, where
    decorators or attributes attached to a definition may fall inside the range without it.
    `in_error`: an ERROR node swallowed it. A whole tree's list is kept with the tree.
    """
    return _definitions(lang, tree, byte_range) if byte_range is not None else list(_whole(lang, tree))


def kept_definitions(lang: Language, tree: Tree) -> Sequence[Definition]:
    """`definitions(lang, tree)` as kept with the tree (not a copy: read only), so that what is
    worked out per list (gateway.incremental) is found again."""
    return _whole(lang, tree)


def _whole(lang: Language, tree: Tree) -> list[Definition]:
    """The whole tree's definitions, found once per cached tree and language."""
    key = f"definitions/{lang.name}"
    known = attached(tree, key)
    if known is None:
        known = _derived(lang, tree)
        if known is None:
            known = _definitions(lang, tree, None)
        attach(tree, key, known)
    return known


_MOST_SPELLINGS = 64  # a name spelled more often is looked up in the whole list


def definitions_named(lang: Language, tree: Tree, name: str) -> list[Definition]:
    """The tree's definitions named `name` (no `/` in it), in source order, as `definitions` lists
    them: looked for only where the name is spelled, unless the whole list is known or it is
    spelled often."""
    whole = attached(tree, f"definitions/{lang.name}")
    words = name.split()
    spellings = []
    if whole is None and words:
        root = tree.root_node  # its text starts where its first node does
        spellings = [root.start_byte + at for at in _spelled(root.text or b"", name, words)]
    if whole is not None or not words or len(spellings) > _MOST_SPELLINGS:
        return [d for d in _whole(lang, tree) if d.name == name]
    found: dict[tuple[int, str], Definition] = {}
    for at in spellings:
        for d in _definitions(lang, tree, (at, at + 1)):
            if d.name == name and d.name_start_byte <= at < d.name_end_byte:
                found.setdefault((d.start_byte, d.name_path), d)
    return sorted(found.values(), key=lambda d: (d.start_byte, -d.end_byte))


def _spelled(text: bytes, name: str, words: list[str]) -> list[int]:
    """Where `name` (its words apart by any blanks) is spelled in `text`, not inside a longer
    word: the matches `re.finditer` finds, each tried only where the first word stands (a
    pattern led by a look-behind is tried at every byte)."""
    encoded = [word.encode("utf-8", "surrogatepass") for word in words]
    edges = (rb"(?<!\w)" if re.match(r"\w", name) else b"", rb"(?!\w)" if re.search(r"\w$", name) else b"")
    pattern = re.compile(edges[0] + rb"\s+".join(map(re.escape, encoded)) + edges[1])
    found: list[int] = []
    at = text.find(encoded[0])
    while at >= 0 and len(found) <= _MOST_SPELLINGS:
        match = pattern.match(text, at)
        if match is not None:
            found.append(at)
        at = text.find(encoded[0], match.end() if match is not None else at + 1)
    return found


def definitions_near(lang: Language, tree: Tree, byte_range: tuple[int, int]) -> list[Definition]:
    """The definitions that start within `byte_range`, whose edges are between definitions that
    no definition encloses: from the list of the tree it was parsed from, where that is known."""
    found = _derived(lang, tree, byte_range)
    if found is None:
        found = _definitions(lang, tree, byte_range)
    return [d for d in found if byte_range[0] <= d.start_byte < byte_range[1]]


def _derived(lang: Language, tree: Tree, within: tuple[int, int] | None = None) -> list[Definition] | None:
    """The definitions of a tree parsed incrementally from one whose list is known: that
    list outside the changed window, the window looked at afresh (gateway.incremental).
    `within`: only those of that list in this range (`definitions_near`), which holds the change."""
    found = base_of(lang, tree)
    if found is None:
        return None
    base, changed, edit = found
    before = attached(base, f"definitions/{lang.name}")
    if before is None or tree.root_node.has_error or base.root_node.has_error:
        return None
    low, high = min([edit.start] + [s for s, _ in changed]), max([edit.new_end] + [e for _, e in changed])
    low = _attributes_before(lang, tree, low)
    high = _reach(tree, low, high)
    while True:  # reaching a node may reach an attribute whose definition lies past it
        wide = (max(low - 1, 0), high + 1)  # decorators that only touch the window too
        ends = (widened_range(lang, tree, wide)[1], widened_range(lang, base, (wide[0], wide[1] - edit.shift))[1] + edit.shift)
        grown = _reach(tree, low, max([high, *(end for end in ends if end > wide[1])]))
        if grown == high:
            part = None
            if within is not None:
                start = attrgetter("start_byte")
                part = (bisect_left(before, within[0], key=start), bisect_left(before, within[1] - edit.shift, key=start))
            return merged(before, _definitions(lang, tree, (low, high)), low, high, edit, part)
        high = grown


def _attributes_before(lang: Language, tree: Tree, low: int) -> int:
    """`low`, or the start of the attributes that end before it with only blanks and comments
    between: the edit may have handed them to a definition past it, or taken them from one, so
    the window takes them in (and `widened_range` then the definition they now belong to)."""
    if not lang.attached_before:
        return low
    source = tree.root_node.text or b""
    at, first = len(source[:low].rstrip()), low
    while at > 0:
        node, ending = tree.root_node.descendant_for_byte_range(at - 1, at - 1), []
        while node is not None and node.end_byte == at:
            ending.append(node)
            node = node.parent
        kept = next((n for n in ending if is_attached(lang, n) or "comment" in n.type), None)
        if kept is None:
            break
        if is_attached(lang, kept):
            first = kept.start_byte
        at = len(source[: kept.start_byte].rstrip())
    return min(first, low)


def _reach(tree: Tree, low: int, high: int) -> int:
    """`high`, or the end of the largest node that starts in [low, high] and holds it: a query
    bounded at `high` misses a definition starting there whose name comes after."""
    node = tree.root_node.descendant_for_byte_range(high, high)
    while node is not None and node.parent is not None and node.parent.start_byte >= low:
        node = node.parent
    return max(high, node.end_byte) if node is not None and node.start_byte >= low else high


def find_definitions(lang: Language, source: bytes) -> list[Definition]:
    return definitions(lang, parse(lang, source))
