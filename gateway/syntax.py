"""Parsing and definition extraction with tree-sitter, driven by the queries in `queries/`."""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from importlib import import_module
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path

from tree_sitter import Language as TreeSitterLanguage
from tree_sitter import Node, Parser, Query, QueryCursor, Range, Tree, TreeCursor

from gateway.incremental import TextEdit, merged
from gateway.langs import Language, LanguageRegistry


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


_LONE_CR = re.compile(rb"\r(?!\n)")
_SPACED_SPLICE = re.compile(rb"\\([ \t]+)(?=\r?\n)")


def _parse_input(lang: Language, source: bytes) -> bytes:
    """Grammars break lines at LF only; a lone CR (classic Mac files) becomes LF, byte for byte.
    In C and C++, a backslash before blanks at a line's end splices the lines as the compilers
    do (a comment ending in a backslash and a space comments out the next line); it is moved to the line's end, in place."""
    if b"\r" in source:
        source = _LONE_CR.sub(b"\n", source)
    if lang.preprocessor is not None:
        if b"\\" in source:
            source = _SPACED_SPLICE.sub(lambda m: m.group(1) + b"\\", source)
        for pattern, word in lang.preprocessor.rewrites:
            source = pattern.sub(lambda m: _rewritten(m, word), source)
    return source


def _rewritten(match: re.Match[bytes], word: bytes) -> bytes:
    start, end = match.span("text")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + word.ljust(end - start)[: end - start] + whole[end - offset :]


@dataclass
class _Cached:
    tree: Tree
    source: bytes
    definitions: dict[Language, list[Definition]]  # the whole tree's, by the language whose query found them
    # The source this tree was parsed from incrementally (its tree is looked up, never held: a
    # chain of trees would outlive the cache's bound), the byte ranges of this one where the
    # edit or the syntax changed (outside them, every character has the same ancestors in
    # both), and the edit.
    base: tuple[bytes, list[tuple[int, int]], TextEdit] | None = None
    attached: dict[str, Any] = field(default_factory=dict)  # what other modules work out once per tree


class _TreeCache:
    """The last parsed trees by (grammar, exact source), each with its whole-tree definitions once
    asked for: a warm process (the daemon) judges an edit without parsing the file it has seen,
    and the tree of the edit's result, parsed incrementally, is the next edit's starting tree.
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
            old = self._entries.pop((grammar, source), None)
            if old is not None:
                del self._by_tree[id(old.tree)]
                self._bytes -= len(source)
            self._entries[(grammar, source)] = self._by_tree[id(tree)] = _Cached(tree, source, {})
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
            entry = self._entry(tree)
            if entry is not None:
                entry.base = (base, changed, edit)

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

    def attached(self, tree: Tree, key: str) -> Any:
        with self._lock:
            entry = self._entry(tree)
            return entry.attached.get(key) if entry is not None else None

    def attach(self, tree: Tree, key: str, value: Any) -> None:
        with self._lock:
            entry = self._entry(tree)
            if entry is not None:
                entry.attached[key] = value

    def definitions(self, lang: Language, tree: Tree) -> list[Definition]:
        """The whole tree's definitions, found once per cached tree and language."""
        with self._lock:
            entry = self._by_tree.get(id(tree))
            known = entry.definitions.get(lang) if entry is not None and entry.tree is tree else None
        if known is None:
            known = self._derived(lang, entry) if entry is not None and entry.tree is tree else None
            if known is None:
                known = _definitions(lang, tree, None)
            if entry is not None:
                with self._lock:
                    entry.definitions[lang] = known
        return list(known)

    def _derived(self, lang: Language, entry: _Cached) -> list[Definition] | None:
        """The definitions of a tree parsed incrementally from one whose list is known: that
        list outside the changed window, the window looked at afresh (gateway.incremental)."""
        found = self.base(lang.grammar, entry.tree)
        if found is None:
            return None
        base, changed, edit = found
        with self._lock:
            old = self._entry(base)
            before = old.definitions.get(lang) if old is not None else None
        tree = entry.tree
        if before is None or tree.root_node.has_error or base.root_node.has_error:
            return None
        low, high = min([edit.start] + [s for s, _ in changed]), max([edit.new_end] + [e for _, e in changed])
        high = _reach(tree, low, high)
        while True:  # reaching a node may reach an attribute whose definition lies past it
            wide = (max(low - 1, 0), high + 1)  # decorators that only touch the window too
            ends = (widened_range(lang, tree, wide)[1], widened_range(lang, base, (wide[0], wide[1] - edit.shift))[1] + edit.shift)
            grown = _reach(tree, low, max([high, *(end for end in ends if end > wide[1])]))
            if grown == high:
                return merged(before, _definitions(lang, tree, (low, high)), low, high, edit)
            high = grown


