"""One language server session per (workspace, server launch), started on first use.

Settings are read per call (`gateway.callerenv`), so the daemon answers each caller with its
own `GATEWAY_NO_SERVERS`, `GATEWAY_LSP_TIMEOUT` and the servers its PATH finds; callers whose
PATHs find the same server (and the programs it runs) share one session. A caller with a
deadline of its own (a host's hook) waits less (`waiting_at_most`)."""

from __future__ import annotations

import atexit
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from gateway import progress
from gateway import callerenv
from gateway.errors import GatewayError, ServerFailed, UsageError
from gateway.langs import Language
from gateway.lsp.discovery import find_server, forget, missing_programs
from gateway.lsp.discovery import planned
from gateway.lsp.launch import end
from gateway.lsp.session import LspSession


# The most a call waits for a server's answer, whatever its timeout (None: no such bound).
_AT_MOST: ContextVar[float | None] = ContextVar("gateway_lsp_at_most", default=None)


@contextmanager
def waiting_at_most(seconds: float) -> Iterator[None]:
    """Within this block (this thread's context, and the work it carries to others), each
    request to a language server waits at most `seconds`: a server silent that long is
    killed, and the call answered without it."""
    token = _AT_MOST.set(seconds)
    try:
        yield
    finally:
        _AT_MOST.reset(token)


def _timeout_from_env() -> float:
    text = callerenv.get("GATEWAY_LSP_TIMEOUT") or "60"
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise UsageError(f"GATEWAY_LSP_TIMEOUT must be a number of seconds above 0, not {text!r}")
    return value


