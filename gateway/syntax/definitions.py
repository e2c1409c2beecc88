"""Definitions: what `queries/<lang>/definitions.scm` captures (tags convention,
`@definition.<kind>` with `@name`), nested into name paths, and their headers."""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Literal

from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree, TreeCursor

from gateway.langs import Language
from gateway.syntax.trees import _grammar


@dataclass(frozen=True)
class Definition:
    """One definition found by a query. Byte offsets index the UTF-8 source; lines are 1-based."""

    kind: str
    name: str
    name_path: str
    start_byte: int
    end_byte: int
    name_start_byte: int
    name_end_byte: int
    start_line: int
    end_line: int
    name_line: int
    body_start_byte: int | None = None
    body_end_byte: int | None = None
    in_error: bool = False
    header_span: tuple[int, int] | None = None

    def shifted(self, by: int, lines: int) -> Definition:
        """The same definition moved `by` bytes and `lines` lines further on (copied directly:
        the frozen dataclass's __init__ costs more than the rest of deriving a long file's list)."""
        moved = object.__new__(Definition)
        moved.__dict__.update(
            self.__dict__, start_byte=self.start_byte + by, end_byte=self.end_byte + by, name_start_byte=self.name_start_byte + by,
            name_end_byte=self.name_end_byte + by, start_line=self.start_line + lines, end_line=self.end_line + lines,
            name_line=self.name_line + lines, body_start_byte=self.body_start_byte + by if self.body_start_byte is not None else None,
            body_end_byte=self.body_end_byte + by if self.body_end_byte is not None else None,
            header_span=(self.header_span[0] + by, self.header_span[1] + by) if self.header_span is not None else None,
        )
        return moved

    def renamed(self, name_path: str) -> Definition:
        return dataclasses.replace(self, name_path=name_path)

    def name_within(self, start: int, end: int) -> bool:
        return start <= self.name_start_byte and self.name_end_byte <= end

    @property
    def header_spans(self) -> tuple[tuple[int, int], ...]:
        """The definition less its body: decorators, modifiers, name, parameters, bases, and
        whatever follows the body (`} name;` of a C typedef). No body: all of it. A query
        that captures @header says exactly what the header is (a typedef's name alone)."""
        if self.header_span is not None:
            return (self.header_span,)
        if self.body_start_byte is None or self.body_end_byte is None:
            return ((self.start_byte, self.end_byte),)
        return ((self.start_byte, self.body_start_byte), (self.body_end_byte, self.end_byte))


@functools.cache
def _query(lang: Language) -> Query:
    source = lang.query_path.read_text(encoding="utf-8")
    return Query(_grammar(lang.grammar), source)


def _last_line(node: Node) -> int:
    row, column = node.end_point
    return row if column > 0 or row == node.start_point[0] else row - 1


def _with_attached(lang: Language, node: Node) -> Node:
    """The first of the attribute-like siblings before node (or node itself).

    Comments may sit between attributes and the item (`#[derive]` above `/// doc`), so they
    are stepped over, but a definition never starts with a comment here.
    """
    first = node
    sibling = node.prev_named_sibling
    while sibling is not None:
        if is_attached(lang, sibling):
            first = sibling
        elif "comment" not in sibling.type:
            break
        sibling = sibling.prev_named_sibling
    return first


def is_attached(lang: Language, node: Node) -> bool:
    """Whether `node` belongs to the definition after it: one of the language's `attached_before`
    types, made, where it names `attached_parts`, of nothing but those parts and such nodes."""
    if node.type not in lang.attached_before:
        return False
    if not lang.attached_parts or node.type in lang.attached_parts:
        return True
    return all(child.type in lang.attached_parts or is_attached(lang, child) for child in node.named_children)


@dataclass
class _Match:
    kind: str
    start: Node
    node: Node
    name: Node
    scope: Node | None
    body: Node | None
    header: Node | None
    pattern: int
    in_error: bool
    body_last: Node | None = None  # @body.last: the body runs from @body to it (a macro_rules!'s rules)

    @property
    def body_end(self) -> Node | None:
        return self.body_last or self.body

    @property
    def last(self) -> Node:
        """Where the definition ends: its node, or the body after it (`TEST_CASE("x") {...}`)."""
        end = self.body_end
        return end if end is not None and end.end_byte > self.node.end_byte else self.node

    @property
    def width(self) -> int:
        return self.last.end_byte - self.start.start_byte


@functools.cache
def extra_query(lang: Language, name: str) -> Query | None:
    """`queries/<lang>/<name>.scm` beside the definitions query, when the language has one."""
    path = lang.query_path.with_name(f"{name}.scm")
    return Query(_grammar(lang.grammar), path.read_text(encoding="utf-8")) if path.is_file() else None


