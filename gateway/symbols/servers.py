"""`gateway servers`: each language's server, whether it is installed, whether it works in
this workspace, and the backend in use.

A server is called working only when it has run here: started in the workspace, answered
for one of its files, and said nothing about failing to load the workspace (gopls with a
go.mod that needs a newer Go, say). A server with no file of its language here is not
started, and says so."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway import progress
from gateway.errors import GatewayError
from gateway.langs import Language, LanguageRegistry
from gateway.lsp.adapters import adapter_for
from gateway.lsp.discovery import find_server, missing_programs, search_path, why_not_found
from gateway.lsp.discovery import planned

if TYPE_CHECKING:
    from gateway.symbols.service import SymbolService

# How long a probe gives a server to analyse the file it opened (servers that say when).
SETTLE_SECONDS = 10.0


def server_status(registry: LanguageRegistry, use_servers: bool, service: SymbolService | None = None) -> list[dict[str, Any]]:
    """One row per language; with `service`, every found server that has a file of its
    language in the workspace is started there and asked (in parallel)."""
    with progress.doing("looking for language servers"):
        root = service.workspace.root if service is not None else None
        rows = [_row(lang, use_servers, root) for lang in sorted(registry.languages.values(), key=lambda lang: lang.name)]
    if service is None or not use_servers:
        return rows
    firsts = _first_files(service, {row["language"] for row in rows if row["status"] == "not started"})
    probed = [(row, firsts[row["language"]]) for row in rows if row["language"] in firsts]
    with ThreadPoolExecutor(max_workers=max(1, len(probed))) as pool:
        tasks = [pool.submit(progress.carried(probe), service, registry.get(row["language"]), path) for row, path in probed]
        outcomes = [task.result() for task in tasks]
    for (row, path), (status, reason) in zip(probed, outcomes):
        row.update(status=status, reason=reason, probed=service.workspace.display(path))
    return rows


def _row(lang: Language, use_servers: bool, root: Path | None) -> dict[str, Any]:
    """`root`: the workspace whose programs are never the server's (`gateway.lsp.confine`)."""
    command = find_server(lang.server, root)
    adapter = adapter_for(lang.server.adapter_of(command) if command else lang.server.adapter)
    unable = missing_programs(lang.server, root) if command and use_servers and lang.symbol_backend else None
    if not lang.symbol_backend:
        backend, status = "none", "no symbol backend"
    elif unable:
        backend, status = "tree-sitter", "cannot run"
    elif command and use_servers:
        backend, status = f"lsp:{Path(command[0]).name}", "not started"
    else:
        backend, status = "tree-sitter", "not found" if command is None else "off"
    return {
        "language": lang.name,
        "server": lang.server.name,
        "command": " ".join(lang.server.command),
        "found": command is not None,
        "path": command[0] if command else None,
        "version": adapter.version(command[0], lang.server.version_args, search_path(root)) if command else None,
        "backend": backend,
        "install": None if command else lang.server.install,
        "status": status,
        # Not found: what the installed program that does not run answered. Cannot run: the
        # program it runs that PATH lacks. Broken: why the server could not load the workspace.
        "reason": unable or (None if command else why_not_found(lang.server, root)),
        "probed": None,
        # Why the server's own rename is not used for the language (the checked tree-sitter one is).
        "rename_fallback": adapter.renames(lang.name) if command and use_servers and lang.symbol_backend and not unable else None,
        "chosen": chosen(lang, command),
    }


def chosen(lang: Language, command: tuple[str, ...] | None) -> str | None:
    """Which of the language's servers is used and why: for a language whose first server was
    chosen by a comparison (`chosen_because`), or that runs an alternative (None otherwise)."""
    spec = lang.server
    if not spec.alternatives or command is None:
        return None
    fallbacks = ", ".join(Path(alternative[0]).name for alternative in spec.alternatives)
    first = Path(spec.command[0]).name
    used = Path(command[0]).name
    if used == first:
        return f"{first}: chosen first for {lang.name} ({spec.chosen_because}); {fallbacks}: fallback" if spec.chosen_because else None
    return f"{used}: fallback, because {first} is not installed ({spec.install})"


