"""A cold command's language server, started before the command loads the rest of the gateway.

A symbol command that no daemon answers starts the file's server first (jedi: about 1 s to
start, as long again for its first documentSymbol on a 2,630-line file) and asks it for the
file's symbols in the background; the engine's imports and its own parse of the file then
overlap that wait instead of preceding it. The process itself is started with `subprocess`
before asyncio, multilspy and the session are imported (`gateway.lsp.launch`), and the session
talks to it. The engine is given the same SessionManager, so the answer is the one it would
have asked for itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gateway.errors import GatewayError

if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

    from gateway.langs import Language, LanguageRegistry
    from gateway.lsp.manager import SessionManager


def _spawn(lang: Language, root: Path) -> tuple[tuple[str | None, ...], subprocess.Popen[bytes]] | None:
    """The language's server started now, with its launch key; None when servers are off or
    none is installed (the session says so when it is asked)."""
    from gateway import callerenv
    from gateway.lsp.discovery import search_path
    from gateway.lsp.launch import planned, spawn

    if callerenv.get("GATEWAY_NO_SERVERS") == "1":
        return None
    plan = planned(lang.server)
    if plan is None:
        return None
    command, adapter, key = plan
    try:
        return key, spawn(command, adapter, root, search_path())
    except OSError:
        return None  # the session starts it, and says why it cannot


def start_early(workspace: str, path: str, registry: LanguageRegistry) -> SessionManager | None:
    """The workspace's sessions with `path`'s server starting, or None when there is none to
    start (no server for its language, servers switched off, or a file the command itself will
    refuse: it says why)."""
    from pathlib import Path

    from gateway.lsp.launch import end

    # A file whose name alone tells its language has its server started before the file is
    # even read (or the modules that read it imported); any other once its text has told.
    named = registry.candidates(path)
    root = Path(workspace).resolve()
    started = _spawn(named[0], root) if len(named) == 1 and named[0].symbol_backend and root.is_dir() else None
    from gateway.syntax import language_for
    from gateway.workspace import Workspace

    try:
        files = Workspace(workspace, registry)
        source = files.read(path)
        lang = language_for(registry, source.path, source.text)
    except GatewayError:
        lang = None
    if lang is None or not lang.symbol_backend or (started is not None and lang is not named[0]):
        if started is not None:
            end(started[1])
        return None
    started = started or _spawn(lang, files.root)
    from gateway.lsp.manager import SessionManager

    sessions = SessionManager(files.root)
    if started is not None:
        sessions.adopt(*started)
    if not sessions.use_servers:
        sessions.close()
        return None
    sessions.start_soon(lang, source.path, source.text)
    return sessions
