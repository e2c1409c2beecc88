"""Remove a definition, insert the same text back beside its neighbour: the bytes must not change."""

from __future__ import annotations

from pathlib import Path

from gateway.api import Gateway
from gateway.namepath import address_for
from gateway.symbols.model import Symbol
from gateway.symbols.operations import siblings


def _address(symbols: list[Symbol], symbol: Symbol) -> str:
    return address_for([s.name_path for s in symbols], symbols.index(symbol))


def _neighbours(symbols: list[Symbol], symbol: Symbol) -> tuple[Symbol | None, Symbol | None]:
    """The siblings right before and after, on lines of their own (a parameter on the
    definition's first line is no place to anchor)."""
    first, last = symbol.start_line, symbol.end_line
    parents = [s for s in symbols if s.contains(symbol)]
    header = max(parents, key=lambda s: s.start).start_line if parents else 0
    beside = [s for s in siblings(symbols, symbol) if s.start_line != header]
    before = [s for s in beside if s.end_line < first]
    after = [s for s in beside if s.start_line > last]
    return (before[-1] if before else None), (after[0] if after else None)


def round_trip(gateway: Gateway, root: Path, path: str, symbol_index: int) -> tuple[str, bool] | None:
    """Round-trip the file's `symbol_index`-th definition; None when it has no neighbour to anchor on.

    Returns the symbol's name path and whether the file's bytes came back exactly.
    """
    original = (root / path).read_bytes()
    view = gateway.symbol_service.symbols(path)
    definitions = [s for s in view.symbols if s.has_definition]
    if symbol_index >= len(definitions):
        return None  # clangd may report fewer symbols on a second look at a file it cannot fully resolve
    symbol = definitions[symbol_index]
    previous, following = _neighbours(view.symbols, symbol)
    if previous is None and following is None and symbol.depth > 0:
        return None
    code = view.source.text[symbol.doc_start : symbol.end]
    if previous is not None and following is not None and _gap(view.source.text, symbol, following) < _gap(view.source.text, previous, symbol):
        previous = None  # it sits closer to the next one (an overload group): go back beside that
    gateway.remove_symbol(_address(view.symbols, symbol), path, force=True)
    remaining = gateway.symbol_service.symbols(path)
    removed_length = len(view.source.text) - len(remaining.source.text)
    if previous is not None:
        anchor, position = _found_again(remaining.symbols, previous, symbol, removed_length), "after"
    elif following is not None:
        anchor, position = _found_again(remaining.symbols, following, symbol, removed_length), "before"
    else:
        anchor, position = "/", "after"
    if anchor is None:
        (root / path).write_bytes(original)
        return None
    gateway.insert_code(anchor, path, code, position)
    restored = (root / path).read_bytes()
    (root / path).write_bytes(original)
    return symbol.name_path, restored == original


def _found_again(after: list[Symbol], anchor: Symbol, removed: Symbol, removed_length: int) -> str | None:
    """The anchor's address once `removed` is gone, found by its (shifted) name position.

    None when the server stops reporting it (clangd drops `Circle::area` once `Circle` is gone).
    """
    name_start = anchor.name_start - (removed_length if anchor.start > removed.start else 0)
    target = next((s for s in after if s.name_start == name_start), None)
    return address_for([s.name_path for s in after], after.index(target)) if target else None


def _gap(text: str, upper: Symbol, lower: Symbol) -> int:
    between = text[upper.end : lower.doc_start]
    return max(between.count("\n") - 1, 0)


def definition_count(gateway: Gateway, path: str) -> int:
    return sum(1 for s in gateway.symbol_service.symbols(path).symbols if s.has_definition)
