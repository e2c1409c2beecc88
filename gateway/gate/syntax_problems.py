"""Pure: the first syntax error a write adds to a file, where it is and what is wrong.

The language's own parser decides where one runs in process (Python's `compile`); tree-sitter's
ERROR and MISSING nodes otherwise. Errors the file already had do not count against a write:
an error of A is old when it stands where one of B's stands (offsets carried through the
changed regions), or when A has no more errors than B had. Nor do errors where the language's
`uncertain.scm` says tree-sitter misreads what the preprocessor makes valid (a macro before a
declaration), nor, for a language with a preprocessor, errors inside a `#define` (code only
where it is expanded) or that neither of its views (gateway/preprocessor.py: each
conditional's first branch, or its last) has.

Where the grammar itself is unsure, a new error is `unsure` (the write is let through, saying
so, rather than refused): inside a node `uncertain.scm` captures @unsure (valid only if a
project macro makes it so: `__unused struct client *oc`), or in lines the write changed where
B already had an error (the grammar was misreading that part of the file before the write).
A certain new error wins over an unsure one. Line breaks the grammar does not read but the
language does (`syntax_joins`: Kotlin's `class X\nprivate constructor(...) : A, B {`) are read
as spaces, offsets kept, before any error is counted new.
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_left
from itertools import accumulate
from types import EllipsisType
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tree_sitter import Node, Query, QueryCursor, Tree

from gateway.gate import own_parser
from gateway.gate.judgement import Mapping
from gateway.langs import Language
from gateway.gate.view_trees import carry_views, view_tree
from gateway.preprocessor import View, in_macro_body, views
from gateway.syntax import attach, attached, base_of, changes_since, empty_query, extra_query, parse, utf8

Span = tuple[int, int]

@dataclass(frozen=True)
class SyntaxProblem:
    """A syntax error: 1-based line and column (in characters) and what is wrong."""

    line: int
    column: int
    what: str
    unsure: str | None = None  # why the grammar cannot tell whether this is an error at all

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "message": self.what}

    def __str__(self) -> str:
        return f"line {self.line}:{self.column}: {self.what}"


@dataclass(frozen=True)
class _ErrorNode:
    start_byte: int
    end_byte: int
    missing: str | None
    first_token: str
    statement: int  # where the node holding the error starts: a missing `;` may stand after comments
    unsure: str | None = None  # why tree-sitter cannot tell whether it is an error (see the module's note)


def _error_node(lang: Language, node: Node) -> _ErrorNode:
    leaf = node
    while leaf.child_count and not leaf.is_missing:
        leaf = leaf.children[0]
    token = (leaf.text or b"").decode("utf-8", "replace").split("\n")[0][:40]
    missing = node.type if node.is_missing else ("an indented block" if not node.is_error else None)
    holder = node
    while holder.parent is not None and holder.start_byte >= node.start_byte:
        holder = holder.parent
    return _ErrorNode(node.start_byte, node.end_byte, missing, token, holder.start_byte)


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


def _carried(lang: Language, tree: Tree) -> Callable[[_ErrorNode], _Reading | EllipsisType] | None:
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

    def reading(error: _ErrorNode) -> _Reading | EllipsisType:
        at = bisect_left(ends, error.start_byte)  # the first range that may reach it
        if at < len(near) and near[at][0] <= error.end_byte:
            return ...
        shift = edit.shift if error.start_byte >= edit.new_end else 0
        return readings.get((error.start_byte - shift, error.end_byte - shift), ...)

    return reading


def _read(lang: Language, matches: list[dict[str, list[Node]]], error: _ErrorNode) -> _Reading:
    if any(n.start_byte <= error.start_byte <= n.end_byte for m in matches for n in m.get("uncertain", [])):
        return False
    unsure = next((m for m in matches for n in m.get("unsure", []) if n.start_byte <= error.start_byte <= n.end_byte), None)
    return None if unsure is None else _macro_named(lang, unsure)


_BYTES_PER_QUERY = 3000  # a query about one error costs about what one over this much of the file does


def _readings(lang: Language, query: Query, tree: Tree, errors: list[_ErrorNode]) -> list[_Reading]:
    """How `uncertain.scm` reads each error: errors close together ask about their surroundings
    in one query, or, when there are many for the file's size, one query over the whole file
    answers them all."""
    cursor = QueryCursor(query)
    if len(errors) * _BYTES_PER_QUERY > tree.root_node.end_byte:
        matches = [match for _, match in cursor.matches(tree.root_node)]
        return [_read(lang, matches, error) for error in errors]
    found: dict[int, _Reading] = {}
    for start, end, near in _clusters(errors):
        cursor.set_byte_range(start, end)
        matches = [match for _, match in cursor.matches(tree.root_node)]
        found.update((id(error), _read(lang, matches, error)) for error in near)
    return [found[id(error)] for error in errors]


def _clusters(errors: list[_ErrorNode]) -> list[tuple[int, int, list[_ErrorNode]]]:
    """The errors in groups that start at most `_BYTES_PER_QUERY` apart, each with the byte range
    one query about them all asks about: a query's cost is mostly that of reaching the range,
    and of the nodes in it. Only nodes that hold an error's start read it (`_read`), so the
    range is around the starts (an error that holds most of a file is not read through)."""
    found: list[tuple[int, int, list[_ErrorNode]]] = []
    for error in sorted(errors, key=lambda e: e.start_byte):
        start, end = max(error.start_byte - 1, 0), error.start_byte + 1
        if found and start <= found[-1][1] + _BYTES_PER_QUERY:
            found[-1][2].append(error)
            found[-1] = (found[-1][0], max(found[-1][1], end), found[-1][2])
        else:
            found.append((start, end, [error]))
    return found


def _kept(lang: Language, tree: Tree, nodes: list[Node]) -> list[_ErrorNode]:
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


def _errors(lang: Language, tree: Tree, within: Span | None = None) -> list[_ErrorNode]:
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
    return len(_errors(lang, tree))


def errors_meeting(lang: Language, tree: Tree, start: int, end: int) -> list[_ErrorNode]:
    """The tree's errors that meet [start, end)."""
    return [e for e in _errors(lang, tree, (start, end)) if e.start_byte <= end and e.end_byte >= start]