class SessionManager:
    """Sessions for one workspace. Each request waits at most `timeout` seconds
    (default: $GATEWAY_LSP_TIMEOUT of the call, else 60)."""

    def __init__(self, root: Path, use_servers: bool = True, timeout: float | None = None) -> None:
        self.root = root
        self._use_servers = use_servers
        self._timeout = timeout
        if timeout is None:
            _timeout_from_env()  # a bad value is refused at once, before any server is asked
        self._sessions: dict[tuple[str | None, ...], LspSession] = {}
        self._retiring: dict[tuple[str | None, ...], threading.Thread] = {}  # sessions shutting down, by key
        self._lock = threading.Lock()  # the tables below; held briefly
        self._starting = threading.Lock()  # one server starts at a time; what only reads the tables does not wait for it
        self._starting_key: tuple[str | None, ...] | None = None  # the launch key starting, while it does
        # Servers started ahead of their first call (`start_soon`), by language, and what they
        # failed with: the first call waits for the start and reports its failure.
        self._early: dict[str, threading.Thread] = {}
        self._early_failures: dict[str, GatewayError] = {}
        # Server processes a cold command started before this manager existed (gateway.lsp.early),
        # by launch key, for the first session of that key to talk to.
        self._started: dict[tuple[str | None, ...], subprocess.Popen[bytes]] = {}
        atexit.register(self.close)

    @property
    def use_servers(self) -> bool:
        return self._use_servers and callerenv.get("GATEWAY_NO_SERVERS") != "1"

    @property
    def timeout(self) -> float:
        own = self._timeout if self._timeout is not None else _timeout_from_env()
        at_most = _AT_MOST.get()
        return own if at_most is None else min(own, at_most)

    @timeout.setter
    def timeout(self, seconds: float) -> None:
        self._timeout = seconds

    def session_for(self, lang: Language) -> LspSession | None:
        """The live session for the language's server; None when no server is installed.

        A session broken by a crash or a timeout is closed and replaced here.
        """
        if self._timeout is None:
            _timeout_from_env()  # the call's own: a bad one is refused, servers or not, as in process
        if not self.use_servers:
            return None
        self._wait_early(lang)
        with progress.doing(f"looking for {lang.server.name}"):
            plan = planned(lang.server, self.root)
        if plan is None:
            return None
        command, adapter, key = plan
        session = self._live(key)
        if session is not None:
            return session
        if not self._starting.acquire(blocking=False):
            same = self._starting_key == key  # started ahead, or by a call still waiting for it
            with progress.doing(f"waiting for {Path(command[0]).name} to start" if same else "waiting while another language server starts"):
                self._starting.acquire()
        self._starting_key = key
        try:
            with self._lock:
                session = self._sessions.get(key)
            if session is not None and not session.broken:
                return session  # started meanwhile
            if session is not None:
                session.close()
            with self._lock:
                retiring, started = self._retiring.pop(key, None), self._started.pop(key, None)
            if retiring is not None:  # the server it replaces is gone first: never both at once
                with progress.doing(f"waiting for the {Path(command[0]).name} it replaces to stop"):
                    retiring.join()
            session = LspSession(Path(command[0]).name, command, self.root, adapter, lambda: self.timeout, started)
            try:
                session.start()
            except ServerFailed:
                forget(command[0])  # it answered its version once; it is asked again next time
                raise
            with self._lock:
                self._sessions[key] = session
            return session
        finally:
            self._starting_key = None
            self._starting.release()

    def cannot_run(self, lang: Language) -> str | None:
        """Why the language's installed server is not started for this call: a program it runs
        is missing from the caller's PATH (`discovery.missing_programs`); None otherwise."""
        if not self.use_servers or find_server(lang.server, self.root) is None:
            return None
        return missing_programs(lang.server, self.root)

    def _live(self, key: tuple[str | None, ...]) -> LspSession | None:
        with self._lock:
            session = self._sessions.get(key)
        return session if session is not None and not session.broken else None

    def start_soon(self, lang: Language, path: Path, text: str) -> None:
        """Start the language's server in the background and ask it for the symbols of `path`
        holding `text`: a cold command calls this before it loads the rest of the gateway, so
        that its imports and its own parse overlap the server's start. The language's next
        `session_for` waits for it (and raises what it failed with); what it waits on is
        reported as the operation's own."""

        def start() -> None:
            try:
                session = self.session_for(lang)
                if session is not None and session.wait_ready():
                    session.document_symbols(path, text, lang.server.language_id_for(path))
            except GatewayError as error:
                self._early_failures[lang.name] = error

        thread = threading.Thread(target=progress.carried(start), daemon=True, name=f"lsp-{lang.name}-early")
        self._early[lang.name] = thread
        thread.start()

    def _wait_early(self, lang: Language) -> None:
        early = self._early.get(lang.name)
        if early is None or early is threading.current_thread():
            return
        del self._early[lang.name]
        early.join()
        failure = self._early_failures.pop(lang.name, None)
        if failure is not None:
            raise failure

    def retire(self, session: LspSession) -> None:
        """Forget `session` at once, so that the next call starts a fresh server (once this one
        has stopped), and shut it down in the background. Only for a session no call is using."""
        closing = threading.Thread(target=session.close, daemon=True, name=f"lsp-{session.name}-retire")
        with self._lock:
            for key in [key for key, known in self._sessions.items() if known is session]:
                del self._sessions[key]
                self._retiring[key] = closing
        closing.start()

    def adopt(self, key: tuple[str | None, ...], process: subprocess.Popen[bytes]) -> None:
        """`process`, a server started for launch `key` (`gateway.lsp.launch.start`), is the
        one the key's first session talks to."""
        with self._lock:
            self._started[key] = process

    def running(self) -> list[LspSession]:
        with self._lock:
            return list(self._sessions.values())

    def close(self, exiting: bool = False) -> None:
        """Shut every server down; `exiting` (the process ends next): those whose adapters
        allow it are killed instead, without waiting for them (`LspSession.end_at_exit`)."""
        with self._starting, self._lock:  # a server still starting is closed too, once started
            sessions, self._sessions = list(self._sessions.values()), {}
            unused, self._started = list(self._started.values()), {}
        for process in unused:
            end(process)
        for session in sessions:
            if not (exiting and session.end_at_exit()):
                session.close()
