"""Tree-sitter's symbols of a text: the structure routing lifts a write on, kept with the
text's syntax tree (gateway.syntax's cache: they go when the tree goes).

A write's B is seen by the gate, the routing and the verification, and its result is the next
write's B, so the symbols are kept with the tree. The symbols of a text parsed incrementally
from a kept one (gateway.syntax.edited_tree) are mostly that one's, moved: a symbol is taken
over when its definition is the same one, moved by the edit, and nothing it was built from
changed (the lines from the one above its doc comment to its end); only the others are built
again. Building every symbol costs a pass over the definitions with line look-ups per symbol,
which on a long file costs more than all the rest of judging and routing an edit.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Tree

from gateway.langs import Language
from gateway.symbols.backends import TreeSitterBackend
from gateway.symbols.model import Symbol
from gateway.symbols.normalize import build_symbols
from gateway.symbols.text import LineIndex, byte_to_char, char_to_byte
from gateway.syntax import Definition, attach, attached, attached_to_base, definitions, definitions_near, parse, utf8

@dataclass
class _Structure:
    length: int
    symbols: list[Symbol]
    reach: dict[int, int]  # by name_start: where what a symbol was built from starts (the line above its doc comment)
    definitions: list[Definition]  # the tree's, which the symbols were built from
    by_name: dict[int, Symbol] | None = None
    by_definition: dict[int, Definition] | None = None
    outermost: list[tuple[int, int]] | None = None

    def named_definitions(self) -> dict[int, Definition]:
        """The definitions the symbols were built from, by where their names start."""
        if self.by_definition is None:
            self.by_definition = {d.name_start_byte: d for d in self.definitions}
        return self.by_definition

    def named(self) -> dict[int, Symbol]:
        """The symbols by where their names start."""
        if self.by_name is None:
            self.by_name = {s.name_start: s for s in self.symbols}
        return self.by_name


def _key(lang: Language) -> str:
    return f"structure:{lang.name}"


def _recall(lang: Language, tree: Tree) -> _Structure | None:
    """The structure kept with `tree` (in the syntax tree cache: it goes when the tree goes)."""
    kept = attached(tree, _key(lang))
    return kept if isinstance(kept, _Structure) else None


def _reach(index: LineIndex, symbol: Symbol) -> int:
    return index.line_start(index.line_of(symbol.doc_start) - 1)


def _built(lang: Language, text: str, tree: Tree, found: list[Definition]) -> list[Symbol]:
    return build_symbols(lang, text, tree, found, TreeSitterBackend().symbols(Path(), text, found))


def _same(old: Definition, new: Definition, by: int) -> bool:
    """Whether `new` is `old` moved `by` bytes (its name path aside)."""
    return (old.kind, old.start_byte + by, old.end_byte + by, old.name_end_byte + by, old.in_error) == (
        new.kind, new.start_byte, new.end_byte, new.name_end_byte, new.in_error
    ) and old.body_start_byte == (None if new.body_start_byte is None else new.body_start_byte - by) and old.header_span == (
        None if new.header_span is None else (new.header_span[0] - by, new.header_span[1] - by)
    )


def _moved(symbol: Symbol, by: int, lines: int, name_path: str) -> Symbol:
    # The frozen dataclass's own __init__ sets each field through object.__setattr__; a long
    # file moves hundreds of symbols per edit, so the copy is made directly (same fields).
    # The depth goes with the name path: an enclosing definition gone or gained (a C++
    # `namespace# Catch {` that loses its name) changes both, the symbol's own text neither.
    moved = object.__new__(Symbol)
    moved.__dict__.update(symbol.__dict__, name_path=name_path, depth=name_path.count("/"), start=symbol.start + by, end=symbol.end + by,
                          name_start=symbol.name_start + by, doc_start=symbol.doc_start + by, header_start=symbol.header_start + by,
                          start_line=symbol.start_line + lines, end_line=symbol.end_line + lines)
    return moved


def _carried(lang: Language, text: str, tree: Tree, found: list[Definition]) -> tuple[list[Symbol], dict[int, int]] | None:
    """The symbols of `found` (definitions of a text parsed incrementally from a kept one), from
    that one's where nothing they were built from changed; None when its symbols are not known."""
    base = attached_to_base(lang, tree, _key(lang))  # held with `tree`: its own tree may be gone from the cache
    if base is None or not isinstance(base[0], _Structure):
        return None
    old, changed, edit = base
    to_char = byte_to_char(text)
    low_byte, high_byte = min([edit.start] + [s for s, _ in changed]), max([edit.new_end] + [e for _, e in changed])
    low, high, shift = to_char(low_byte), to_char(high_byte), len(text) - old.length
    old_defs = old.named_definitions()
    old_symbols, old_reach = old.named(), old.reach
    index = LineIndex.of(text)
    symbols, reach = [], {}
    byte_shift, lines, reach_limit = edit.shift, edit.lines, high - shift
    for definition in found:
        symbol = None
        name_start = definition.name_start_byte
        if name_start >= high_byte:  # after the window: B's, moved
            was = old_defs.get(name_start - byte_shift)
            if was is not None and _same(was, definition, byte_shift):
                symbol = old_symbols.get(to_char(name_start) - shift)
                if symbol is not None and old_reach[symbol.name_start] > reach_limit:
                    reach[symbol.name_start + shift] = old_reach[symbol.name_start] + shift
                    symbol = _moved(symbol, shift, lines, definition.name_path) if shift or symbol.name_path != definition.name_path else symbol
                else:
                    symbol = None
        elif definition.end_byte < low_byte:  # before it: B's
            was = old_defs.get(name_start)
            if was is not None and (was is definition or _same(was, definition, 0)):  # the same one, kept by the derived list
                symbol = old_symbols.get(to_char(name_start))
                if symbol is not None and symbol.end + 1 < low:
                    reach[symbol.name_start] = old_reach[symbol.name_start]
                    symbol = _moved(symbol, 0, 0, definition.name_path) if symbol.name_path != definition.name_path else symbol
                else:
                    symbol = None
        if symbol is None:
            symbol = _built(lang, text, tree, [definition])[0]
            reach[symbol.name_start] = _reach(index, symbol)
        symbols.append(symbol)
    return sorted(symbols, key=lambda s: (s.start, -s.end)), reach


