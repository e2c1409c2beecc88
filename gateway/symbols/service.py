"""Symbol operations on workspace files: resolve by name path, edit, verify, write, sync the server."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tree_sitter import Tree

from gateway.bounded import Bounded
from gateway.diffs import unified_diff
from gateway.errors import GatewayError, UsageError
from gateway.langs import Language, LanguageRegistry
from gateway.symbols.backends import LspBackend, RawSymbol, SymbolBackend, TreeSitterBackend
from gateway.namepath import NamePath
from gateway.priority import background
from gateway.symbols import removals
from gateway.symbols.addresses import addresses
from gateway.symbols.model import FoundSymbol, Symbol, nearest_name_paths, resolve_name_path
from gateway.symbols.normalize import build_symbols
from gateway.symbols.structure import structure, worked_out_ahead
from gateway.symbols.operations import (TextChange, defined_name, insert_text, refuse_collision, refuse_duplicate, remove_text, replace_text,
                                       replaced_name, verify)
from gateway.results import OperationResult
from gateway.syntax import definitions, find_definitions, language_for, parse, parse_once, utf8
from gateway.workspace import SourceFile, Workspace

if TYPE_CHECKING:
    from gateway.lsp.manager import SessionManager
    from gateway.symbols.index import DefinitionIndex

SKIPPED_DIRS = {"node_modules", "__pycache__", "venv", "build", "dist", "target", "vendor"}

# Set by the engine around a symbol operation (`Engine.checking`): given the texts a commit is
# about to write, it verifies them (and may refuse, raising); False: write nothing (a dry run).
before_commit: ContextVar[Callable[[Sequence[tuple[SourceFile, str]]], bool] | None] = ContextVar("before_commit", default=None)


@dataclass(frozen=True)
class FileSymbols:
    source: SourceFile
    lang: Language
    backend: SymbolBackend
    symbols: list[Symbol]

    def resolve(self, name_path: str) -> Symbol:
        return resolve_name_path(self.symbols, name_path, self.source.display)


def symbols_of(lang: Language, path: Path, text: str, backend: SymbolBackend, tree: Tree | None = None) -> list[Symbol]:
    """A text's symbols from `backend`, with extents normalised by the text's syntax tree
    (`tree`, when the caller has parsed it already)."""
    if backend.session is None:  # the syntax trees' own symbols, kept and carried across edits
        return structure(lang, text, tree)
    tree = tree or parse(lang, utf8(text))
    found = definitions(lang, tree)
    raws = backend.symbols(path, text, found)
    kept = _normalized.get(id(raws))
    if kept is not None and kept[0] is raws and kept[1] == text:
        return list(kept[2])
    symbols = build_symbols(lang, text, tree, found, raws)
    _normalized.put(id(raws), (raws, text, symbols), len(text))
    return list(symbols)


# A server's symbols normalised, by the list the backend read them into (the same list for the
# same answer, held so its id is not reused) and the text.
_normalized: Bounded[int, tuple[list[RawSymbol], str, list[Symbol]]] = Bounded(8)


class SymbolService:
    def __init__(self, workspace: Workspace, registry: LanguageRegistry, sessions: SessionManager) -> None:
        self.workspace = workspace
        self.registry = registry
        self.sessions = sessions
        # A long-lived service (the daemon's) asks its server about a text just written, or just
        # handed to a host to write, in the background, so the next operation finds the answer.
        self.asks_ahead = False
        self._asking: dict[Path, int] = {}  # the files being asked about ahead, by how many asks
        self._asking_lock = threading.Lock()
        self._index: DefinitionIndex | None = None

    def ahead(self, path: Path, text: str, backend: SymbolBackend | None = None) -> None:
        """Ask the server about `path` holding `text` now (it was just written), off the caller's
        time: a long-lived service (`asks_ahead`, the daemon's) then plans the next operation on
        the file without waiting for that answer."""
        lang = language_for(self.registry, path, text)
        if not self.asks_ahead or lang is None or not lang.symbol_backend:
            return
        chosen = backend or self.backend(lang)
        if chosen.session is None:
            return

        def ask() -> None:
            # The text's own structure carried over first, with its outermost definitions (what a
            # write to it is lifted on, and all the next write plans on while the server is still
            # answering: ~12 ms on 50k lines, where the server takes a second); then the answer
            # read and normalised too (kept by answer and text), not only asked for; and each list's
            # tables of name paths, which a routed write names its definitions by.
            try:
                addresses(worked_out_ahead(lang, text))
                with contextlib.suppress(GatewayError), background():  # the next operation asks again and reports it
                    addresses(symbols_of(lang, path, text, chosen))
            finally:
                with self._asking_lock:
                    self._asking[path] -= 1
                    if not self._asking[path]:
                        del self._asking[path]

        with self._asking_lock:
            self._asking[path] = self._asking.get(path, 0) + 1
        threading.Thread(target=ask, name="gateway-ask-ahead", daemon=True).start()

    def asked_ahead(self, path: Path) -> bool:
        """Whether the server is being asked about `path` in the background right now (`ahead`)."""
        with self._asking_lock:
            return path in self._asking

    def language(self, source: SourceFile, also: str | None = None) -> Language:
        """The file's language; `also`: the text a write will leave, which decides between
        languages that read the file alike (an empty C++ header reads as C too)."""
        lang = language_for(self.registry, source.path, source.text, also)
        if lang is None or not lang.symbol_backend:
            what = f"{lang.name} has no symbol backend" if lang else "not source code of a supported language"
            raise UsageError(f"{source.display}: {what}; symbol operations do not apply")
        return lang

    def backend(self, lang: Language) -> SymbolBackend:
        """The language's server when it has started and loaded the workspace; else tree-sitter,
        saying why (it is still starting or loading, or its start failed: a call never waits
        the whole of a long start, and a route on tree-sitter is checked by re-parse)."""
        from gateway.lsp.manager import NotStarted  # loaded already: the sessions are its

        session = self.sessions.started_session(lang)
        if session is None:
            unable = self.sessions.cannot_run(lang)
            return TreeSitterBackend(f"{unable}; symbols from tree-sitter" if unable else "")
        if isinstance(session, NotStarted):
            return TreeSitterBackend(session.note)
        if not session.wait_ready():
            loading = f": {session.progress}" if session.progress else ""
            return TreeSitterBackend(f"{session.name} is still loading the workspace{loading}")
        return LspBackend(session, lang, self._current_text)

    def _current_text(self, path: Path) -> str | None:
        try:
            return self.workspace.read(path).text
        except GatewayError:
            return None

    def file_symbols(self, source: SourceFile, backend: SymbolBackend | None = None, keep_tree: bool = True,
                     also: str | None = None) -> FileSymbols:
        """The file's symbols; `keep_tree=False` for walks over many files, whose trees would
        only push the trees of the files being edited out of the cache (`syntax.parse_once`).
        From tree-sitter (saying why) when the server reports none in a file that has
        definitions: a file outside what it loaded is not an empty file."""
        lang = self.language(source, also)
        # The kept bytes of a file being edited: a new copy's hash is a pass over a long file.
        data = utf8(source.text) if keep_tree else source.text.encode()
        tree = parse(lang, data) if keep_tree else parse_once(lang, data)  # first: a server still starting (gateway.lsp.early) starts meanwhile
        if keep_tree and backend is None:
            definitions(lang, tree)  # kept with the tree, found while a starting server has yet to answer (~15 ms on 2,630 lines)
        chosen = backend or self.backend(lang)
        session = chosen.session
        if session is not None and lang.name in session.adapter.symbols_of_opened_text and session.opened_otherwise(source.path, source.text):
            chosen = TreeSitterBackend(f"{session.name} answers {lang.name} symbols for the text it opened, not for the file as changed")
        found = symbols_of(lang, source.path, source.text, chosen, tree)
        if not found and chosen.session is not None and definitions(lang, tree):
            chosen = TreeSitterBackend(f"{chosen.session.name} reports no symbol in this file, outside what it loaded")
            found = symbols_of(lang, source.path, source.text, chosen, tree)
        return FileSymbols(source, lang, chosen, found)

    def symbols(self, path: str) -> FileSymbols:
        return self.file_symbols(self.workspace.read(path))

    def find(self, name_path: str, path: str | None, with_text: bool = False) -> tuple[list[FoundSymbol], list[str]]:
        """The symbols `name_path` matches, and when there are none, the nearest name paths: in
        `path` from its server, else across the workspace from the definition index (`with_text`:
        each match carries its file's text)."""
        pattern = NamePath.parse(name_path)
        if not path:
            return self.index.find(pattern, with_text)
        view = self.symbols(path)
        found = [FoundSymbol(view.source.display, view.backend.name, s, view.source.text) for s in view.symbols if pattern.matches(s.name_path)]
        if pattern.index is not None:
            found = found[pattern.index : pattern.index + 1]
        return (found, []) if found else (found, nearest_name_paths(view.symbols, pattern))

    @property
    def index(self) -> DefinitionIndex:
        """The workspace's definition index (kept for the service's life: the daemon's stays warm)."""
        if self._index is None:
            from gateway.symbols.index import DefinitionIndex  # sqlite3 too: loaded only for a search of the workspace

            self._index = DefinitionIndex(self.workspace, self.registry, SKIPPED_DIRS)
        return self._index

    def source_files(self) -> Iterator[Path]:
        for directory, subdirs, files in os.walk(self.workspace.root):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            for name in sorted(files):
                lang = self.registry.for_path(name)
                if lang is not None and lang.symbol_backend:
                    yield Path(directory) / name

    def commit(self, backend: SymbolBackend, staged: list[tuple[SourceFile, str]]) -> bool:
        """Write every verified text at once (all files or none), then tell the server; False
        when nothing was written because `before_commit` said so (a dry run)."""
        changed = [(source, text) for source, text in staged if text != source.text]
        check = before_commit.get()
        if check is not None and not check(changed):
            return False
        if len(changed) == 1:
            self.workspace.write(*changed[0])
        elif changed:
            self.workspace.write_all(changed)
        for source, text in changed:
            backend.sync(source.path, text, self.language(source).server.language_id_for(source.path), saved=True)
            self.ahead(source.path, text, backend)
        return True

    def _apply(self, operation: str, name_path: str, view: FileSymbols, change: TextChange) -> OperationResult:
        source = view.source
        written = self.commit(view.backend, [(source, change.text)])
        return OperationResult(
            operation=operation,
            name_path=name_path,
            path=source.display,
            backend=view.backend.name,
            start_line=change.start_line,
            end_line=change.end_line,
            diff=unified_diff(source.display, source.text, change.text),
            message=f"{operation} {name_path} in {source.display} (lines {change.start_line}-{change.end_line}) via {via(view.backend)}",
            dry_run=not written,
        )

    def replace_symbol(self, name_path: str, path: str, body: str) -> OperationResult:
        with self.workspace.locked(path):
            view = self.symbols(path)
            return self._apply("replace_symbol", name_path, view, plan_replace(view, view.source.text, view.resolve(name_path), body))

    def insert_code(self, name_path: str, path: str, code: str, position: str) -> OperationResult:
        """`code` beside a symbol; the very code a removal took from there comes back byte for byte."""
        with self.workspace.locked(path):
            view = self.symbols(path)
            anchor = None if NamePath.parse(name_path).is_file else view.resolve(name_path)
            text = view.source.text
            removal = removals.recall(view.source.path, text, view.symbols, anchor, position, code) if position in ("before", "after") else None
            if removal is None:
                return self._apply("insert_code", name_path, view, plan_insert(view, text, anchor, position, code))
            restored = text[: removal.offset] + removal.removed + text[removal.offset :]
            first, last = removal.lines(restored)
            change = TextChange(restored, first, last, (removal.offset, removal.offset), (removal.offset, removal.offset + len(removal.removed)))
            verify(view.lang, view.source.display, text, change, True)
            return self._apply("insert_code", name_path, view, change)

    def remove_symbol(self, name_path: str, path: str, guard: Callable[[FileSymbols, Symbol], None] | None = None) -> OperationResult:
        """Remove a definition; `guard` may refuse first (by raising), with the file locked."""
        with self.workspace.locked(path):
            view = self.symbols(path)
            symbol = view.resolve(name_path)
            if guard is not None:
                guard(view, symbol)
            change = plan_remove(view, view.source.text, symbol)
            result = self._apply("remove_symbol", name_path, view, change)
            if not result.dry_run:
                removals.remember(view.source.path, view.source.text, symbol, change.replaced, change.text)
            return result


def via(backend: SymbolBackend) -> str:
    """The backend's name, with why tree-sitter answered where a server runs."""
    note = backend.note
    return f"{backend.name} ({note})" if note else backend.name


def plan_replace(view: FileSymbols, text: str, symbol: Symbol, body: str) -> TextChange:
    """`symbol`'s definition in `text` replaced by `body`, verified."""
    change = replace_text(view.lang, text, symbol, body)
    verify(view.lang, view.source.display, text, change, symbol.has_definition)
    named = defined_name(view.lang, change)
    if named is not None and named != replaced_name(view.lang, text, change):  # the definition was renamed too
        refuse_collision(view.symbols, symbol, named, view.source.display)
    return change


def plan_insert(view: FileSymbols, text: str, anchor: Symbol | None, position: str, code: str) -> TextChange:
    """`code` inserted beside `anchor` (None: the file), verified."""
    change = insert_text(view.lang, text, view.symbols, anchor, position, code)
    verify(view.lang, view.source.display, text, change, bool(find_definitions(view.lang, code.encode())))
    refuse_duplicate(view.lang, view.source.display, change)
    return change


def plan_remove(view: FileSymbols, text: str, symbol: Symbol) -> TextChange:
    """`symbol` removed from `text`, verified."""
    change = remove_text(text, view.symbols, symbol)
    verify(view.lang, view.source.display, text, change, False)
    return change
