"""A cold command's language server, started before the command loads the rest of the gateway.

A symbol command that no daemon answers starts the file's server first (jedi: about 1 s to
start, as long again for its first documentSymbol on a 2,630-line file) and asks it for the
file's symbols in the background; the engine's imports and its own parse of the file then
overlap that wait instead of preceding it. The engine is given the same SessionManager, so the
answer is the one it would have asked for itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gateway.errors import GatewayError

if TYPE_CHECKING:
    from gateway.langs import LanguageRegistry
    from gateway.lsp.manager import SessionManager


def start_early(workspace: str, path: str, registry: LanguageRegistry) -> SessionManager | None:
    """The workspace's sessions with `path`'s server starting, or None when there is none to
    start (no server for its language, servers switched off, or a file the command itself will
    refuse: it says why)."""
    from gateway.lsp.manager import SessionManager
    from gateway.syntax import language_for
    from gateway.workspace import Workspace

    try:
        files = Workspace(workspace, registry)
        source = files.read(path)
        lang = language_for(registry, source.path, source.text)
        if lang is None or not lang.symbol_backend:
            return None
        sessions = SessionManager(files.root)
    except GatewayError:
        return None
    if not sessions.use_servers:
        return None
    sessions.start_soon(lang, source.path, source.text)
    return sessions
