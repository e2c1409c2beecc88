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

import functools
import warnings
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from tree_sitter import Node, QueryCursor, Tree

from gateway.langs import Language
from gateway.preprocessor import macro_bodies, views
from gateway.syntax import extra_query, parse

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


def _error_nodes(lang: Language, node: Node, found: list[_ErrorNode]) -> list[_ErrorNode]:
    if node.is_missing or node.is_error or (node.type in lang.never_empty and node.start_byte == node.end_byte):
        leaf = node
        while leaf.child_count and not leaf.is_missing:
            leaf = leaf.children[0]
        token = (leaf.text or b"").decode("utf-8", "replace").split("\n")[0][:40]
        missing = node.type if node.is_missing else ("an indented block" if not node.is_error else None)
        holder = node
        while holder.parent is not None and holder.start_byte >= node.start_byte:
            holder = holder.parent
        found.append(_ErrorNode(node.start_byte, node.end_byte, node.start_point[0], node.start_point[1], missing, token, holder.start_byte))
        if node.is_error:
            return found
    if node.has_error or lang.never_empty:
        for child in node.children:
            _error_nodes(lang, child, found)
    return found


_KNOWN: OrderedDict[int, tuple[Tree, list[_ErrorNode]]] = OrderedDict()  # the tree is held, so its id is not reused


def _errors(lang: Language, tree: Tree) -> list[_ErrorNode]:
    """The tree's errors, less those inside a node `uncertain.scm` captures; kept per tree."""
    if not tree.root_node.has_error and not lang.never_empty:
        return []
    known = _KNOWN.get(id(tree))
    if known is not None and known[0] is tree:
        return known[1]
    found = _error_nodes(lang, tree.root_node, [])
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
    _KNOWN[id(tree)] = (tree, found)
    while len(_KNOWN) > 16:
        _KNOWN.popitem(last=False)
    return found


def error_total(lang: Language, tree: Tree) -> int:
    """How many syntax errors the tree has, as a write is judged on them."""
    return len(_errors(lang, tree))


def errors_within(lang: Language, tree: Tree, start: int, end: int) -> bool:
    """Whether one of the tree's errors meets [start, end)."""
    return any(e.start_byte <= end and e.end_byte >= start for e in _errors(lang, tree))


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


def _compile_problem(text: str, path: str) -> SyntaxProblem | None:
    """Python's own verdict on `text`; None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        line = error.lineno or 1
        column = error.offset or 1
        return SyntaxProblem(line, max(column, 1), (error.msg or "invalid syntax").rstrip("."))
    except ValueError as error:  # a NUL character
        return SyntaxProblem(1, 1, str(error))
    return None


@functools.lru_cache(maxsize=8)  # keyed by whole texts: a few, enough for an edit's before and after
def _compiles(text: str, path: str) -> bool:
    try:
        return _compile_problem(text, path) is None
    except (RecursionError, MemoryError):
        return False


OWN_PARSERS: dict[str, Callable[[str, str], SyntaxProblem | None]] = {"python": _compile_problem}


def new_syntax_problem(
    lang: Language,
    path: str,
    before: tuple[str, Tree] | None,
    after: tuple[str, Tree],
    carry: Callable[[int], int | None],
) -> SyntaxProblem | None:
    """The first syntax error of A (text, tree) that B did not have; `carry` maps B's byte
    offsets to A's (None inside a changed region). `before` is None for a new file."""
    text_a, tree_a = after
    own = OWN_PARSERS.get(lang.own_parser)
    if own is not None:
        try:
            problem = own(text_a, path)
        except (RecursionError, MemoryError):
            problem = None  # too deep for the language's parser here: tree-sitter decides
        else:
            if problem is None:
                return None
        if problem is not None and (before is None or _compiles(before[0], path)):
            return problem
    fresh = _fresh(lang, before[1] if before is not None else None, tree_a, carry)
    if not fresh:
        return None
    source_a = text_a.encode("utf-8", "surrogatepass")
    if lang.preprocessor is not None:
        source_b = before[0].encode("utf-8", "surrogatepass") if before is not None else None
        in_views = _fresh_in_views(lang, source_b, source_a, carry)
        if in_views is not None:
            fresh = in_views
    return _describe(fresh[0], source_a) if fresh else None


def first_problem(lang: Language, path: str, text: str, tree: Tree) -> SyntaxProblem | None:
    """The first syntax error of a whole text, as `new_syntax_problem` sees errors."""
    return new_syntax_problem(lang, path, None, (text, tree), lambda offset: offset)