@functools.cache
def empty_query(lang: Language) -> Query | None:
    """The node types the language forbids to be empty (`never_empty`), captured as @empty."""
    if not lang.never_empty:
        return None
    return Query(_grammar(lang.grammar), "[" + " ".join(f"({kind})" for kind in sorted(lang.never_empty)) + "] @empty")


def _injected(lang: Language, tree: Tree, byte_range: tuple[int, int] | None) -> list[Tree]:
    """The language inside itself (`queries/<lang>/injections.scm`, tree-sitter's convention):
    each @injection.content node's inside, delimiters left out, parsed in place, so the
    trees share the file's offsets. Rust's `cfg_if! { fn f() {} }` is the case in point."""
    query = extra_query(lang, "injections")
    if query is None:
        return []
    cursor = QueryCursor(query)
    if byte_range is not None:
        cursor.set_byte_range(max(byte_range[0] - 1, 0), byte_range[1] + 1)
    nodes = cursor.captures(tree.root_node).get("injection.content", [])
    if not nodes:
        return []
    source, parser, trees = tree.root_node.text or b"", Parser(_grammar(lang.grammar)), []
    for node in nodes:
        inside = node.children[1:-1]
        if inside:
            first, last = inside[0], inside[-1]
            parser.included_ranges = [Range(first.start_point, last.end_point, first.start_byte, last.end_byte)]
            trees.append(parser.parse(source))
    return trees


def _best_matches(lang: Language, tree: Tree, byte_range: tuple[int, int] | None) -> list[_Match]:
    """One match per name node: the widest definition capture, later patterns breaking ties."""
    best: dict[tuple[int, int], _Match] = {}
    for each in [tree, *_injected(lang, tree, byte_range)]:
        _collect(lang, each, byte_range, best)
    return sorted(best.values(), key=lambda m: (m.start.start_byte, -m.node.end_byte))


def _collect(lang: Language, tree: Tree, byte_range: tuple[int, int] | None, best: dict[tuple[int, int], _Match]) -> None:
    cursor = QueryCursor(_query(lang))
    if byte_range is not None:
        cursor.set_byte_range(max(byte_range[0] - 1, 0), byte_range[1] + 1)  # definitions that only touch it too
    broken = tree.root_node.has_error
    by_node: dict[tuple[int, int], tuple[int, int]] = {}  # one name per definition: the later pattern's
    for pattern, captures in cursor.matches(tree.root_node, _holds):
        names = captures.get("name")
        kinds = [key for key in captures if key.startswith("definition.")]
        if not names or not kinds or names[0].start_byte == names[0].end_byte:  # an anonymous `enum : int {}`
            continue
        node = captures[kinds[0]][0]
        scope = captures.get("scope", [None])[0]
        body = captures.get("body", [None])[0]
        header = captures.get("header", [None])[0]
        kind = kinds[0].split(".", 1)[1]
        match = _Match(kind, _with_attached(lang, node), node, names[0], scope, body, header, pattern, broken and _in_error(node),
                       captures.get("body.last", [None])[0])
        key = (match.name.start_byte, match.name.end_byte)
        current = best.get(key)
        if current is None or (match.width, match.pattern) > (current.width, current.pattern):
            place = (node.start_byte, node.end_byte)
            other = by_node.get(place)
            if other is not None and other != key and best[other].pattern > pattern:
                continue
            if other is not None and other != key:
                del best[other]
            by_node[place] = key
            best[key] = match


def _holds(predicate: str, args: list[tuple[str, Literal["capture", "string"]]], pattern_index: int, captures: dict[str, list[Node]]) -> bool:
    """The predicate the queries use beyond tree-sitter's own: `(#has-parent? @capture type...)`,
    the captured node's parent is of one of these types. A pattern rooted at the file's node
    instead (`(module (assignment ...))`) would keep a ranged query walking every top-level
    statement: 1 ms a query at 50k lines, against 0.04."""
    if predicate != "has-parent?" or not args or args[0][1] != "capture":
        raise ValueError(f"unknown query predicate #{predicate} (pattern {pattern_index})")
    types = {value for value, _ in args[1:]}
    return all(node.parent is not None and node.parent.type in types for node in captures.get(args[0][0], []))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace").strip()


_PARAMETERS = re.compile(r"(?<!operator)\s*\(.*", re.DOTALL)


def _name_segments(lang: Language, match: _Match) -> list[str]:
    text = _PARAMETERS.sub("", _text(match.name))  # `operator bool() const` is named `operator bool`
    text = " ".join(text.split())  # a name read across lines (macros before it) is the same name whatever its blanks
    if lang.name_sigil:
        text = text.removeprefix(lang.name_sigil)
    segments = [text]
    if lang.scope_separator:
        segments = [part.strip() for part in text.split(lang.scope_separator) if part.strip()]
    return ([_text(match.scope)] if match.scope is not None else []) + segments