def _reach(tree: Tree, low: int, high: int) -> int:
    """`high`, or the end of the largest node that starts in [low, high] and holds it: a query
    bounded at `high` misses a definition starting there whose name comes after."""
    node = tree.root_node.descendant_for_byte_range(high, high)
    while node is not None and node.parent is not None and node.parent.start_byte >= low:
        node = node.parent
    return max(high, node.end_byte) if node is not None and node.start_byte >= low else high


_TREES = _TreeCache(16, 2 << 20)


def parse_once(lang: Language, source: bytes) -> Tree:
    """`parse` without keeping the tree in the cache."""
    return _TREES.get(lang.grammar, source) or _parser(lang.grammar).parse(_parse_input(lang, source))
_ENCODED: OrderedDict[str, bytes] = OrderedDict()
_encoded_lock = threading.Lock()


def utf8(text: str) -> bytes:
    """`text` in UTF-8 (lone surrogates passed through), kept for the last few texts: one
    write's B and A are encoded by the gate, the routing and the verification alike."""
    if text.isascii():
        return text.encode()
    with _encoded_lock:
        found = _ENCODED.get(text)
        if found is not None:
            return found
    found = text.encode("utf-8", "surrogatepass")
    with _encoded_lock:
        _ENCODED[text] = found
        while len(_ENCODED) > 12 or (len(_ENCODED) > 2 and sum(map(len, _ENCODED.values())) > 8 << 20):
            _ENCODED.popitem(last=False)
    return found


def parse(lang: Language, source: bytes) -> Tree:
    tree = _TREES.get(lang.grammar, source)
    if tree is None:
        tree = _parser(lang.grammar).parse(_parse_input(lang, source))
        _TREES.put(lang.grammar, source, tree)
    return tree


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
    parsed = _parse_input(lang, after)
    if parsed is not after or lang.preprocessor is not None:
        start, old_end, new_end = _widened_edit(_parse_input(lang, before), parsed, start, old_end, new_end)
    edited = tree.copy()
    edited.edit(
        start_byte=start,
        old_end_byte=old_end,
        new_end_byte=new_end,
        start_point=_point(before, start),
        old_end_point=_point(before, old_end),
        new_end_point=_point(after, new_end),
    )
    new_tree = _parser(lang.grammar).parse(parsed, edited)
    changed = [(r.start_byte, r.end_byte) for r in edited.changed_ranges(new_tree)]
    _TREES.put(lang.grammar, after, new_tree)
    lines = after.count(b"\n", start, new_end) - before.count(b"\n", start, old_end)
    _TREES.derive(lang.grammar, new_tree, before, [*changed, (start, new_end)], TextEdit(start, old_end, new_end, lines))
    return new_tree, changed


def _widened_edit(before: bytes, after: bytes, start: int, old_end: int, new_end: int) -> tuple[int, int, int]:
    """(start, old_end, new_end) grown to take in every byte where `before` and `after` differ."""
    if before == after:
        return start, old_end, new_end
    prefix = common_prefix(before, after)
    suffix = common_suffix(before, after, min(len(before), len(after)) - prefix)
    return min(start, prefix), max(old_end, len(before) - suffix), max(new_end, len(after) - suffix)


_STEP = 4096


