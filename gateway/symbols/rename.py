"""Rename: the server's workspace edit, then the places it left that are tied to the symbol; all
files or none, and the places that may still refer to the old name reported."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, replace
from pathlib import Path
from collections.abc import Callable, Iterator
from typing import Any, cast

from gateway.diffs import unified_diff
from gateway.errors import Ambiguous, NotFound, ServerFailed, UsageError
from gateway.langs import Language
from gateway.symbols.backends import TreeSitterBackend
from gateway.symbols.mentions import Mention
from gateway.symbols.model import Symbol
from gateway.symbols.operations import TextChange, refuse_collision, verify
from gateway.symbols.references import at_symbol, candidates, mentions_in, uri_path
from gateway.symbols.rename_check import cross_checked
from gateway.results import OperationResult
from gateway.symbols.service import FileSymbols, SymbolService
from gateway.symbols.text import LineIndex
from gateway.workspace import SourceFile

_IDENTIFIER = re.compile(r"^[^\W\d]\w*[?!]?$")


@dataclass(frozen=True)
class StagedFile:
    source: SourceFile
    text: str


def _edits_by_file(reply: Any) -> dict[Path, list[dict[str, Any]]]:
    if not isinstance(reply, dict):
        raise ServerFailed(f"garbage rename reply: {str(reply)[:120]}")
    edits: dict[Path, list[dict[str, Any]]] = {}
    for uri, changes in (reply.get("changes") or {}).items():
        edits.setdefault(uri_path(uri), []).extend(changes)
    for change in reply.get("documentChanges") or []:
        if "textDocument" not in change:
            raise ServerFailed(f"rename wants a file operation the gateway does not perform: {change.get('kind')}")
        edits.setdefault(uri_path(change["textDocument"]["uri"]), []).extend(change["edits"])
    return edits


def _apply_edits(text: str, edits: list[dict[str, Any]]) -> str:
    index = LineIndex.of(text)
    spans = []
    for edit in edits:
        rng = edit["range"]
        start = index.from_utf16(rng["start"]["line"], rng["start"]["character"])
        end = index.from_utf16(rng["end"]["line"], rng["end"]["character"])
        spans.append((start, end, edit["newText"].replace("\r\n", "\n")))
    # The same edit given twice is one (zuban repeats it for a name imported and re-exported at once).
    for start, end, new in sorted(set(spans), reverse=True):
        text = text[:start] + new + text[end:]
    return text


@dataclass
class RenamePlan:
    """Every file's text after a rename, and the places that may still refer to the old name."""

    staged: list[StagedFile]
    loose: list[Mention]
    backend: str
    # Why the server was not asked (it cannot rename the language): the syntax trees renamed.
    fallback: str | None = None

    def __iter__(self) -> Iterator[StagedFile]:
        return iter(self.staged)


def _renamed(text: str, spans: list[Mention], new_name: str) -> str:
    for mention in sorted(spans, key=lambda m: m.start, reverse=True):
        text = text[: mention.start] + new_name + text[mention.end :]
    return text


def plan_rename(
    service: SymbolService, view: FileSymbols, symbol: Symbol, new_name: str, read: Callable[[Path], SourceFile]
) -> RenamePlan:
    """Every file's text after renaming `symbol`, each re-parsed; `read` supplies the other files.

    The server renames what it resolves; then the files that spell the name are read again:
    places tied to the symbol that it left (or, without a server, all of them) are renamed too,
    and the places that may refer to it are returned as loose. Without a server a member
    access on an object of unknown type is refused rather than guessed.
    The server is asked about the text in `view` (which it was just given), so a caller may
    rename in text not yet written (a contract's earlier steps).
    """
    _refuse_bad_name(view.lang, symbol.name, new_name)
    refuse_collision(view.symbols, symbol, new_name, view.source.display)
    fallback = view.backend.session.adapter.renames(view.lang.name) if view.backend.session is not None else None
    if fallback is not None:
        view = replace(view, backend=TreeSitterBackend())
    fallback = fallback or view.backend.note or None
    sources = {view.source.path: view.source}
    staged: dict[Path, str] = {}
    texts = candidates(service, view, symbol)
    if view.backend.session is not None:
        proposed = _server_edits(view, symbol, new_name, texts)
        for file in proposed:
            if file not in sources:
                sources[file] = read(file)
        before = {file: (view.lang if file == view.source.path else service.language(source), source.text, source.display)
                  for file, source in sources.items()}
        checked = cross_checked((view.source.path, symbol), before, proposed, view.backend.name)
        for file, edits in sorted(checked.items()):
            staged[file] = _apply_edits(sources[file].text, edits)
        texts = {path: (lang, staged.get(path, text)) for path, (lang, text) in texts.items()}
    mentions = mentions_in(service, view, symbol, texts, new_name)
    loose = [m for m in mentions if not m.tied]
    if view.backend.session is None:  # the syntax trees cannot tell an object's type
        unknown = [m for m in loose if m.why.startswith("member of an object")]
        if unknown:
            places = ", ".join(m.place(service.workspace.display) for m in unknown[:8])
            why, remedy = (f"{fallback}; by the syntax trees", "rename") if fallback else ("without a language server", "start the language server, or rename")
            raise Ambiguous(
                f"{view.source.display}: {why}, {symbol.name} at {places} may belong to another "
                f"type; nothing renamed ({remedy} those places by hand)"
            )
    for file in sorted({m.path for m in mentions if m.tied}):
        if file not in sources:
            sources[file] = read(file)
        current = staged.get(file, sources[file].text)
        tied = [m for m in mentions if m.tied and m.path == file]
        if current != texts[file][1]:  # changed since it was scanned: scan what is locked now
            rescanned = {**texts, file: (texts[file][0], current)}
            tied = [m for m in mentions_in(service, view, symbol, rescanned, new_name) if m.tied and m.path == file]
        staged[file] = _renamed(current, tied, new_name)
    if all(text == sources[file].text for file, text in staged.items()):
        raise NotFound(f"{view.source.display}: found no place that spells {symbol.name_path} as the definition's name to rename; nothing renamed")
    result = []
    for file, text in sorted(staged.items()):
        source = sources[file]
        verify(service.language(source), source.display, source.text, TextChange(text, 1, 1, (0, len(source.text)), (0, len(text))), False)
        result.append(StagedFile(source, text))
    return RenamePlan(result, loose, view.backend.name, fallback)


