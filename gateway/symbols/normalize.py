"""Normalised symbol extents: a backend's symbols widened by what tree-sitter knows.

Servers disagree on where a definition starts (jedi leaves out decorators and `async`,
typescript-language-server leaves out `export const`, gopls leaves out `type`). The
server decides which symbols exist and where their names are; the tree-sitter
definition carrying the same name decides the extent. Leading doc comments and the
decorator lines a replacement may keep are located in the same tree.
"""

from __future__ import annotations

import bisect

from collections.abc import Callable

from tree_sitter import Node, Tree

from gateway.langs import Language
from gateway.priority import GIVE_WAY_EVERY, give_way
from gateway.symbols.backends import RawSymbol
from gateway.symbols.model import Symbol
from gateway.symbols.text import LineIndex, byte_to_char, char_to_byte
from gateway.syntax import Definition


class Locator:
    """Line-level questions about the syntax tree of one text."""

    def __init__(self, lang: Language, text: str, tree: Tree) -> None:
        self.lang = lang
        self.index = LineIndex.of(text)
        self.tree = tree
        self.to_byte = char_to_byte(text)
        self.to_char = byte_to_char(text)

    def first_node(self, line: int) -> Node | None:
        start, end = self.index.line_start(line), self.index.line_end(line)
        content = self.index.text[start:end]
        stripped = len(content) - len(content.lstrip())
        if stripped == len(content):
            return None
        at = self.to_byte(start + stripped)
        return self.tree.root_node.descendant_for_byte_range(at, at + 1)

    def line_is(self, line: int, predicate: Callable[[str], bool], levels: int = 8) -> bool:
        node = self.first_node(line)
        for _ in range(levels):
            if node is None:
                return False
            if predicate(node.type):
                return True
            node = node.parent
        return False

    def is_comment_line(self, line: int) -> bool:
        return self.line_is(line, lambda kind: "comment" in kind, levels=3)

    def is_decorator_line(self, line: int) -> bool:
        return bool(self.lang.decorator_nodes) and self.line_is(line, self.lang.decorator_nodes.__contains__)

    def leading_modifiers(self, line: int) -> str:
        """The modifiers (`export default`, `pub(crate)`, `public static`) that open `line`'s code."""
        text, line_end = self.index.text, self.index.line_end(line)
        first = self.index.line_start(line) + len(self.index.indentation(line))
        end = position = first
        while self.lang.modifiers and position < line_end:
            modifier = self._modifier_at(self.to_byte(position))
            if modifier is None:
                break
            end = self.to_char(modifier.end_byte)
            rest = text[end:line_end]
            position = end + len(rest) - len(rest.lstrip(" \t"))
        return text[first:end]

    def _modifier_at(self, at: int) -> Node | None:
        """The largest modifier node that starts at byte `at`."""
        node, found = self.tree.root_node.descendant_for_byte_range(at, at + 1), None
        while node is not None and node.start_byte == at:
            found = node if node.type in self.lang.modifiers else found
            node = node.parent
        return found

    def doc_start_line(self, line: int) -> int:
        """The first line of the comment block directly above `line` (or `line`)."""
        while line > 0 and not self.index.is_blank(line - 1) and self.is_comment_line(line - 1):
            line -= 1
        return line

    def header_line(self, first: int, name_line: int) -> int:
        """The first line from `first` on that is neither a decorator nor a comment."""
        line = first
        while line < name_line and (self.is_decorator_line(line) or self.is_comment_line(line)):
            line += 1
        return line


def _matching_definition(
    raw: RawSymbol, by_name: dict[int, Definition], spans: list[tuple[int, int, Definition]], starts: list[int]
) -> tuple[Definition, int] | None:
    """The tree-sitter definition behind a server's symbol, and where its name starts.

    Matched by name position; failing that, by name inside the server's range (tsserver
    points the selection of a later overload at `export`, not at the name). `spans` are
    sorted by where their names start (`starts`), so each look-up is a bisection.
    """
    exact = by_name.get(raw.name_start)
    if exact is not None:
        return exact, raw.name_start
    at = bisect.bisect_right(starts, raw.name_start)
    if at and spans[at - 1][0] <= raw.name_start < spans[at - 1][1]:
        return spans[at - 1][2], raw.name_start
    for start, _, definition in spans[bisect.bisect_left(starts, raw.start) : bisect.bisect_left(starts, raw.end)]:
        if definition.name == raw.segments[-1]:
            return definition, start
    return None


def build_symbols(lang: Language, text: str, tree: Tree, definitions: list[Definition], raws: list[RawSymbol]) -> list[Symbol]:
    locate = Locator(lang, text, tree)
    index = locate.index
    to_char = byte_to_char(text)
    spans = sorted(((to_char(d.name_start_byte), to_char(d.name_end_byte), d) for d in definitions), key=lambda span: span[0])
    starts = [start for start, _, _ in spans]
    by_name = {start: d for start, _, d in spans}
    symbols = []
    for at, raw in enumerate(raws):
        if not at % GIVE_WAY_EVERY:
            give_way()
        start, end, name_start = raw.start, raw.end, raw.name_start
        matched = _matching_definition(raw, by_name, spans, starts)
        definition = None
        if matched is not None:
            definition, name_start = matched
            start = min(start, to_char(definition.start_byte))
            end = max(end, to_char(definition.end_byte)) if raw.end_exact else to_char(definition.end_byte)
        if end > start and text[end - 1] == "\n":
            end -= 1
        if text.startswith(";", end):
            end += 1  # a C struct or a class field stops before its `;`; the definition does not
        line_end = index.line_end(index.line_of(start))
        if line_end < end and not text[start:line_end].strip():
            start = line_end + 1  # jdtls starts a Kotlin declaration right after its doc comment's `*/`
        first_line = index.line_of(start)
        if not text[index.line_start(first_line) : start].strip():
            start = index.line_start(first_line)
        name_line = index.line_of(name_start)
        header = locate.header_line(first_line, name_line)
        symbols.append(
            Symbol(
                name=raw.segments[-1],
                name_path="/".join(raw.segments),
                kind=raw.kind,
                start=start,
                end=end,
                name_start=name_start,
                doc_start=min(start, index.line_start(locate.doc_start_line(first_line))),
                header_start=max(start, index.line_start(header)),
                start_line=first_line + 1,
                end_line=index.line_of(max(end - 1, start)) + 1,
                depth=len(raw.segments) - 1,
                indent=index.indentation(first_line),
                has_definition=definition is not None,
            )
        )
    return sorted(symbols, key=lambda s: (s.start, -s.end))