def errors_within(lang: Language, tree: Tree, start: int, end: int) -> bool:
    """Whether one of the tree's errors meets [start, end)."""
    return bool(errors_meeting(lang, tree, start, end))


def _around(source: bytes, start: int, end: int) -> Span:
    """[start, end) widened to whole lines, and one more line on each side."""
    low = source.rfind(b"\n", 0, max(source.rfind(b"\n", 0, start), 0)) + 1
    high = source.find(b"\n", end)
    high = source.find(b"\n", high + 1) if high >= 0 else -1
    return low, len(source) if high < 0 else high


@dataclass(frozen=True)
class _Sides:
    """The write's two texts and its changed regions, (B's span, A's span) in bytes; none when
    only the texts are known."""

    source_b: bytes | None
    source_a: bytes
    regions: Sequence[tuple[Span, Span]]


def _misread_before(lang: Language, errors_b: list[_ErrorNode], sides: _Sides) -> list[tuple[Span, str]]:
    """A's lines around each change where B already had an error, and why that leaves a new
    error there unsure."""
    if sides.source_b is None:
        return []
    found = []
    for (b0, b1), (a0, a1) in sides.regions:
        low, high = _around(sides.source_b, b0, b1)
        old = next((e for e in errors_b if e.start_byte <= high and e.end_byte >= low), None)
        if old is not None:
            line = sides.source_b.count(b"\n", 0, old.start_byte) + 1
            found.append((_around(sides.source_a, a0, a1),
                          f"tree-sitter's {lang.name} grammar already failed to read line {line} here before the write"))
    return found


def _fresh(lang: Language, before: Tree | None, after: Tree, carry: Callable[[int], int | None], sides: _Sides) -> list[_ErrorNode]:
    """A's errors that B did not have (all of A's for a new file), those in lines B already
    misread marked unsure."""
    if before is not None and after.root_node.has_error:
        _errors(lang, before)  # first: A's errors away from the change are read as B's were
    errors_a = _errors(lang, after)
    if not errors_a or before is None:
        return errors_a
    errors_b = _errors(lang, before)
    if len(errors_a) <= len(errors_b):
        return []
    old = {carry(e.start_byte) for e in errors_b}
    fresh = [e for e in errors_a if e.start_byte not in old] or errors_a
    misread = _misread_before(lang, errors_b, sides)
    return [next((dataclasses.replace(e, unsure=why) for (low, high), why in misread if low <= e.start_byte <= high and e.unsure is None), e)
            for e in fresh]


def _fresh_in_views(lang: Language, before: bytes | None, after: bytes, carry: Callable[[int], int | None], sides: _Sides) -> list[_ErrorNode] | None:
    """The new errors of the first view that has any; [] when no view has; None without views."""
    assert lang.preprocessor is not None
    if before is not None and sides.regions:
        carry_views(lang.preprocessor, before, after, sides.regions)
    views_a = views(lang.preprocessor, after)
    if not views_a:
        return None
    views_b = views(lang.preprocessor, before) if before is not None else ()
    parsed_b: list[View] = []
    for view in views_a:
        twin = next((v for v in views_b if v.kind == view.kind), views_b[0] if views_b else None)
        tree_b = None
        if before is not None and twin is not None:
            tree_b = view_tree(lang, before, twin, parsed_b)
            parsed_b.append(twin)
        elif before is not None:
            tree_b = parse(lang, before)
        # A's view from scratch, as before: whether it has a new error is not left to how an incremental parse recovers
        fresh = _fresh(lang, tree_b, parse(lang, view.text), carry, sides)
        if fresh:
            return fresh
    return []


