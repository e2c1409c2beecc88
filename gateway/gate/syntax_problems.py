"""Pure: the first syntax error a write adds to a file, where it is and what is wrong.

The language's own parser decides where one runs in process (Python's `compile`); tree-sitter's
ERROR and MISSING nodes otherwise. Errors the file already had do not count against a write:
an error of A is old when it stands where one of B's stands (offsets carried through the
changed regions), or when A has no more errors than B had. Nor do errors where the language's
`uncertain.scm` says tree-sitter misreads what the preprocessor makes valid (a macro before a
declaration), nor, for a language with a preprocessor, errors inside a `#define` (code only
where it is expanded) or that neither of its views (gateway/preprocessor.py: each
conditional's first branch, or its last) has.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor, Tree

from gateway.gate import own_parser
from gateway.gate.judgement import Mapping
from gateway.langs import Language
from gateway.preprocessor import macro_bodies, views
from gateway.syntax import attach, attached, changes_since, empty_query, extra_query, parse, utf8

Span = tuple[int, int]

@dataclass(frozen=True)
class SyntaxProblem:
    """A syntax error: 1-based line and column (in characters) and what is wrong."""

    line: int
    column: int
    what: str

    def to_json(self) -> dict[str, object]:
        return {"line": self.line, "column": self.column, "message": self.what}

    def __str__(self) -> str:
        return f"line {self.line}:{self.column}: {self.what}"


@dataclass(frozen=True)
class _ErrorNode:
    start_byte: int
    end_byte: int
    row: int
    byte_column: int
    missing: str | None
    first_token: str
    statement: int  # where the node holding the error starts: a missing `;` may stand after comments


def _error_node(lang: Language, node: Node) -> _ErrorNode:
    leaf = node
    while leaf.child_count and not leaf.is_missing:
        leaf = leaf.children[0]
    token = (leaf.text or b"").decode("utf-8", "replace").split("\n")[0][:40]
    missing = node.type if node.is_missing else ("an indented block" if not node.is_error else None)
    holder = node
    while holder.parent is not None and holder.start_byte >= node.start_byte:
        holder = holder.parent
    return _ErrorNode(node.start_byte, node.end_byte, node.start_point[0], node.start_point[1], missing, token, holder.start_byte)


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


def _kept(lang: Language, tree: Tree, nodes: list[Node]) -> list[_ErrorNode]:
    """`nodes` as errors, less those inside a node `uncertain.scm` captures or a macro's body."""
    found = [_error_node(lang, node) for node in sorted(nodes, key=lambda n: n.start_byte)]
    query = extra_query(lang, "uncertain")
    if found and query is not None:
        cursor, kept = QueryCursor(query), []
        for error in found:  # each error asks about its own surroundings only: a whole-file query costs more
            cursor.set_byte_range(max(error.start_byte - 1, 0), error.end_byte + 1)
            spans = [(n.start_byte, n.end_byte) for n in cursor.captures(tree.root_node).get("uncertain", [])]
            if not any(start <= error.start_byte <= end for start, end in spans):
                kept.append(error)
        found = kept
    if found and lang.preprocessor is not None:
        bodies = macro_bodies(tree.root_node.text or b"")
        found = [e for e in found if not any(start < e.start_byte < end or start < e.statement < end for start, end in bodies)]
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


def errors_within(lang: Language, tree: Tree, start: int, end: int) -> bool:
    """Whether one of the tree's errors meets [start, end)."""
    return any(e.start_byte <= end and e.end_byte >= start for e in _errors(lang, tree, (start, end)))


def _fresh(lang: Language, before: Tree | None, after: Tree, carry: Callable[[int], int | None]) -> list[_ErrorNode]:
    """A's errors that B did not have (all of A's for a new file)."""
    errors_a = _errors(lang, after)
    if not errors_a or before is None:
        return errors_a
    errors_b = _errors(lang, before)
    if len(errors_a) <= len(errors_b):
        return []
    old = {carry(e.start_byte) for e in errors_b}
    return [e for e in errors_a if e.start_byte not in old] or errors_a


def _fresh_in_views(lang: Language, before: bytes | None, after: bytes, carry: Callable[[int], int | None]) -> list[_ErrorNode] | None:
    """The new errors of the first view that has any; [] when no view has; None without views."""
    assert lang.preprocessor is not None
    views_a = views(lang.preprocessor, after)
    if not views_a:
        return None
    views_b = views(lang.preprocessor, before) if before is not None else []
    for view in views_a:
        twin = next((v for v in views_b if v.kind == view.kind), views_b[0] if views_b else None)
        tree_b = parse(lang, twin.text if twin is not None else before) if before is not None else None
        fresh = _fresh(lang, tree_b, parse(lang, view.text), carry)
        if fresh:
            return fresh
    return []


def _describe(node: _ErrorNode, source: bytes) -> SyntaxProblem:
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    column = len(source[line_start : line_start + node.byte_column].decode("utf-8", "replace")) + 1
    if node.missing is not None:
        return SyntaxProblem(node.row + 1, column, f"missing `{node.missing}`")
    token = node.first_token.strip()
    return SyntaxProblem(node.row + 1, column, f"unexpected `{token}`" if token else "unexpected text")


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
) -> SyntaxProblem | None:
    """The first syntax error of A (text, tree) that B did not have; `carry` maps B's byte
    offsets to A's (None inside a changed region; a `Mapping` also says where A changed, so
    the language's own parser needs to read only that). `before` is None for a new file."""
    text_a, tree_a = after
    source_a = utf8(text_a)
    if lang.own_parser in OWN_PARSERS:
        problem = _own_problem(lang, before, after, carry, source_a)
        if problem is None:
            return None
        if isinstance(problem, SyntaxProblem) and (before is None or _accepts(before[0])):
            return problem
    fresh = _fresh(lang, before[1] if before is not None else None, tree_a, carry)
    if not fresh:
        return None
    if lang.preprocessor is not None:
        source_b = utf8(before[0]) if before is not None else None
        in_views = _fresh_in_views(lang, source_b, source_a, carry)
        if in_views is not None:
            fresh = in_views
    return _describe(fresh[0], source_a) if fresh else None


def first_problem(lang: Language, path: str, text: str, tree: Tree) -> SyntaxProblem | None:
    """The first syntax error of a whole text, as `new_syntax_problem` sees errors."""
    return new_syntax_problem(lang, path, None, (text, tree), lambda offset: offset)