def structure_near(lang: Language, text: str, tree: Tree, window: tuple[int, int]) -> list[Symbol] | None:
    """`structure`'s symbols that lie within `window` (characters; its edges between definitions
    that no definition encloses, and every change of syntax since the text `tree` was parsed
    from inside it), without the rest of the file's: from that text's. None when not known."""
    kept = _recall(lang, tree)
    if kept is not None:
        return within(kept.symbols, window)
    to_byte = char_to_byte(text)
    carried = _carried(lang, text, tree, definitions_near(lang, tree, (to_byte(window[0]), to_byte(window[1]))))
    return None if carried is None else within(carried[0], window)


def within(symbols: list[Symbol], window: tuple[int, int]) -> list[Symbol]:
    """The symbols whose extents (doc comment to end) lie in `window`."""
    return [s for s in symbols if window[0] <= s.doc_start and s.end <= window[1]]


def structure(lang: Language, text: str, tree: Tree | None = None) -> list[Symbol]:
    """Tree-sitter's symbols of `text` (`tree`: its syntax tree, when parsed already)."""
    return list(_kept(lang, text, tree or parse(lang, utf8(text))).symbols)


# The trees whose structure a thread is working out now: another thread that needs the same one
# (the daemon's background ask about a text just written, and the next edit of that text) waits
# for it rather than working it out beside it, for the same interpreter lock.
_building: dict[tuple[int, str], threading.Event] = {}
_building_lock = threading.Lock()


def _kept(lang: Language, text: str, tree: Tree) -> _Structure:
    """The structure kept with `tree`, worked out (and kept) when it is not yet, once."""
    key = (id(tree), _key(lang))
    while (kept := _recall(lang, tree)) is None:
        with _building_lock:
            other = _building.get(key)
            if other is None:
                mine = _building[key] = threading.Event()
        if other is None:
            try:
                return _worked_out(lang, text, tree)
            finally:
                with _building_lock:
                    del _building[key]
                mine.set()
        other.wait()  # kept when it is set, unless that thread failed: then worked out here
    return kept


def _worked_out(lang: Language, text: str, tree: Tree) -> _Structure:
    found = definitions(lang, tree)  # once: a tree outside the cache (`parse_once`) keeps no list to find it again
    derived = _carried(lang, text, tree, found)
    if derived is not None:
        symbols, reach = derived
    else:
        symbols = _built(lang, text, tree, found)
        index = LineIndex.of(text)
        reach = {s.name_start: _reach(index, s) for s in symbols}
    kept = _Structure(len(text), symbols, reach, found)
    attach(tree, _key(lang), kept)
    return kept


def outermost(lang: Language, text: str, tree: Tree | None = None) -> list[tuple[int, int]] | None:
    """The extents (doc comment to end, in characters) of `structure`'s symbols that no other
    holds, in order; None when two of them overlap without one holding the other."""
    kept = _kept(lang, text, tree or parse(lang, utf8(text)))
    if kept.outermost is None:
        blocks: list[tuple[int, int]] = []
        for start, end in sorted(((s.doc_start, s.end) for s in kept.symbols), key=lambda b: (b[0], -b[1])):
            if blocks and start < blocks[-1][1]:
                if end > blocks[-1][1]:
                    return None
                continue
            blocks.append((start, end))
        kept.outermost = blocks
    return kept.outermost


def worked_out_ahead(lang: Language, text: str) -> None:
    """What the next write to `text` is planned on, worked out now: its structure, its outermost
    extents, and its definitions and symbols by where their names start (what that write's
    symbols are carried over by). The daemon's background ask about a text just written calls
    it, so that the next edit's hook does not pass over every symbol of a long file for them."""
    tree = parse(lang, utf8(text))
    outermost(lang, text, tree)
    kept = _kept(lang, text, tree)
    kept.named()
    kept.named_definitions()
