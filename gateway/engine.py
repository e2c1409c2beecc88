"""`Engine`: the one implementation of the gate, gated edits, routing and symbol operations
behind every surface (CLI, JSON-RPC, MCP, daemon, host hooks) and the contracts."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, cast

from gateway.config import GateConfig, gate_config
from gateway.diffs import unified_diff
from gateway.errors import Ambiguous, Blocked, FileExists, ServerFailed, StillReferenced, UsageError
from gateway.gate.checker import Gate
from gateway.gate.effect import Effect
from gateway.gate.verdict import Classification, TouchedDefinition, not_routed, still_referenced
from gateway.langs import Language, LanguageRegistry, default_registry
from gateway.results import EditResult, OperationResult, SymbolList, SymbolMatch, SymbolMatches, Verification
from gateway.typed.service import TypedEdits
from gateway.workspace import SourceFile, Workspace

if TYPE_CHECKING:
    from collections.abc import Callable

    from gateway.gate.macros import ServerMacro
    from gateway.lsp.manager import SessionManager
    from gateway.results import SuggestedOperation
    from gateway.symbols.backends import SymbolBackend
    from gateway.symbols.model import Symbol
    from gateway.symbols.references import Referrers
    from gateway.symbols.routing import Route
    from gateway.symbols.service import FileSymbols, SymbolService
    from gateway.verify import CommitCheck, Verifier


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
        self._verifier: Verifier | None = None

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

    @property
    def verifier(self) -> Verifier:
        """The language server's delta of writes (`gateway.verify`), with the answers it keeps."""
        if self._verifier is None:
            from gateway.verify import Verifier

            self._verifier = Verifier(self.workspace, lambda: self.sessions if self.use_servers else None, lambda: self.symbol_service)
        return self._verifier

    def verify_write(self, source: SourceFile, after: str, dry_run: bool = False,
                     touched: tuple[TouchedDefinition, ...] | None = None, written_next: bool = False) -> Verification | None:
        """The delta of writing `after` over `source` (None: not a file of a language with
        symbols, or outside the workspace); NewErrors under `[verify] on_new_errors = "refuse"`.
        The server is left holding `after`, or on a dry run (and a refusal) the text before;
        `written_next`: a dry run whose text a host is about to write (a hook's), which leaves
        the server holding it, known not to be the file's until the file is read again (the
        server's next use; `LspBackend.symbols`), which sends the file's text back if the host
        did not write it. Sending the text before back at once had the server analyse it again,
        then `after` again once written (some 0.5 s of its CPU at 50k lines, beside the next
        edit's hook). `touched`: the definitions the gate listed for a routed write."""
        from gateway.syntax import language_for
        from gateway.verify import Written

        lang = language_for(self.registry, source.path, source.text, after)
        if lang is None or not lang.symbol_backend or not source.path.is_relative_to(self.workspace.root):
            return None
        written = [Written(source, after, lang, touched)]
        verification = self.verifier.verify(written)
        self.verifier.refuse_or_pass(verification, written)
        if dry_run and not written_next:
            self.verifier.put_back(written, verification)
        return verification

    @contextlib.contextmanager
    def checking(self, dry_run: bool = False, touched: dict[Path, tuple[TouchedDefinition, ...]] | None = None) -> Iterator[CommitCheck]:
        """Around a symbol operation: what it commits is verified first (`touched`: what the gate
        listed, for a routed write), and not written on a dry run."""
        from gateway.symbols.service import before_commit
        from gateway.verify import CommitCheck

        check = CommitCheck(self.verifier, self.symbol_service.language, dry_run, touched)
        token = before_commit.set(check)
        try:
            yield check
        finally:
            before_commit.reset(token)

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
        from gateway.lsp.manager import NotStarted

        where = Path(path) if os.path.isabs(path) else self.workspace.root / path
        try:
            session = self.sessions.started_session(lang)  # one still starting: the gate judges without it
            if session is None or isinstance(session, NotStarted) or not session.adapter.lists_macros:
                return None
            outline = session.document_symbols(where, text, lang.server.language_id_for(where), patience=_MACRO_PATIENCE)
            return session.adapter.macro_calls(outline.reply)
        except ServerFailed:
            return None

    def classify(self, path: str, old_string: str, new_string: str, replace_all: bool = False) -> Classification:
        """The gate's verdict on an edit; a removal of a definition still referenced says so, as
        the edit would be refused (its references from the syntax trees: no server is started)."""
        source = self.workspace.read(path)
        old, new = source.normalize(old_string), source.normalize(new_string)
        effect, classification = self.gate.check_edit(source.display, source.text, old, new, replace_all)
        if classification.blocked:
            try:
                self._refuse_referenced_removals(classification, source, effect, asking_servers=False)
            except StillReferenced as referenced:
                return still_referenced(classification, str(referenced), cast("tuple[SuggestedOperation, ...]", referenced.suggested))
        return classification

    def edit(
        self, path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = False, token: str | None = None,
        dry_run: bool = False,
    ) -> EditResult:
        """Apply an exact-match edit if the gate allows it.

        A blocked edit raises Blocked with the file untouched, unless `route` is set, the
        workspace routes structural writes (`[gate] on_structural`, default "route"; "deny"
        refuses them on every surface) and the edit maps unambiguously onto symbol
        operations, which are then performed.
        With typed edits enforced, the write also needs a grant (`token`, or a live one).
        The result carries the language server's delta (`verification`); `[verify] on_new_errors
        = "refuse"` refuses (NewErrors) a write that adds errors. `dry_run`: the result, and
        nothing written (no grant used).
        """
        with self.typed.attempt("edit", token, [path]), self.workspace.locked(path):
            source = self.workspace.read(path)
            old, new = source.normalize(old_string), source.normalize(new_string)
            gate = self.gate
            effect, classification = gate.check_edit(source.display, source.text, old, new, replace_all)
            planned = self.route_or_refuse(classification, source, effect, gate.config, route)
            if planned is not None:
                with self.checking(dry_run, {source.path: classification.definitions}) as check:
                    self.symbol_service.commit(planned[1], [(source, planned[0].result)])
                verification = check.verification
            else:
                verification = self.verify_write(source, effect.after, dry_run)
                if not dry_run:
                    self.workspace.write(source, effect.after)
        written = planned[0].result if planned else effect.after
        return EditResult(
            classification=classification,
            path=source.display,
            replacements=effect.replacements,
            lines=effect.lines,
            diff=unified_diff(source.display, source.text, written),
            route=planned[0] if planned else None,
            verification=verification,
            dry_run=dry_run,
        )

    def create_file(self, path: str, content: str, token: str | None = None) -> EditResult:
        """Create a new file holding `content` (UTF-8), judged by the gate as a whole-file write
        of a file that did not exist; FileExists, with nothing written, when `path` names one."""
        with self.typed.attempt("create_file", token, [path]), self.workspace.locked(path):
            real = self.workspace.resolve(path)
            display = self.workspace.display(real)
            if os.path.lexists(real) or os.path.lexists(self.workspace.root / path):
                raise FileExists(f"{display} already exists; nothing written (create_file only makes new files: change this one with edit_file "
                                 "or the symbol tools)")
            effect, classification = self.gate.check_write(display, None, content)
            if classification.blocked:
                raise Blocked(classification)
            self.workspace.write_all([], [(display, effect.after)])
        return EditResult(classification=classification, path=display, replacements=1, lines=(1,), diff=unified_diff(display, "", effect.after),
                          verification=Verification("skipped", why="a new file: there is no version before it to compare with"))

    def route_or_refuse(self, classification: Classification, source: SourceFile, effect: Effect, config: GateConfig | None = None,
                        route: bool = True, why_not: str | None = None, waits: bool = True) -> tuple[Route, SymbolBackend] | None:
        """None for a write the gate allows; for a structural one its verified route (with the
        back end that performs it), the one way every surface (Engine.edit, a host's edit, write
        or patch) routes. Blocked, saying why, when it is not routed: it cannot be (not
        `routable`), it was not asked for (`route` False), `config` (the workspace's `[gate]`
        by default) says `on_structural = "deny"` (then Blocked holds `classification` itself),
        or no verified route exists ("Not routed: ...", or `why_not`, a reason the caller knows
        of). StillReferenced, as remove_symbol refuses it, when the write removes a definition
        still referenced, routed or not. A file outside the workspace is planned on tree-sitter's symbols;
        so is one the server is being asked about in the background, unless the caller `waits`
        for that answer (a host's hook does not: on a long file it can take the server seconds)."""
        from gateway.symbols.routing import RouteRefused, plan_route

        if not classification.blocked:
            return None
        routes = route and classification.routable and (config or self.gate.config).on_structural == "route"
        references = self._refuse_referenced_removals(classification, source, effect, asking_servers=routes and why_not is None)
        if not routes:
            raise Blocked(classification)
        if why_not is not None:
            raise Blocked(not_routed(classification, why_not))
        try:
            view = self._symbols_before(source, effect, waits)
            planned = plan_route(view, effect, references and functools.partial(references, view))
        except (RouteRefused, ServerFailed, Ambiguous) as refused:
            raise Blocked(not_routed(classification, str(refused), refused.suggested if isinstance(refused, RouteRefused) else ())) from None
        self.typed.note_operations([o.to_json() for o in planned.operations])
        return planned, view.backend

    def _refuse_referenced_removals(self, classification: Classification, source: SourceFile, effect: Effect,
                                    asking_servers: bool) -> Callable[[FileSymbols, Symbol], Referrers] | None:
        """StillReferenced when the write removes a definition still in use, as remove_symbol
        refuses it; the workspace's references (None for a file outside it). A write that is not
        routed starts no server for it: the syntax trees say where the name is used."""
        from gateway.symbols.backends import TreeSitterBackend
        from gateway.symbols.references import referrers
        from gateway.symbols.routing import RouteRefused, refuse_referenced_removals

        if not source.path.is_relative_to(self.workspace.root):
            return None
        references = functools.partial(referrers, self.symbol_service)
        if classification.reason == "definition" and any(d.change == "removed" for d in classification.definitions):
            try:
                backend = None if asking_servers else TreeSitterBackend()
                view = self.symbol_service.file_symbols(source, backend, also=effect.after)
            except (RouteRefused, ServerFailed, Ambiguous):
                return references  # the route, asking the same, says why
            try:
                refuse_referenced_removals(view, effect, classification, functools.partial(references, view))
            except ServerFailed as failed:
                raise Blocked(not_routed(classification, f"whether what it removes is still referenced is not known: {failed}")) from None
        return references

    def _symbols_before(self, source: SourceFile, effect: Effect, waits: bool = True) -> FileSymbols:
        """The symbols of the file before the write: the symbol service's (its language server's,
        when it has one for the language) for a file in the workspace, else tree-sitter's; also
        tree-sitter's, saying why, where the caller does not wait for the server's answer being
        asked in the background."""
        from gateway.symbols.backends import TreeSitterBackend
        from gateway.symbols.routing import RouteRefused
        from gateway.symbols.service import FileSymbols, symbols_of
        from gateway.syntax import language_for

        if source.path.is_relative_to(self.workspace.root):
            if waits or not self.symbol_service.asked_ahead(source.path):
                return self.symbol_service.file_symbols(source, also=effect.after)
            backend = TreeSitterBackend("the language server was still answering for the file as last written")
            return self.symbol_service.file_symbols(source, backend, also=effect.after)
        lang = language_for(self.registry, source.path, source.text, effect.after)
        if lang is None:
            raise RouteRefused("language", f"{source.display}: no language of the gateway's reads it")
        backend = TreeSitterBackend()
        return FileSymbols(source, lang, backend, symbols_of(lang, source.path, source.text, backend))

    def symbols(self, path: str, depth: int | None = None) -> SymbolList:
        if depth is not None and depth < 1:
            raise UsageError(f"depth must be 1 or more (the levels of symbols to show; omit it for all), not {depth}")
        view = self.symbol_service.symbols(path)
        shown = tuple(s for s in view.symbols if depth is None or s.depth < depth)
        return SymbolList(view.source.display, view.lang.name, view.backend.name, shown, view.backend.note or None)

    def find_symbol(self, name_path: str, path: str | None = None, body: bool = False) -> SymbolMatches:
        found, nearest = self.symbol_service.find(name_path, path, with_text=body)
        matches = tuple(SymbolMatch(f.symbol, f.display, f.backend, f.text[f.symbol.start : f.symbol.end] if body and f.text is not None else None)
                        for f in found)
        return SymbolMatches(name_path, matches, tuple(nearest))

    # Each symbol operation's result carries the server's delta; `dry_run`: nothing written.

    def replace_symbol(self, name_path: str, path: str, body: str, token: str | None = None, dry_run: bool = False) -> OperationResult:
        with self.typed.attempt("replace_symbol", token, [path]), self.checking(dry_run) as check:
            return _checked(self.symbol_service.replace_symbol(name_path, path, body), check)

    def insert_code(self, name_path: str, path: str, code: str, position: str, token: str | None = None,
                    dry_run: bool = False) -> OperationResult:
        with self.typed.attempt("insert_code", token, [path]), self.checking(dry_run) as check:
            return _checked(self.symbol_service.insert_code(name_path, path, code, position), check)

    def remove_symbol(self, name_path: str, path: str, token: str | None = None, force: bool = False, dry_run: bool = False) -> OperationResult:
        """Remove a definition; refused (StillReferenced) while other code refers to it, unless `force`."""
        from gateway.symbols.references import refuse_referenced

        guard = None if force else functools.partial(refuse_referenced, self.symbol_service)
        with self.typed.attempt("remove_symbol", token, [path]), self.checking(dry_run) as check:
            return _checked(self.symbol_service.remove_symbol(name_path, path, guard), check)

    def rename_symbol(self, name_path: str, path: str, new_name: str, token: str | None = None, dry_run: bool = False) -> OperationResult:
        """A rename through the server (or the checked syntax-tree rename), complete only if it
        introduced no error the server reports."""
        from gateway.symbols.rename import rename_symbol

        with self.typed.attempt("rename_symbol", token, [path]), self.checking(dry_run) as check:
            result = _checked(rename_symbol(self.symbol_service, name_path, path, new_name), check)
        if result.verification is None or not result.verification.new_errors:
            return result
        places = ", ".join(e.place for e in result.verification.new_errors[:5])
        return dataclasses.replace(result, details={**result.details, "complete": False},
                                   message=f"{result.message}; not complete: it introduced errors at {places}")


def _checked(result: OperationResult, check: CommitCheck) -> OperationResult:
    """The operation's result with its verification, and whether it was only a dry run."""
    return dataclasses.replace(result, verification=check.verification, dry_run=check.dry_run)
