"""`Engine`: the one implementation of the gate, gated edits, routing and symbol operations
behind every surface (CLI, JSON-RPC, MCP, daemon, host hooks) and the contracts."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.config import gate_config
from gateway.diffs import unified_diff
from gateway.errors import Ambiguous, Blocked, ServerFailed
from gateway.gate.checker import Gate
from gateway.gate.effect import Effect
from gateway.gate.verdict import Classification, not_routed
from gateway.langs import Language, LanguageRegistry, default_registry
from gateway.results import EditResult, OperationResult, SymbolList, SymbolMatch, SymbolMatches
from gateway.typed.service import TypedEdits
from gateway.workspace import SourceFile, Workspace

if TYPE_CHECKING:
    from gateway.gate.macros import ServerMacro
    from gateway.lsp.manager import SessionManager
    from gateway.symbols.backends import SymbolBackend
    from gateway.symbols.routing import Route
    from gateway.symbols.service import SymbolService


_MACRO_PATIENCE = 5.0  # seconds a server still analysing a file may answer no symbols


class Engine:
    """Classification, gated edits and symbol operations on one workspace: check, edit, route,
    commit. Language servers start on first use and stay warm until `close()`."""

    def __init__(
        self,
        workspace: str | os.PathLike[str] = ".",
        registry: LanguageRegistry | None = None,
        use_servers: bool = True,
        sessions: SessionManager | None = None,
    ) -> None:
        self.registry = registry or default_registry()
        self.workspace = Workspace(workspace, self.registry)
        self.use_servers = use_servers
        self.typed = TypedEdits(self.workspace)
        self.workspace.authorizer = self.typed
        self._sessions: SessionManager | None = sessions  # given: one already starting a server (gateway.lsp.early)
        self._symbol_service: SymbolService | None = None

    @property
    def sessions(self) -> SessionManager:
        """Language server sessions, created on first use (the gate alone never needs them)."""
        if self._sessions is None:
            from gateway.lsp.manager import SessionManager

            self._sessions = SessionManager(self.workspace.root, use_servers=self.use_servers)
        return self._sessions

    @property
    def symbol_service(self) -> SymbolService:
        if self._symbol_service is None:
            from gateway.symbols.service import SymbolService

            self._symbol_service = SymbolService(self.workspace, self.registry, self.sessions)
        return self._symbol_service

    def close(self, exiting: bool = False) -> None:
        """Shut the language servers down; `exiting`: the process ends next (see SessionManager.close)."""
        if self._sessions is not None:
            self._sessions.close(exiting)

    @property
    def gate(self) -> Gate:
        """The gate with the workspace's `[gate]` settings as they are now; it reads macros in
        the workspace's headers and asks the language server what macro calls make."""
        return Gate(self.registry, gate_config(self.workspace.root), self.workspace.root, self.macro_calls)

    def macro_calls(self, lang: Language, path: str, text: str) -> list[ServerMacro] | None:
        """The macro calls the language's server lists in `path` holding `text`, with what each
        makes; None where no server lists them (none installed, none that knows macros, it failed)."""
        if not self.use_servers or not self.sessions.use_servers:
            return None
        where = Path(path) if os.path.isabs(path) else self.workspace.root / path
        try:
            session = self.sessions.session_for(lang)
            if session is None:
                return None
            reply = session.document_symbols(where, text, lang.server.language_id_for(where), patience=_MACRO_PATIENCE)
            return session.adapter.macro_calls(reply)
        except ServerFailed:
            return None

    def classify(self, path: str, old_string: str, new_string: str, replace_all: bool = False) -> Classification:
        source = self.workspace.read(path)
        old, new = source.normalize(old_string), source.normalize(new_string)
        return self.gate.check_edit(source.display, source.text, old, new, replace_all)[1]

    def edit(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = False, token: str | None = None
    ) -> EditResult:
        """Apply an exact-match edit if the gate allows it.

        A blocked edit raises Blocked with the file untouched, unless `route` is set, the
        workspace routes structural writes (`[gate] on_structural`, default "route"; "deny"
        refuses them on every surface) and the edit maps unambiguously onto symbol
        operations, which are then performed.
        With typed edits enforced, the write also needs a grant (`token`, or a live one).
        """
        with self.typed.attempt("edit", token, [path]), self.workspace.locked(path):
            source = self.workspace.read(path)
            old, new = source.normalize(old_string), source.normalize(new_string)
            effect, classification = self.gate.check_edit(source.display, source.text, old, new, replace_all)
            routes = route and self.gate.config.on_structural == "route"
            planned = self._route(classification, source, effect) if classification.routable and routes else None
            if classification.blocked and planned is None:
                raise Blocked(classification)
            if planned is not None:
                self.symbol_service.commit(planned[1], [(source, planned[0].result)])
            else:
                self.workspace.write(source, effect.after)
        written = planned[0].result if planned else effect.after
        return EditResult(
            classification=classification,
            path=source.display,
            replacements=effect.replacements,
            lines=effect.lines,
            diff=unified_diff(source.display, source.text, written),
            route=planned[0] if planned else None,
        )

    def _route(self, classification: Classification, source: SourceFile, effect: Effect) -> tuple[Route, SymbolBackend]:
        """The verified route of a blocked write; Blocked (saying why not) when there is none."""
        from gateway.symbols.routing import RouteRefused, plan_route

        try:
            view = self.symbol_service.file_symbols(source, also=effect.after)
            planned = plan_route(view, effect)
        except (RouteRefused, ServerFailed, Ambiguous) as refused:
            raise Blocked(not_routed(classification, str(refused), refused.suggested if isinstance(refused, RouteRefused) else ())) from None
        self.typed.note_operations([o.to_json() for o in planned.operations])
        return planned, view.backend

    def symbols(self, path: str, depth: int | None = None) -> SymbolList:
        view = self.symbol_service.symbols(path)
        shown = tuple(s for s in view.symbols if depth is None or s.depth < depth)
        return SymbolList(view.source.display, view.lang.name, view.backend.name, shown, view.backend.note or None)

    def find_symbol(self, name_path: str, path: str | None = None, body: bool = False) -> SymbolMatches:
        found, nearest = self.symbol_service.find(name_path, path)
        matches = tuple(SymbolMatch(symbol, view.source.display, view.backend.name, view.source.text[symbol.start : symbol.end] if body else None)
                        for view, symbol in found)
        return SymbolMatches(name_path, matches, tuple(nearest))

    def replace_symbol(self, name_path: str, path: str, body: str, token: str | None = None) -> OperationResult:
        with self.typed.attempt("replace_symbol", token, [path]):
            return self.symbol_service.replace_symbol(name_path, path, body)

    def insert_code(self, name_path: str, path: str, code: str, position: str, token: str | None = None) -> OperationResult:
        with self.typed.attempt("insert_code", token, [path]):
            return self.symbol_service.insert_code(name_path, path, code, position)

    def remove_symbol(self, name_path: str, path: str, token: str | None = None, force: bool = False) -> OperationResult:
        """Remove a definition; refused (StillReferenced) while other code refers to it, unless `force`."""
        from gateway.symbols.references import refuse_referenced

        guard = None if force else functools.partial(refuse_referenced, self.symbol_service)
        with self.typed.attempt("remove_symbol", token, [path]):
            return self.symbol_service.remove_symbol(name_path, path, guard)

    def rename_symbol(self, name_path: str, path: str, new_name: str, token: str | None = None) -> OperationResult:
        from gateway.symbols.rename import rename_symbol

        with self.typed.attempt("rename_symbol", token, [path]):
            return rename_symbol(self.symbol_service, name_path, path, new_name)