def common_prefix(a: bytes, b: bytes) -> int:
    """The length of the longest prefix on which they agree: in steps (slices this short cost
    nothing to copy), then by halving within the step that differs."""
    limit = min(len(a), len(b))
    at = 0
    while at < limit and a[at : at + _STEP] == b[at : at + _STEP]:
        at = min(at + _STEP, limit)
    low, high = at, min(at + _STEP, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[at:middle] == b[at:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """The length of the longest suffix on which they agree, up to `limit`."""
    at = 0
    while at < limit and a[len(a) - min(at + _STEP, limit) : len(a) - at] == b[len(b) - min(at + _STEP, limit) : len(b) - at]:
        at = min(at + _STEP, limit)
    low, high = at, min(at + _STEP, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - at] == b[len(b) - middle : len(b) - at]:
            low = middle
        else:
            high = middle - 1
    return low


def parse_from(lang: Language, base: bytes, source: bytes) -> Tree:
    """The tree of `source`, parsed incrementally from the tree of `base` where they differ
    (a text an operation made from another): the result is the same tree as `parse`, and
    what is worked out from it can be carried over from the base's."""
    tree = _TREES.get(lang.grammar, source)
    if tree is not None or base == source:
        return tree or parse(lang, source)
    start = common_prefix(base, source)
    end = common_suffix(base, source, min(len(base), len(source)) - start)
    return edited_tree(lang, parse(lang, base), base, source, start, len(base) - end, len(source) - end)[0]


def base_of(lang: Language, tree: Tree) -> tuple[Tree, list[tuple[int, int]], TextEdit] | None:
    """The tree `tree` was parsed from incrementally (`edited_tree`), the byte ranges of `tree`
    where the edit or the syntax changed (outside them, every character has the same ancestors
    in both trees), and the edit; None when not known (or no longer cached)."""
    return _TREES.base(lang.grammar, tree)


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
    for pattern, captures in cursor.matches(tree.root_node):
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


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", "replace").strip()


_PARAMETERS = re.compile(r"(?<!operator)\s*\(.*", re.DOTALL)


def _name_segments(lang: Language, match: _Match) -> list[str]:
    text = _PARAMETERS.sub("", _text(match.name))  # `operator bool() const` is named `operator bool`
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


def definitions(lang: Language, tree: Tree, byte_range: tuple[int, int] | None = None) -> list[Definition]:
    """Every definition in the tree, in source order, with its name path from the nesting.

    With `byte_range`, only the definitions that meet it (edges included), and so also every
    definition enclosing it (their name paths need them); `widened_range` first, where
    decorators or attributes attached to a definition may fall inside the range without it.
    `in_error`: an ERROR node swallowed it. A whole tree's list is kept with the tree.
    """
    return _definitions(lang, tree, byte_range) if byte_range is not None else _TREES.definitions(lang, tree)


def _definitions(lang: Language, tree: Tree, byte_range: tuple[int, int] | None) -> list[Definition]:
    found: list[Definition] = []
    stack: list[Definition] = []
    for match in _best_matches(lang, tree, byte_range):
        start, end = match.start.start_byte, match.last.end_byte
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
            end_line=_last_line(match.last) + 1,
            name_line=match.name.start_point[0] + 1,
            body_start_byte=_body_start(lang, match.body) if match.body is not None else None,
            body_end_byte=match.body_end.end_byte if match.body_end is not None else None,
            in_error=match.in_error,
            header_span=(match.header.start_byte, match.header.end_byte) if match.header is not None else None,
        )
        found.append(definition)
        stack.append(definition)
    if byte_range is not None:
        start, end = byte_range
        return [d for d in found if d.start_byte <= end and d.end_byte >= start]
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
        sibling = node.next_named_sibling
        while sibling is not None and (sibling.type in lang.attached_before or "comment" in sibling.type):
            sibling = sibling.next_named_sibling
        if sibling is not None:
            end = max(end, sibling.end_byte)
    return byte_range[0], end


def find_definitions(lang: Language, source: bytes) -> list[Definition]:
    return definitions(lang, parse(lang, source))


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


_ERRORS: dict[str, Query] = {}


def error_count(lang: Language, source: bytes) -> int:
    """How many places of `source` the language's grammar cannot parse: ERROR nodes, and the
    tokens it had to make up (MISSING `;`: C reading a C++ `enum class`)."""
    tree = parse(lang, source)
    if not tree.root_node.has_error:
        return 0
    query = _ERRORS.get(lang.grammar) or _ERRORS.setdefault(lang.grammar, Query(_grammar(lang.grammar), "(ERROR) @error (MISSING) @error"))
    return len(QueryCursor(query).captures(tree.root_node).get("error", []))

def pick(candidates: list[Language], text: str, also: str | None = None) -> Language | None:
    """Of the languages that may claim a file, the one whose grammar reads `text` (and `also`:
    the text a write leaves, where `text` is the one before it) best; ties go to the first."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    sources = [t.encode("utf-8", "surrogatepass") for t in (text, also) if t is not None]
    return min(candidates, key=lambda lang: sum(error_count(lang, source) for source in sources))


def language_for(registry: LanguageRegistry, path: str | os.PathLike[str], text: str | None, also: str | None = None) -> Language | None:
    """The file's language: by its name (or `#!` line), and where several claim it, by grammar
    (an empty C++ header reads as C too: what a write puts in it decides)."""
    candidates = registry.candidates(path, text)
    return pick(candidates, text, also) if text is not None else (candidates[0] if candidates else None)
