"""One language server session per (workspace, server command), started on first use."""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path

from gateway import progress
from gateway.errors import UsageError
from gateway.langs import Language
from gateway.lsp.adapters import adapter_for
from gateway.lsp.discovery import find_server
from gateway.lsp.session import LspSession

def _timeout_from_env() -> float:
    text = os.environ.get("GATEWAY_LSP_TIMEOUT", "60")
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise UsageError(f"GATEWAY_LSP_TIMEOUT must be a number of seconds above 0, not {text!r}")
    return value


class SessionManager:
    """Sessions for one workspace. Each request waits at most `timeout` seconds
    (default: $GATEWAY_LSP_TIMEOUT, else 60)."""

    def __init__(self, root: Path, use_servers: bool = True, timeout: float | None = None) -> None:
        self.root = root
        self.use_servers = use_servers and os.environ.get("GATEWAY_NO_SERVERS") != "1"
        self.timeout = timeout if timeout is not None else _timeout_from_env()
        self._sessions: dict[tuple[str, ...], LspSession] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    def session_for(self, lang: Language) -> LspSession | None:
        """The live session for the language's server; None when no server is installed.

        A session broken by a crash or a timeout is closed and replaced here.
        """
        if not self.use_servers:
            return None
        with progress.doing(f"looking for {lang.server.name}"):
            command = find_server(lang.server)
        if command is None:
            return None
        if not self._lock.acquire(blocking=False):
            with progress.doing("waiting while another language server starts"):
                self._lock.acquire()
        try:
            session = self._sessions.get(command)
            if session is not None and session.broken:
                session.close()
                session = None
            if session is None:
                name = Path(command[0]).name
                session = LspSession(name, command, self.root, adapter_for(lang.server.adapter), self.timeout)
                session.start()
                self._sessions[command] = session
            return session
        finally:
            self._lock.release()

    def running(self) -> list[LspSession]:
        with self._lock:
            return list(self._sessions.values())

    def close(self) -> None:
        with self._lock:
            sessions, self._sessions = list(self._sessions.values()), {}
        for session in sessions:
            session.close()