def _first_files(service: SymbolService, wanted: set[str]) -> dict[str, Path]:
    """The first source file of each wanted language in the workspace (one walk, stopped early)."""
    firsts: dict[str, Path] = {}
    for path in service.source_files():
        lang = service.registry.for_path(path)
        if lang is not None and lang.name in wanted and lang.name not in firsts:
            firsts[lang.name] = path
            if len(firsts) == len(wanted):
                break
    return firsts


def probe(service: SymbolService, lang: Language, path: Path) -> tuple[str, str | None]:
    """("working", None), ("loading", how far) or ("broken", why): the server started in the workspace, asked for
    `path`'s symbols, given time to analyse it, and heard on loading the workspace."""
    try:
        source = service.workspace.read(path)
    except GatewayError as error:  # the file's fault, not the server's
        return "not started", str(error)
    try:
        session = service.sessions.session_for(lang)
        if session is None:
            return "not found", None
        service.file_symbols(source)
        session.settle(path, min(SETTLE_SECONDS, session.timeout))
    except GatewayError as error:
        return "broken", str(error)
    reasons = session.load_errors
    if reasons:
        return "broken", "; ".join(reasons)
    return ("working", None) if session.ready else ("loading", session.progress or "no progress reported yet")


# A workspace's census stops after this many source files: its leading languages are clear by then.
CENSUS_FILES = 20_000


def census(service: SymbolService, limit: int = CENSUS_FILES) -> list[tuple[Language, int, Path]]:
    """The workspace's languages with a symbol backend, most files first: each with its number
    of files and its most recently modified one."""
    counts: dict[str, int] = {}
    newest: dict[str, tuple[float, Path]] = {}
    for seen, path in enumerate(service.source_files()):
        if seen >= limit:
            break
        lang = service.registry.for_path(path)
        if lang is None:  # never: source_files yields files of a language (told to the type checker)
            continue
        try:
            modified = path.lstat().st_mtime
        except OSError:
            continue
        counts[lang.name] = counts.get(lang.name, 0) + 1
        if lang.name not in newest or modified > newest[lang.name][0]:
            newest[lang.name] = (modified, path)
    ranked = sorted(counts, key=lambda name: (-counts[name], name))
    return [(service.registry.get(name), counts[name], newest[name][1]) for name in ranked]


def prestart(service: SymbolService, count: int, started: Callable[[str, str], None], first: str | None = None) -> None:
    """Start the servers of the workspace's `count` leading languages (by files, among those
    whose server is installed) and have each answer for its language's most recently modified
    file, one after another: a daemon does this as it starts, so that the session's first symbol
    operation finds the server started, its first answer given and its caches filled. A file
    named `first` (the one a cold command just asked about) comes before them all, its server
    answering for it. `started(language, file)` is told of each as it is begun."""
    if count <= 0 or not service.sessions.use_servers:
        return
    for lang, path in _ahead(service, first):
        if count == 0:
            return
        if planned(lang.server, service.workspace.root) is None:
            continue
        count -= 1
        started(lang.name, service.workspace.display(path))
        if service.sessions.session_for(lang) is None:
            continue
        try:
            source = service.workspace.read(path)
        except GatewayError:
            continue  # the file's own fault (too large, not text, gone): its server runs all the same
        service.file_symbols(source)


def _ahead(service: SymbolService, first: str | None) -> Iterator[tuple[Language, Path]]:
    """The file named `first` when it is a source file of the workspace, then each other leading
    language with its newest file."""
    named = _source_file(service, first) if first is not None else None
    if named is not None:
        yield named
    for lang, _, newest in census(service):
        if named is None or lang.name != named[0].name:
            yield lang, newest


def _source_file(service: SymbolService, name: str) -> tuple[Language, Path] | None:
    try:
        path = service.workspace.resolve(name)
    except GatewayError:
        return None  # outside the workspace: nothing is started for it
    lang = service.registry.for_path(path)
    return (lang, path) if lang is not None and lang.symbol_backend and path.is_file() else None
