"""Routing: a blocked text edit turned into the symbol operations it unambiguously means.

Recognised shapes: `old_string` covers whole definitions and `new_string` holds their
replacements in the same order (replace_symbol each); `old_string` kept and whole new
definitions added before or after it (insert_code); `new_string` empty (remove_symbol).
Anything else is refused as the gate refuses it. All operations run in memory, are
verified together and written once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gateway.gate.verdict import Classification
from gateway.diffs import unified_diff
from gateway.edits import occurrences
from gateway.errors import Blocked
from gateway.symbols.backends import LspBackend, TreeSitterBackend
from gateway.symbols.model import Symbol
from gateway.symbols.operations import TextChange, insert_text, remove_text, replace_text, verify
from gateway.symbols.service import FileSymbols, SymbolService, symbols_of
from gateway.workspace import SourceFile


@dataclass(frozen=True)
class _Step:
    operation: str
    symbol: Symbol | None
    code: str = ""
    position: str = ""
    start: int | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"operation": self.operation, "name_path": self.symbol.name_path if self.symbol else "/"}
        if self.position:
            entry["position"] = self.position
        return entry


def _outermost(symbols: list[Symbol]) -> list[Symbol]:
    return [s for s in symbols if not any(o.contains(s) for o in symbols)]


def _covering(text: str, span: tuple[int, int], symbols: list[Symbol]) -> list[Symbol] | None:
    """The whole definitions that make up `span` (whitespace aside), or None if it holds anything else."""
    start, end = _line_start(text, span[0]), span[1]
    # A definition counts from its doc comment, its decorators, or its header (decorators left out).
    inside = _outermost([s for s in symbols if s.has_definition and start <= s.header_start and s.end <= end])
    cursor = start
    for symbol in sorted(inside, key=lambda s: s.start):
        begins = [b for b in (symbol.doc_start, symbol.start, symbol.header_start) if b >= cursor]
        if not begins or text[cursor : min(begins)].strip():
            return None
        cursor = symbol.end
    if text[cursor:end].strip() or not inside:
        return None
    return sorted(inside, key=lambda s: s.start)


def _line_start(text: str, offset: int) -> int:
    """`offset` moved back to its line's start when only indentation precedes it."""
    start = text.rfind("\n", 0, offset) + 1
    return start if not text[start:offset].strip() else offset


def _chunks(text: str, span: tuple[int, int], symbols: list[Symbol]) -> list[str]:
    """The text of each definition in `span`, doc comment and decorators included."""
    chunks, cursor = [], _line_start(text, span[0])
    for symbol in symbols:
        chunks.append(text[cursor : symbol.end])
        cursor = symbol.end
    return chunks


def _plan(view: FileSymbols, old: str, new: str, at: int) -> list[_Step] | None:
    text = view.source.text
    old_span = (at, at + len(old))
    covered = _covering(text, old_span, view.symbols)
    if not new.strip():
        return [_Step("remove_symbol", s) for s in covered] if covered else None
    edited = text[:at] + new + text[at + len(old) :]
    after = symbols_of(view.lang, view.source.path, edited, TreeSitterBackend())
    kept = new.find(old)
    if kept >= 0:
        steps = []
        before_span, after_span = (at, at + kept), (at + kept + len(old), at + len(new))
        for span, position in ((after_span, "after"), (before_span, "before")):
            if not edited[span[0] : span[1]].strip():
                continue
            added = _covering(edited, span, after)
            anchor = _insert_anchor(view.symbols, covered, old_span, text, position)
            if added is None or anchor is None:
                return None
            steps.append(_Step("insert_code", anchor, edited[_line_start(edited, span[0]) : span[1]], position))
        return steps or None
    replacements = _covering(edited, (at, at + len(new)), after)
    if not covered or not replacements or len(covered) != len(replacements):
        return None
    chunks = _chunks(edited, (at, at + len(new)), replacements)
    begins = _line_start(text, at)
    return [_Step("replace_symbol", s, code, start=_replaced_from(s, begins)) for s, code in zip(covered, chunks, strict=True)]


def _replaced_from(symbol: Symbol, at: int) -> int:
    """What old_string covered of the symbol is what gets replaced: a decorator it
    covered and new_string dropped is dropped, one it left out is kept."""
    if at <= symbol.doc_start:
        return symbol.doc_start
    return symbol.start if at <= symbol.start else symbol.header_start


def _insert_anchor(symbols: list[Symbol], covered: list[Symbol] | None, span: tuple[int, int], text: str, position: str) -> Symbol | None:
    """Where added definitions go: next to the definitions old_string covers, or the one it ends (starts) with."""
    if covered:
        return covered[-1] if position == "after" else covered[0]
    chunk = text[span[0] : span[1]]
    trimmed_start = span[0] + len(chunk) - len(chunk.lstrip())
    trimmed_end = span[1] - (len(chunk) - len(chunk.rstrip()))
    if position == "after":
        ending = [s for s in symbols if s.has_definition and s.end == trimmed_end]
        return min(ending, key=lambda s: s.depth) if ending else None
    starting = [s for s in symbols if s.has_definition and trimmed_start in (s.start, s.doc_start)]
    return min(starting, key=lambda s: s.depth) if starting else None


def route_edit(service: SymbolService, classification: Classification, source: SourceFile, old: str, new: str, replace_all: bool) -> Any:
    from gateway.api import EditResult

    view = service.file_symbols(source)
    positions = occurrences(source.text, old)
    steps = _plan(view, old, new, positions[0]) if len(positions) == 1 and not replace_all else None
    if not steps:
        raise Blocked(classification)
    text = source.text
    first, last = len(text), 0
    # From the last step to the first, so every symbol's offsets stay valid.
    for step in sorted(steps, key=lambda s: s.symbol.start if s.symbol else 0, reverse=True):
        change = _run(view, text, step)
        first, last = min(first, change.replaced[0]), max(last, change.replaced[1])
        text = change.text
    delta = len(text) - len(source.text)
    combined = TextChange(text, 1, 1, (first, last), (first, last + delta))
    verify(view.lang, source.display, source.text, combined, any(s.operation != "remove_symbol" for s in steps))
    service.workspace.write(source, text)
    if isinstance(view.backend, LspBackend):
        view.backend.session.sync(source.path, text, view.lang.server.language_id_for(source.path), saved=True)
    routed = tuple(step.to_json() for step in steps)
    performed = ", ".join(f"{r['operation']} {r['name_path']}" for r in routed)
    message = f"Routed: {performed} in {source.display} via {view.backend.name}."
    return EditResult(
        classification=classification,
        path=source.display,
        replacements=1,
        lines=(source.text.count("\n", 0, positions[0]) + 1,),
        diff=unified_diff(source.display, source.text, text),
        routed=routed,
        backend=view.backend.name,
        message=message,
    )


def _run(view: FileSymbols, text: str, step: _Step) -> TextChange:
    if step.operation == "remove_symbol" and step.symbol:
        return remove_text(text, view.symbols, step.symbol)
    if step.operation == "replace_symbol" and step.symbol:
        return replace_text(view.lang, text, step.symbol, step.code, step.start)
    return insert_text(view.lang, text, view.symbols, step.symbol, step.position, step.code)
