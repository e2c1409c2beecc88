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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tree_sitter import Tree

from gateway.gate import own_parser
from gateway.gate.judgement import Mapping
from gateway.langs import Language
from gateway.gate.tree_errors import ErrorNode, tree_errors
from gateway.gate.view_trees import carry_views, view_tree
from gateway.preprocessor import View, views
from gateway.syntax import attach, changes_since, parse, utf8

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


def _misread_before(lang: Language, errors_b: list[ErrorNode], sides: _Sides) -> list[tuple[Span, str]]:
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


def _fresh(lang: Language, before: Tree | None, after: Tree, carry: Callable[[int], int | None], sides: _Sides) -> list[ErrorNode]:
    """A's errors that B did not have (all of A's for a new file), those in lines B already
    misread marked unsure."""
    if before is not None and after.root_node.has_error:
        tree_errors(lang, before)  # first: A's errors away from the change are read as B's were
    errors_a = tree_errors(lang, after)
    if not errors_a or before is None:
        return errors_a
    errors_b = tree_errors(lang, before)
    if len(errors_a) <= len(errors_b):
        return []
    old = {carry(e.start_byte) for e in errors_b}
    fresh = [e for e in errors_a if e.start_byte not in old] or errors_a
    misread = _misread_before(lang, errors_b, sides)
    return [next((dataclasses.replace(e, unsure=why) for (low, high), why in misread if low <= e.start_byte <= high and e.unsure is None), e)
            for e in fresh]


def _fresh_in_views(lang: Language, before: bytes | None, after: bytes, carry: Callable[[int], int | None], sides: _Sides) -> list[ErrorNode] | None:
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


def _fresh_joined(lang: Language, before: bytes | None, after: bytes, carry: Callable[[int], int | None], sides: _Sides) -> list[ErrorNode] | None:
    """The new errors of the texts with `syntax_joins` applied; None when that changes nothing."""
    joined_a = _joined(lang, after)
    if joined_a == after:
        return None
    tree_b = parse(lang, _joined(lang, before)) if before is not None else None
    return _fresh(lang, tree_b, parse(lang, joined_a), carry, sides)


def _describe(node: ErrorNode, source: bytes) -> SyntaxProblem:
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
