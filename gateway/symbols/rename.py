"""Rename: the server's workspace edit (or same-file identifiers on tree-sitter), all files or none."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlparse

from tree_sitter import Node

from gateway.diffs import unified_diff
from gateway.errors import GatewayError, NotFound, ServerFailed, UsageError
from gateway.symbols.backends import LspBackend
from gateway.symbols.model import Symbol
from gateway.symbols.operations import TextChange, refuse_collision, verify
from gateway.symbols.service import FileSymbols, OperationResult, SymbolService
from gateway.symbols.text import LineIndex, byte_to_char
from gateway.syntax import parse
from gateway.textfile import decode
from gateway.workspace import SourceFile

_IDENTIFIER = re.compile(r"^[^\W\d]\w*[?!]?$")
_SCOPES_OF_LOCALS = {"function", "method", "constructor"}
MAX_OPENED = 200


@dataclass(frozen=True)
class StagedFile:
    source: SourceFile
    text: str


def _uri_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ServerFailed(f"rename touches a non-file resource: {uri}")
    return Path(unquote(parsed.path))


def _edits_by_file(reply: Any) -> dict[Path, list[dict[str, Any]]]:
    if not isinstance(reply, dict):
        raise ServerFailed(f"garbage rename reply: {str(reply)[:120]}")
    edits: dict[Path, list[dict[str, Any]]] = {}
    for uri, changes in (reply.get("changes") or {}).items():
        edits.setdefault(_uri_path(uri), []).extend(changes)
    for change in reply.get("documentChanges") or []:
        if "textDocument" not in change:
            raise ServerFailed(f"rename wants a file operation the gateway does not perform: {change.get('kind')}")
        edits.setdefault(_uri_path(change["textDocument"]["uri"]), []).extend(change["edits"])
    return edits


def _apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    index = LineIndex.of(text)
    spans = []
    for edit in edits:
        rng = edit["range"]
        start = index.from_utf16(rng["start"]["line"], rng["start"]["character"])
        end = index.from_utf16(rng["end"]["line"], rng["end"]["character"])
        spans.append((start, end, edit["newText"].replace("\r\n", "\n")))
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _same_file_identifiers(view: FileSymbols, symbol: Symbol, new_name: str) -> str:
    """Every identifier token spelled like the symbol, in its own file: a syntactic rename."""
    text = view.source.text
    tree = parse(view.lang, text.encode())
    to_char = byte_to_char(text)
    spans: list[tuple[int, int]] = []

    def visit(node: Node) -> None:
        if node.child_count == 0:
            if ("identifier" in node.type or node.type in ("constant", "word")) and node.text == symbol.name.encode():
                spans.append((to_char(node.start_byte), to_char(node.end_byte)))
            return
        for child in node.children:
            visit(child)

    visit(tree.root_node)
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + new_name + text[end:]
    return text


def plan_rename(
    service: SymbolService, view: FileSymbols, symbol: Symbol, new_name: str, read: Callable[[Path], SourceFile]
) -> list[StagedFile]:
    """Every file's text after renaming `symbol`, each re-parsed; `read` supplies the other files.

    The server is asked about the text in `view` (which it was just given), so a caller may
    rename in text not yet written (a contract's earlier steps).
    """
    if not _IDENTIFIER.match(new_name):
        raise UsageError(f"{new_name!r} is not an identifier")
    refuse_collision(view.symbols, symbol, new_name, view.source.display)
    if isinstance(view.backend, LspBackend):
        session = view.backend.session
        # A rename answered while the server still loads the project misses other files: give it
        # the files that spell the name first, then wait until it has taken them in.
        _open_mentions(service, view, symbol)
        session.wait_until_idle(session.timeout / 2)
        line, character = LineIndex.of(view.source.text).to_utf16(symbol.name_start)
        uri = view.source.path.as_uri()
        reply = session.request(
            "textDocument/rename",
            lambda h: h.send.rename(
                {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}, "newName": new_name}
            ),
        )
        if not reply:
            raise NotFound(f"{session.name} found nothing to rename at {symbol.name_path} in {view.source.display}")
        planned = _edits_by_file(reply)
    else:
        planned = {view.source.path: []}
    staged = []
    for file, edits in sorted(planned.items()):
        source = view.source if file == view.source.path else read(file)
        text = _apply_edits(source.text, edits) if edits else _same_file_identifiers(view, symbol, new_name)
        lang = service.language(source)
        verify(lang, source.display, source.text, TextChange(text, 1, 1, (0, len(source.text)), (0, len(text))), False)
        staged.append(StagedFile(source, text))
    return staged


def rename_symbol(service: SymbolService, name_path: str, path: str, new_name: str) -> OperationResult:
    workspace = service.workspace
    with contextlib.ExitStack() as locks:
        locks.enter_context(workspace.locked(path))
        view = service.symbols(path)
        symbol = view.resolve(name_path)

        def read_locked(file: Path) -> SourceFile:
            locks.enter_context(workspace.locked(file))
            return workspace.read(file)

        staged = plan_rename(service, view, symbol, new_name, read_locked)
        service.commit(view.backend, [(s.source, s.text) for s in staged])
    changed = [s for s in staged if s.text != s.source.text]
    mentioned = [] if isinstance(view.backend, LspBackend) else _mentioned_elsewhere(service, view, symbol)
    scope = ""
    if not isinstance(view.backend, LspBackend):
        scope = " (this file only: with no language server, other files were not searched"
        scope += f"; {len(mentioned)} mention {symbol.name}: {', '.join(mentioned[:5])})" if mentioned else ")"
    return OperationResult(
        operation="rename_symbol",
        name_path=name_path,
        path=view.source.display,
        backend=view.backend.name,
        start_line=symbol.start_line,
        end_line=symbol.end_line,
        diff="".join(unified_diff(s.source.display, s.source.text, s.text) for s in changed),
        message=f"renamed {name_path} to {new_name} in {len(changed)} file(s){scope} via {view.backend.name}",
        details={"files": [s.source.display for s in changed], "new_name": new_name, "complete": not mentioned, "mentioned_in": mentioned},
    )


def _mentioning(service: SymbolService, view: FileSymbols, symbol: Symbol) -> list[Path]:
    """Other source files that spell the symbol's name as a word, unless the symbol is local to a function."""
    if any(s.kind in _SCOPES_OF_LOCALS and s.contains(symbol) for s in view.symbols):
        return []
    word = re.compile(rb"(?<![\w$])" + re.escape(symbol.name.encode()) + rb"(?![\w$])")
    return [path for path in service.source_files() if path != view.source.path and word.search(path.read_bytes())]


def _mentioned_elsewhere(service: SymbolService, view: FileSymbols, symbol: Symbol) -> list[str]:
    return [service.workspace.display(path) for path in _mentioning(service, view, symbol)]


def _open_mentions(service: SymbolService, view: FileSymbols, symbol: Symbol) -> None:
    """Open in the server every file it serves that mentions the name (at most MAX_OPENED)."""
    assert isinstance(view.backend, LspBackend)
    backend = view.backend
    for path in _mentioning(service, view, symbol)[:MAX_OPENED]:
        lang = service.registry.for_path(path)
        if lang is None or lang.server != backend.lang.server:
            continue
        try:
            text = decode(path.read_bytes(), str(path), lang.encoding_cookie)[0]
        except (OSError, GatewayError):
            continue  # a file the server cannot be given; the rename's own checks still run
        backend.session.sync(path, text, lang.server.language_id_for(path))
