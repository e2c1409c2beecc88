"""Parsing and definition extraction with tree-sitter, driven by the queries in `queries/`."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import import_module
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path

from tree_sitter import Language as TreeSitterLanguage
from tree_sitter import Node, Parser, Query, QueryCursor, Tree

from gateway.langs import Language


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

    def name_within(self, start: int, end: int) -> bool:
        return start <= self.name_start_byte and self.name_end_byte <= end


# Grammars the pack ships as packages of their own rather than in its bindings folder.
_SEPARATE_PACKAGES = {"csharp": "tree_sitter_c_sharp", "yaml": "tree_sitter_yaml", "embeddedtemplate": "tree_sitter_embedded_template"}


@functools.cache
def _grammar(name: str) -> TreeSitterLanguage:
    """One grammar, loaded alone.

    Importing tree_sitter_language_pack loads several grammars eagerly (~40 ms, paid by
    every hook process), so its one binding module is loaded directly; the pack's own
    loader is the fallback.
    """
    try:
        if name in _SEPARATE_PACKAGES:
            module = import_module(_SEPARATE_PACKAGES[name])
        else:
            pack = find_spec("tree_sitter_language_pack")
            assert pack is not None and pack.submodule_search_locations
            binary = next((Path(pack.submodule_search_locations[0]) / "bindings").glob(f"{name}.*so"))
            spec = spec_from_file_location(f"tree_sitter_language_pack.bindings.{name}", binary)
            assert spec is not None and spec.loader is not None
            module = module_from_spec(spec)
            spec.loader.exec_module(module)
        return TreeSitterLanguage(module.language())
    except (AssertionError, ImportError, StopIteration, AttributeError):
        from tree_sitter_language_pack import get_language

        return get_language(name)  # type: ignore[arg-type]


@functools.cache
def _parser(grammar: str) -> Parser:
    return Parser(_grammar(grammar))


@functools.cache
def _query(lang: Language) -> Query:
    source = lang.query_path.read_text(encoding="utf-8")
    return Query(_grammar(lang.grammar), source)


def parse(lang: Language, source: bytes) -> Tree:
    return _parser(lang.grammar).parse(source)


def _point(source: bytes, offset: int) -> tuple[int, int]:
    row = source.count(b"\n", 0, offset)
    return row, offset - (source.rfind(b"\n", 0, offset) + 1)


def reparse(lang: Language, tree: Tree, before: bytes, after: bytes, start: int, old_end: int, new_end: int) -> Tree:
    """The tree of `after`, which is `before` with [start, old_end) replaced; parsed incrementally."""
    tree.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(before, start),
        old_end_point=_point(before, old_end),
        new_end_point=_point(after, new_end),
    )
    return _parser(lang.grammar).parse(after, tree)


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
    while sibling is not None and (sibling.type in lang.attached_before or "comment" in sibling.type):
        if sibling.type in lang.attached_before:
            first = sibling
        sibling = sibling.prev_named_sibling
    return first


@dataclass
class _Match:
    kind: str
    start: Node
    node: Node
    name: Node
    scope: Node | None
    pattern: int

    @property
    def width(self) -> int:
        return self.node.end_byte - self.start.start_byte


def _best_matches(lang: Language, tree: Tree) -> list[_Match]:
    """One match per name node: the widest definition capture, later patterns breaking ties."""
    best: dict[tuple[int, int], _Match] = {}
    for pattern, captures in QueryCursor(_query(lang)).matches(tree.root_node):
        names = captures.get("name")
        kinds = [key for key in captures if key.startswith("definition.")]
        if not names or not kinds:
            continue
        node = captures[kinds[0]][0]
        scope = captures.get("scope", [None])[0]
        kind = kinds[0].split(".", 1)[1]
        match = _Match(kind, _with_attached(lang, node), node, names[0], scope, pattern)
        key = (match.name.start_byte, match.name.end_byte)
        current = best.get(key)
        if current is None or (match.width, match.pattern) > (current.width, current.pattern):
            best[key] = match
    return sorted(best.values(), key=lambda m: (m.start.start_byte, -m.node.end_byte))


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace").strip()


def _name_segments(lang: Language, match: _Match) -> list[str]:
    text = _text(match.name)
    segments = [text]
    if lang.scope_separator:
        segments = [part.strip() for part in text.split(lang.scope_separator) if part.strip()]
    return ([_text(match.scope)] if match.scope is not None else []) + segments


def definitions(lang: Language, tree: Tree) -> list[Definition]:
    """Every definition in the tree, in source order, with its name path from the nesting."""
    found: list[Definition] = []
    stack: list[Definition] = []
    for match in _best_matches(lang, tree):
        start, end = match.start.start_byte, match.node.end_byte
        while stack and stack[-1].end_byte < end:
            stack.pop()
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
            end_line=_last_line(match.node) + 1,
            name_line=match.name.start_point[0] + 1,
        )
        found.append(definition)
        stack.append(definition)
    return found


def find_definitions(lang: Language, source: bytes) -> list[Definition]:
    return definitions(lang, parse(lang, source))
