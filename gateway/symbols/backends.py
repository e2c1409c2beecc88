"""Where symbols come from: a language server's documentSymbol, or our tree-sitter queries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

from gateway.langs import Language
from gateway.priority import give_way
from gateway.symbols.text import LineIndex, byte_to_char
from gateway.syntax import Definition

if TYPE_CHECKING:
    from gateway.lsp.session import LspSession

LSP_KINDS = {
    1: "file", 2: "module", 3: "namespace", 4: "package", 5: "class", 6: "method", 7: "property",
    8: "field", 9: "constructor", 10: "enum", 11: "interface", 12: "function", 13: "variable",
    14: "constant", 15: "string", 16: "number", 17: "boolean", 18: "array", 19: "object", 20: "key",
    21: "null", 22: "enum_member", 23: "struct", 24: "event", 25: "operator", 26: "type_parameter",
}


@dataclass(frozen=True)
class RawSymbol:
    """A symbol as a backend reports it; offsets are characters of the file's text."""

    segments: tuple[str, ...]
    kind: str
    start: int
    end: int
    name_start: int
    # False where the server's range runs past the definition to the next statement (zuban):
    # the definition's extent is then the syntax tree's alone (`normalize.build_symbols`).
    end_exact: bool = True


class SymbolBackend(Protocol):
    """Where a file's symbols come from, and what else it can do. `session`: the language
    server behind it, which answers renames and references (None: the syntax trees alone)."""

    name: str
    note: str

    @property
    def session(self) -> LspSession | None: ...

    def symbols(self, path: Path, text: str, definitions: list[Definition]) -> list[RawSymbol]: ...

    def sync(self, path: Path, text: str, language_id: str, saved: bool = False) -> None:
        """Tell the backend a file's text now (after a write: `saved`)."""


class TreeSitterBackend:
    name = "tree-sitter"
    session = None

    def sync(self, path: Path, text: str, language_id: str, saved: bool = False) -> None:
        return None

    def __init__(self, note: str = "") -> None:
        # Why tree-sitter answers where a server runs (it is still loading the workspace).
        self.note = note

    def symbols(self, path: Path, text: str, definitions: list[Definition]) -> list[RawSymbol]:
        to_char = byte_to_char(text)
        return [
            RawSymbol(
                tuple(d.name_path.split("/")),
                d.kind,
                to_char(d.start_byte),
                to_char(d.end_byte),
                to_char(d.name_start_byte),
            )
            for d in definitions
        ]


class LspBackend:
    """Symbols from a server; `read` gives a file's current text so the server never works on a stale copy."""

    def __init__(self, session: LspSession, lang: Language, read: Callable[[Path], str | None]) -> None:
        self.session = session
        self.lang = lang
        self.read = read
        self.name = f"lsp:{session.name}"
        self.note = ""

    def sync(self, path: Path, text: str, language_id: str, saved: bool = False) -> None:
        self.session.sync(path, text, language_id, saved=saved)

    def symbols(self, path: Path, text: str, definitions: list[Definition]) -> list[RawSymbol]:
        """The server's symbols; the same list for the same answer (the session keeps answers per text)."""
        give_way()  # the daemon's ask ahead sends the text (a long file's, encoded on the session's thread) after the hook's answer
        self.session.refresh(self.read, (path, text))
        patience = self.session.adapter.empty_symbols_while_analysing if definitions else 0.0
        outline = self.session.document_symbols(path, text, self.lang.server.language_id_for(path), patience)
        give_way()  # the daemon's ask ahead reads a long answer after the hook's answer
        return outline.read(lambda reply: self._read(reply, text))

    def _read(self, reply: Any, text: str) -> list[RawSymbol]:
        if reply is None:
            return []
        if not isinstance(reply, list) or not all(isinstance(item, dict) for item in reply):
            raise self.session.fail(f"garbage documentSymbol reply: {str(reply)[:120]}")
        index, items = LineIndex.of(text), cast(list[dict[str, Any]], reply)
        adapter = self.session.adapter
        try:
            if items and "location" in items[0]:
                return _flat(items, index, adapter.name_segments)
            found: list[RawSymbol] = []
            # No giving way here: this runs under the outline's lock (`Outline.read`), which a
            # hook's answer about the same text waits on.
            for item in items:
                _walk(item, (), index, adapter.name_segments, found, not adapter.ranges_run_on)
            return found
        except (KeyError, TypeError, ValueError) as error:
            raise self.session.fail(f"malformed symbol in documentSymbol reply ({error!r})") from None


def _offset(index: LineIndex, position: dict[str, Any]) -> int:
    return index.from_utf16(int(position["line"]), int(position["character"]))


def _walk(item: dict[str, Any], parent: tuple[str, ...], index: LineIndex, split: Any, found: list[RawSymbol], exact: bool = True) -> None:
    segments = (*parent, *split(str(item["name"])))
    start, end = _offset(index, item["range"]["start"]), _offset(index, item["range"]["end"])
    while not exact and end > start and index.text[end - 1].isspace():  # the next statement's blank lines and indentation
        end -= 1
    selection = item.get("selectionRange", item["range"])
    found.append(RawSymbol(segments, LSP_KINDS.get(item["kind"], "symbol"), start, end, _offset(index, selection["start"]), exact))
    for child in item.get("children") or []:
        _walk(child, segments, index, split, found, exact)


def _flat(items: list[dict[str, Any]], index: LineIndex, split: Any) -> list[RawSymbol]:
    """SymbolInformation replies: nesting is rebuilt from range containment."""
    spans = []
    for item in items:
        rng = item["location"]["range"]
        start, end = _offset(index, rng["start"]), _offset(index, rng["end"])
        names = split(str(item["name"]))
        name_at = index.text.find(names[-1], start, end)
        spans.append((start, end, names, LSP_KINDS.get(item["kind"], "symbol"), name_at if name_at >= 0 else start))
    spans.sort(key=lambda s: (s[0], -s[1]))
    found: list[RawSymbol] = []
    stack: list[RawSymbol] = []
    for start, end, names, kind, name_at in spans:
        while stack and stack[-1].end < end:
            stack.pop()
        parent = stack[-1].segments if stack else ()
        symbol = RawSymbol((*parent, *names), kind, start, end, name_at)
        found.append(symbol)
        stack.append(symbol)
    return found