def _refuse_bad_name(lang: Language, old_name: str, new_name: str) -> None:
    """UsageError unless `new_name` is an identifier, private (`#name`) exactly where the old name was."""
    prefix = lang.private_prefix
    private = bool(prefix) and new_name.startswith(prefix)
    if prefix and old_name.startswith(prefix) and not private:
        raise UsageError(f"renaming the private {old_name} to {new_name} would make it public (a {lang.name} name starting with {prefix} "
                         f"is private to its class); rename it to {prefix}{new_name} to keep it private; nothing renamed")
    if private and not old_name.startswith(prefix):
        raise UsageError(f"renaming {old_name} to {new_name} would make it private to its class (a {lang.name} name starting with "
                         f"{prefix}), breaking its uses outside the class; give a name without {prefix}; nothing renamed")
    if not _IDENTIFIER.match(new_name.removeprefix(prefix) if private else new_name):
        raise UsageError(f"{new_name!r} is not an identifier")


def _server_edits(view: FileSymbols, symbol: Symbol, new_name: str, texts: dict[Path, tuple[Language, str]]) -> dict[Path, list[dict[str, Any]]]:
    session, where = at_symbol(view, symbol, texts)
    reply = session.request("textDocument/rename", lambda h: h.send.rename(cast(Any, {**where, "newName": new_name})))
    if not reply:
        raise NotFound(f"{session.name} found nothing to rename at {symbol.name_path} in {view.source.display}")
    return _edits_by_file(reply)


def rename_symbol(service: SymbolService, name_path: str, path: str, new_name: str) -> OperationResult:
    workspace = service.workspace
    with contextlib.ExitStack() as locks:
        locks.enter_context(workspace.locked(path))
        view = service.symbols(path)
        symbol = view.resolve(name_path)

        def read_locked(file: Path) -> SourceFile:
            locks.enter_context(workspace.locked(file))
            return workspace.read(file)

        plan = plan_rename(service, view, symbol, new_name, read_locked)
        service.commit(view.backend, [(s.source, s.text) for s in plan.staged])
    changed = [s for s in plan.staged if s.text != s.source.text]
    mentioned = list(dict.fromkeys(m.place(workspace.display) for m in plan.loose))
    via = f"{plan.backend} ({plan.fallback}; the checked syntax-tree rename instead)" if plan.fallback else plan.backend
    scope = ""
    if mentioned:
        scope = f"; not complete: {len(mentioned)} place(s) still spell {symbol.name} and may refer to it: {', '.join(mentioned[:5])}"
    return OperationResult(
        operation="rename_symbol",
        name_path=name_path,
        path=view.source.display,
        backend=plan.backend,
        start_line=symbol.start_line,
        end_line=symbol.end_line,
        diff="".join(unified_diff(s.source.display, s.source.text, s.text) for s in changed),
        message=f"renamed {name_path} to {new_name} in {len(changed)} file(s) via {via}{scope}",
        details={"files": [s.source.display for s in changed], "new_name": new_name, "complete": not mentioned, "mentioned_in": mentioned,
                 **({"fallback": plan.fallback} if plan.fallback else {})},
    )