def _in_error(node: Node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.is_error:
            return True
        parent = parent.parent
    return False


def _definitions(lang: Language, tree: Tree, byte_range: tuple[int, int] | None) -> list[Definition]:
    found: list[Definition] = []
    stack: list[Definition] = []
    low, high = byte_range if byte_range is not None else (0, 1 << 62)
    for match in _best_matches(lang, tree, byte_range):
        start, end = match.start.start_byte, match.last.end_byte
        while stack and stack[-1].end_byte < end:
            stack.pop()
        if start > high or end < low:
            # Not one that meets the range (a pattern rooted at a class matches all its
            # methods), so it encloses none that does either: not built at all.
            continue
        segments = _name_segments(lang, match)
        prefix = stack[-1].name_path + "/" if stack else ""
        definition = Definition(
            kind=match.kind,
            name=segments[-1],
            name_path=prefix + "/".join(segments),
            start_byte=start,
            end_byte=end,
            name_start_byte=match.name.start_byte,
            name_end_byte=match.name.end_byte,
            start_line=match.start.start_point[0] + 1,
            end_line=_last_line(match.last) + 1,
            name_line=match.name.start_point[0] + 1,
            body_start_byte=_body_start(lang, match.body) if match.body is not None else None,
            body_end_byte=match.body_end.end_byte if match.body_end is not None else None,
            in_error=match.in_error,
            header_span=(match.header.start_byte, match.header.end_byte) if match.header is not None else None,
        )
        found.append(definition)
        stack.append(definition)
    return found


@functools.cache
def _attached_query(lang: Language) -> Query:
    return Query(_grammar(lang.grammar), "[" + " ".join(f"({kind})" for kind in sorted(lang.attached_before)) + "] @attached")


def widened_range(lang: Language, tree: Tree, byte_range: tuple[int, int]) -> tuple[int, int]:
    """A range widened over the definitions whose attached decorators or attributes it reaches."""
    if not lang.attached_before:
        return byte_range
    cursor = QueryCursor(_attached_query(lang))
    cursor.set_byte_range(*byte_range)
    end = byte_range[1]
    for node in cursor.captures(tree.root_node).get("attached", []):
        if not is_attached(lang, node):
            continue
        sibling = node.next_named_sibling
        while sibling is not None and (is_attached(lang, sibling) or "comment" in sibling.type):
            sibling = sibling.next_named_sibling
        if sibling is not None:
            end = max(end, sibling.end_byte)
    return byte_range[0], end



_CLOSING = frozenset({")", "]", "}", ">"})
_QUOTE = re.compile(r"""([A-Za-z]{0,3})(?:'{3}|"{3}|'|")""")


def _body_start(lang: Language, body: Node) -> int:
    """Where a body starts, with what the language counts as its lead (langs/*.toml body_lead)."""
    lead = body.prev_named_sibling
    return lead.start_byte if lead is not None and lead.type in lang.body_lead else body.start_byte


def header_tokens(tree: Tree, definition: Definition) -> tuple[str, ...]:
    """The tokens of a definition's header, comments left out: equal tokens, equal header,
    however the lines are broken or indented, with or without a trailing comma, in
    single or double quotes."""
    tokens: list[str] = []
    for start, end in definition.header_spans:
        if start < end:
            _leaves(tree.root_node.descendant_for_byte_range(start, end), start, end, tokens)
    # A trailing comma before a closing bracket, and the choice of quote, are layout, not meaning.
    kept = [t for i, t in enumerate(tokens) if not (t == "," and i + 1 < len(tokens) and tokens[i + 1] in _CLOSING)]
    return tuple(_QUOTE.sub(lambda m: m.group(1) + '"', t) if _QUOTE.fullmatch(t) else t for t in kept)


def _leaves(node: Node | None, start: int, end: int, out: list[str]) -> None:
    """The non-comment leaves of `node` inside [start, end), walked with a cursor (the
    binding's Node.first_child_for_byte can hand back a dangling node when none qualifies)."""
    if node is not None:
        _walk_leaves(node.walk(), start, end, out)


def _walk_leaves(cursor: TreeCursor, start: int, end: int, out: list[str]) -> None:
    node = cursor.node
    if node is None or "comment" in node.type:
        return
    if node.child_count == 0:
        if node.start_byte < end and (node.end_byte > start or node.start_byte == start):
            out.append(f"MISSING {node.type}" if node.is_missing else (node.text or b"").decode("utf-8", "replace"))
        return
    moved = cursor.goto_first_child() if node.start_byte >= start else cursor.goto_first_child_for_byte(start) is not None
    if not moved:
        return
    while cursor.node is not None and cursor.node.start_byte < end:
        _walk_leaves(cursor, start, end, out)
        if not cursor.goto_next_sibling():
            break
    cursor.goto_parent()
