"""The syntax errors in a tree as a write is judged on them: tree-sitter's ERROR and MISSING
nodes and the empty nodes a language forbids, less those `uncertain.scm` reads as not errors or
inside a macro's body, kept with the tree (and their readings carried to a tree parsed from it).
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from types import EllipsisType

from tree_sitter import Node, Query, QueryCursor, Tree

from gateway.langs import Language
from gateway.preprocessor import in_macro_body
from gateway.syntax import attach, attached, base_of, empty_query, extra_query

Span = tuple[int, int]


@dataclass(frozen=True)
class ErrorNode:
    start_byte: int
    end_byte: int
    missing: str | None
    first_token: str
    statement: int  # where the node holding the error starts: a missing `;` may stand after comments
    unsure: str | None = None  # why tree-sitter cannot tell whether it is an error (see the module's note)


def _error_node(lang: Language, node: Node) -> ErrorNode:
    leaf = node
    while leaf.child_count and not leaf.is_missing:
        leaf = leaf.children[0]
    token = (leaf.text or b"").decode("utf-8", "replace").split("\n")[0][:40]
    missing = node.type if node.is_missing else ("an indented block" if not node.is_error else None)
    holder = node
    while holder.parent is not None and holder.start_byte >= node.start_byte:
        holder = holder.parent
    return ErrorNode(node.start_byte, node.end_byte, missing, token, holder.start_byte)


def _error_nodes(node: Node, found: list[Node], within: Span | None = None, nested: bool = False) -> list[Node]:
    """ERROR and MISSING nodes, in the subtrees tree-sitter marks as holding one (`within`:
    those that meet a range only); `nested`: errors inside errors too."""
    if node.is_missing or node.is_error:
        found.append(node)
        if node.is_error and not nested:
            return found
    if node.has_error:
        for child in node.children:
            if within is None or (child.start_byte <= within[1] and child.end_byte >= within[0]):
                _error_nodes(child, found, within, nested)
    return found


def _empty_nodes(lang: Language, tree: Tree, within: Span | None = None) -> list[Node]:
    """The nodes the language forbids to be empty (an empty Python block) that are, found by
    a query (no walk over the tree in Python)."""
    query = empty_query(lang)
    if query is None:
        return []
    cursor = QueryCursor(query)
    if within is not None:
        cursor.set_byte_range(max(within[0] - 1, 0), within[1] + 1)
    return [n for n in cursor.captures(tree.root_node).get("empty", []) if n.start_byte == n.end_byte]


def _macro_named(lang: Language, match: dict[str, list[Node]]) -> str:
    macro = (match.get("_macro") or [None])[0]
    name = (macro.text or b"").decode("utf-8", "replace") if macro is not None else ""
    return (f"`{name}` is a macro the {lang.name} grammar cannot expand" if name
            else f"a macro the {lang.name} grammar cannot expand")


_SETTLED = 512  # bytes from a tree's changes beyond which an error reads as in the tree it was parsed from
_Reading = str | bool | None  # an error's reading by `uncertain.scm`: False (not an error), its unsure reason, or None


def _carried(lang: Language, tree: Tree) -> Callable[[ErrorNode], _Reading | EllipsisType] | None:
    """How the tree `tree` was parsed from incrementally read each error, for errors away from
    the change (`...` where it is not known): nodes outside the changed ranges are those of that
    tree, and what `uncertain.scm` asks of an error lies within a few lines of it."""
    found = base_of(lang, tree)
    readings = attached(found[0], "readings") if found is not None else None
    if found is None or readings is None:
        return None
    _, changed, edit = found
    near = sorted((start - _SETTLED, end + _SETTLED) for start, end in changed)  # the edit's span is one of them
    ends = list(accumulate((end for _, end in near), max))

    def reading(error: ErrorNode) -> _Reading | EllipsisType:
        at = bisect_left(ends, error.start_byte)  # the first range that may reach it
        if at < len(near) and near[at][0] <= error.end_byte:
            return ...
        shift = edit.shift if error.start_byte >= edit.new_end else 0
        return readings.get((error.start_byte - shift, error.end_byte - shift), ...)

    return reading


def _reader(lang: Language, matches: list[dict[str, list[Node]]]) -> Callable[[ErrorNode], _Reading]:
    """How the query's matches read an error: False inside a node captured @uncertain (looked up
    among them in order of their starts), else its reason inside one captured @unsure."""
    spans = sorted((n.start_byte, n.end_byte) for m in matches for n in m.get("uncertain", []))
    starts, reach = [start for start, _ in spans], list(accumulate((end for _, end in spans), max))

    def read(error: ErrorNode) -> _Reading:
        at = bisect_right(starts, error.start_byte)  # those starting at or before it; one of them holds it if any reaches it
        if at and reach[at - 1] >= error.start_byte:
            return False
        unsure = next((m for m in matches for n in m.get("unsure", []) if n.start_byte <= error.start_byte <= n.end_byte), None)
        return None if unsure is None else _macro_named(lang, unsure)

    return read


_BYTES_PER_QUERY = 3000  # a query about one error costs about what one over this much of the file does


def _readings(lang: Language, query: Query, tree: Tree, errors: list[ErrorNode]) -> list[_Reading]:
    """How `uncertain.scm` reads each error: errors close together ask about their surroundings
    in one query, or, when there are many for the file's size, one query over the whole file
    answers them all."""
    cursor = QueryCursor(query)
    if len(errors) * _BYTES_PER_QUERY > tree.root_node.end_byte:
        read = _reader(lang, [match for _, match in cursor.matches(tree.root_node)])
        return [read(error) for error in errors]
    found: dict[int, _Reading] = {}
    for start, end, near in _clusters(errors):
        cursor.set_byte_range(start, end)
        read = _reader(lang, [match for _, match in cursor.matches(tree.root_node)])
        found.update((id(error), read(error)) for error in near)
    return [found[id(error)] for error in errors]


def _clusters(errors: list[ErrorNode]) -> list[tuple[int, int, list[ErrorNode]]]:
    """The errors in groups that start at most `_BYTES_PER_QUERY` apart, each with the byte range
    one query about them all asks about: a query's cost is mostly that of reaching the range,
    and of the nodes in it. Only nodes that hold an error's start read it (`_reader`), so the
    range is around the starts (an error that holds most of a file is not read through)."""
    found: list[tuple[int, int, list[ErrorNode]]] = []
    for error in sorted(errors, key=lambda e: e.start_byte):
        start, end = max(error.start_byte - 1, 0), error.start_byte + 1
        if found and start <= found[-1][1] + _BYTES_PER_QUERY:
            found[-1][2].append(error)
            found[-1] = (found[-1][0], max(found[-1][1], end), found[-1][2])
        else:
            found.append((start, end, [error]))
    return found


def _kept(lang: Language, tree: Tree, nodes: list[Node]) -> list[ErrorNode]:
    """`nodes` as errors, less those inside a node `uncertain.scm` captures @uncertain or a
    macro's body; those inside one it captures @unsure are marked so. Each error's reading is
    kept with the tree, for a tree parsed from it."""
    found = [_error_node(lang, node) for node in sorted(nodes, key=lambda n: n.start_byte)]
    query = extra_query(lang, "uncertain")
    if found and query is not None:
        carried, readings = _carried(lang, tree), dict(attached(tree, "readings") or {})
        known = {(e.start_byte, e.end_byte): carried(e) for e in found} if carried is not None else {}
        asked = [e for e in found if known.get((e.start_byte, e.end_byte), ...) is ...]
        known.update(zip(((e.start_byte, e.end_byte) for e in asked), _readings(lang, query, tree, asked), strict=True))
        readings.update(known)
        attach(tree, "readings", readings)
        found = [e if known[(e.start_byte, e.end_byte)] is None else dataclasses.replace(e, unsure=known[(e.start_byte, e.end_byte)])
                 for e in found if known[(e.start_byte, e.end_byte)] is not False]
    if found and lang.preprocessor is not None:
        source = tree.root_node.text or b""
        found = [e for e in found if not in_macro_body(source, e.start_byte) and not in_macro_body(source, e.statement)]
    return found


def tree_errors(lang: Language, tree: Tree, within: Span | None = None) -> list[ErrorNode]:
    """The tree's errors (`within`: those meeting a range), kept per tree. Empty nodes are
    looked for only where the language's own parser has not accepted the text."""
    empties = bool(lang.never_empty) and attached(tree, "compiled") is None
    if not tree.root_node.has_error and not empties:
        return []
    known = attached(tree, "errors")  # kept with the tree (the syntax tree cache)
    if known is not None:
        return [e for e in known if within is None or (e.start_byte <= within[1] and e.end_byte >= within[0])]
    nodes = _error_nodes(tree.root_node, [], within) + (_empty_nodes(lang, tree, within) if empties else [])
    found = _kept(lang, tree, nodes)
    if within is None:
        attach(tree, "errors", found)
    return found


def error_lines(lang: Language, tree: Tree) -> list[int]:
    """1-based lines of every ERROR and MISSING node (nested ones too) and empty node the
    language forbids, unfiltered."""
    nodes = _error_nodes(tree.root_node, [], nested=True) + _empty_nodes(lang, tree)
    return sorted(node.start_point[0] + 1 for node in nodes)


def error_total(lang: Language, tree: Tree) -> int:
    """How many syntax errors the tree has, as a write is judged on them."""
    return len(tree_errors(lang, tree))


def errors_meeting(lang: Language, tree: Tree, start: int, end: int) -> list[ErrorNode]:
    """The tree's errors that meet [start, end)."""
    return [e for e in tree_errors(lang, tree, (start, end)) if e.start_byte <= end and e.end_byte >= start]


def errors_within(lang: Language, tree: Tree, start: int, end: int) -> bool:
    """Whether one of the tree's errors meets [start, end)."""
    return bool(errors_meeting(lang, tree, start, end))
