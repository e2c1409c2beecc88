"""Remove a definition, insert the same text back beside its neighbour: the bytes must not change.

Two more checks, since the insertion back restores what the removal remembers it took (so a
removal that left a decorator would come back byte for byte too): the removal took the whole
definition with its doc comment and decorators, and the same code inserted afresh (its text
planned, not written, with no removal to recall) lands beside the anchor, at its indentation."""

from __future__ import annotations

import re
from pathlib import Path

from gateway.api import Gateway
from gateway.namepath import address_for
from gateway.symbols.model import Symbol
from gateway.symbols.operations import insert_text, siblings
from gateway.symbols.service import FileSymbols
from gateway.symbols.text import LineIndex

_BLANKS = re.compile(r"\s+")


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

    Returns the symbol's name path (with what went wrong, when something did) and whether the
    file's bytes came back exactly, the removal took the whole definition and a fresh insertion
    lands where it belongs.
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
        found, position = _found_again(remaining.symbols, previous, symbol, removed_length), "after"
    elif following is not None:
        found, position = _found_again(remaining.symbols, following, symbol, removed_length), "before"
    else:
        found, position = None, "after"
    if found is None and (previous is not None or following is not None):
        (root / path).write_bytes(original)
        return None
    wrong = _removal_problem(view.source.text, remaining.source.text, symbol) or _fresh_insert_problem(remaining, found, position, code)
    gateway.insert_code(_address(remaining.symbols, found) if found else "/", path, code, position)
    restored = (root / path).read_bytes()
    (root / path).write_bytes(original)
    if wrong is None and restored != original:
        wrong = "inserted back, the bytes differ"
    return (symbol.name_path, True) if wrong is None else (f"{symbol.name_path} ({wrong})", False)


def _removal_problem(before: str, after: str, symbol: Symbol) -> str | None:
    """What the removal left of the definition (its doc comment, decorators, code), or took
    beyond it; blank space, and a `;` or `,` right after it, aside."""
    rest = before[symbol.end :]
    wanted = {_BLANKS.sub("", before[: symbol.doc_start] + rest)}
    if rest.lstrip()[:1] in (";", ","):
        wanted.add(_BLANKS.sub("", before[: symbol.doc_start] + rest.lstrip()[1:]))
    return None if _BLANKS.sub("", after) in wanted else "the removal did not take exactly the definition with its comment and decorators"


def _fresh_insert_problem(view: FileSymbols, anchor: Symbol | None, position: str, code: str) -> str | None:
    """Where the code, inserted afresh beside `anchor` (None: at the file's end), lands: right
    after the anchor's last line (or right before its first), at its indentation."""
    text, index = view.source.text, LineIndex.of(view.source.text)
    result = insert_text(view.lang, text, view.symbols, anchor, position, code).text
    expected = [line.strip() for line in code.split("\n") if line.strip()]
    indent = anchor.indent if anchor is not None else ""
    if position == "after":
        kept = text[: index.line_end(index.line_of(anchor.end))] if anchor is not None else text.rstrip("\n")
        lines = [line for line in result[len(kept) :].split("\n") if line.strip()][: len(expected)] if result.startswith(kept) else []
    else:
        assert anchor is not None
        kept = text[index.line_start(index.line_of(anchor.doc_start)) :]
        lines = [line for line in result[: len(result) - len(kept)].split("\n") if line.strip()][-len(expected) :] if result.endswith(kept) else []
    if [line.strip() for line in lines] != expected or not lines[0].startswith(indent) or lines[0][len(indent) :][:1].isspace():
        return f"a fresh insertion {position} its anchor did not land right {position} it, at its indentation"
    return None


def _found_again(after: list[Symbol], anchor: Symbol, removed: Symbol, removed_length: int) -> Symbol | None:
    """The anchor once `removed` is gone, found by its (shifted) name position.

    None when the server stops reporting it (clangd drops `Circle::area` once `Circle` is gone).
    """
    name_start = anchor.name_start - (removed_length if anchor.start > removed.start else 0)
    return next((s for s in after if s.name_start == name_start), None)


def _gap(text: str, upper: Symbol, lower: Symbol) -> int:
    between = text[upper.end : lower.doc_start]
    return max(between.count("\n") - 1, 0)


def definition_count(gateway: Gateway, path: str) -> int:
    return sum(1 for s in gateway.symbol_service.symbols(path).symbols if s.has_definition)


SOURCE_SUFFIXES = {".py", ".ts", ".tsx", ".js", ".jsx", ".go", ".c", ".cpp", ".rs", ".java", ".kt", ".cs", ".rb", ".sh"}


def round_trip_every_definition(gateway: Gateway, root: Path, files: list[str]) -> tuple[list[str], list[str]]:
    """Every definition of each of `files` (under `root`) that has a neighbour round-tripped:
    (those restored exactly, those not, with what went wrong)."""
    exact, broken = [], []
    for path in sorted(name for name in files if Path(name).suffix in SOURCE_SUFFIXES and (root / name).stat().st_size):
        for index in range(definition_count(gateway, path)):
            outcome = round_trip(gateway, root, path, index)
            if outcome is not None:
                (exact if outcome[1] else broken).append(f"{path}:{outcome[0]}")
    return exact, broken