def _joined(lang: Language, source: bytes) -> bytes:
    """The text with the line breaks the language's `syntax_joins` name read as spaces."""
    for pattern in lang.syntax_joins:
        source = pattern.sub(lambda m: m.group(0)[: m.start("break") - m.start()] + re.sub(rb"[^ \t]", b" ", m.group("break"))
                             + m.group(0)[m.end("break") - m.start() :], source)
    return source


def _fresh_joined(lang: Language, before: bytes | None, after: bytes, carry: Callable[[int], int | None], sides: _Sides) -> list[_ErrorNode] | None:
    """The new errors of the texts with `syntax_joins` applied; None when that changes nothing."""
    joined_a = _joined(lang, after)
    if joined_a == after:
        return None
    tree_b = parse(lang, _joined(lang, before)) if before is not None else None
    return _fresh(lang, tree_b, parse(lang, joined_a), carry, sides)


def _describe(node: _ErrorNode, source: bytes) -> SyntaxProblem:
    """Where in `source` (the text as written: a view's offsets are its own) and what."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    line = source.count(b"\n", 0, line_start) + 1
    column = len(source[line_start : node.start_byte].decode("utf-8", "replace")) + 1
    if node.missing is not None:
        return SyntaxProblem(line, column, f"missing `{node.missing}`", node.unsure)
    token = node.first_token.strip()
    return SyntaxProblem(line, column, f"unexpected `{token}`" if token else "unexpected text", node.unsure)


def _accepts(text: str) -> bool:
    try:
        return own_parser.verdict(text) is None
    except own_parser.Undecided:
        return False


def _own_problem(lang: Language, before: tuple[str, Tree] | None, after: tuple[str, Tree], carry: Callable[[int], int | None],
                 source_a: bytes) -> SyntaxProblem | None | bool:
    """The language's own parser's verdict on A: its first error, None when A compiles, or
    False when the parser cannot say (too deep here) and tree-sitter decides."""
    text_a, tree_a = after
    regions = changes_since(lang, tree_a, before[1]) if before is not None else None
    if regions is not None and isinstance(carry, Mapping):
        regions = regions + [a for _, a in carry.regions]
    try:
        found = own_parser.accepted(text_a, tree_a, source_a, before[0] if before is not None else None, regions)
    except own_parser.Undecided:
        return False
    if found is None:
        attach(tree_a, "compiled", True)  # so no empty block is looked for in it
        if before is not None and own_parser.known_to_compile(before[0]):
            attach(before[1], "compiled", True)
        return None
    return SyntaxProblem(*found)


OWN_PARSERS = frozenset({"python"})


def new_syntax_problem(
    lang: Language,
    path: str,
    before: tuple[str, Tree] | None,
    after: tuple[str, Tree],
    carry: Callable[[int], int | None],
    unsure: bool = False,
) -> SyntaxProblem | None:
    """The first syntax error of A (text, tree) that B did not have; with `unsure`, one the
    grammar cannot tell is an error (`SyntaxProblem.unsure` says why) when A has no certain
    one, else only certain ones count. `carry` maps B's byte
    offsets to A's (None inside a changed region; a `Mapping` also says where A changed, so
    the language's own parser needs to read only that, and where B's errors make new ones
    unsure). `before` is None for a new file."""
    text_a, tree_a = after
    source_a = utf8(text_a)
    if lang.own_parser in OWN_PARSERS:
        problem = _own_problem(lang, before, after, carry, source_a)
        if problem is None:
            return None
        if isinstance(problem, SyntaxProblem) and (before is None or _accepts(before[0])):
            return problem
    source_b = utf8(before[0]) if before is not None else None
    sides = _Sides(source_b, source_a, carry.regions if isinstance(carry, Mapping) else ())
    fresh = _fresh(lang, before[1] if before is not None else None, tree_a, carry, sides)
    if lang.syntax_joins and (fresh or (before is not None and before[1].root_node.has_error)):
        # B's misreading may hide A's new error among its own: the joined texts decide.
        joined = _fresh_joined(lang, source_b, source_a, carry, sides)
        fresh = fresh if joined is None else joined
    if not fresh:
        return None
    if lang.preprocessor is not None:
        in_views = _fresh_in_views(lang, source_b, source_a, carry, sides)
        if in_views is not None:
            fresh = in_views
    first = next((e for e in fresh if e.unsure is None), fresh[0] if fresh and unsure else None)
    return _describe(first, source_a) if first is not None else None


def first_problem(lang: Language, path: str, text: str, tree: Tree, unsure: bool = False) -> SyntaxProblem | None:
    """The first syntax error of a whole text, as `new_syntax_problem` sees errors."""
    return new_syntax_problem(lang, path, None, (text, tree), lambda offset: offset, unsure)
