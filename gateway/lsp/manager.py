"""One language server session per (workspace, server launch), started on first use.

Settings are read per call (`gateway.callerenv`), so the daemon answers each caller with its
own `GATEWAY_NO_SERVERS`, `GATEWAY_LSP_TIMEOUT` and the servers its PATH finds; callers whose
PATHs find the same server (and the programs it runs) share one session. A caller with a
deadline of its own (a host's hook) waits less (`waiting_at_most`). A server starts on a
thread of its own, bounded by the manager's timeout alone: a call waits for the start only as
long as its own budget allows, and a call that can answer from tree-sitter (the symbols a
write is routed on) answers so while the server starts."""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from gateway import progress
from gateway import callerenv
from gateway.errors import GatewayError, ServerFailed, UsageError
from gateway.langs import Language
from gateway.lsp.discovery import find_server, forget, missing_programs, why_not_found, why_unusable
from gateway.lsp.discovery import planned
from gateway.lsp.launch import end
from gateway.lsp.adapters.base import Adapter
from gateway.lsp.session import LspSession
from gateway.lsp.waiting import READY_PATIENCE


# The most a call waits for a server's answer, whatever its timeout (None: no such bound).
_AT_MOST: ContextVar[float | None] = ContextVar("gateway_lsp_at_most", default=None)


@contextmanager
def waiting_at_most(seconds: float) -> Iterator[None]:
    """Within this block (this thread's context, and the work it carries to others), each
    request to a language server waits at most `seconds`: a server silent that long is
    killed, and the call answered without it. A server's start is not bounded by it: it goes
    on, on a thread of its own, while the call answers without it (`started_session`)."""
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


@dataclass(frozen=True)
class NotStarted:
    """A server still starting, or whose start has just failed (`failure`, said once): a call
    that can answer without it does, saying why (`note`)."""

    name: str
    failure: str = ""

    @property
    def note(self) -> str:
        if not self.failure:
            return f"{self.name} is still starting"
        return f"{self.name} could not start ({self.failure.removeprefix(f'{self.name}: ')}); symbols from tree-sitter"


@dataclass(frozen=True)
class Unusable:
    """A language whose server could not be used (`why`): its symbols come from tree-sitter."""

    language: str
    server: str
    why: str


@dataclass
class _Launch:
    """A server being started on a thread of its own (`SessionManager._start`): no call waits
    for it longer than its own budget, and none kills it for that."""

    name: str
    began: float
    done: threading.Event = field(default_factory=threading.Event)
    session: LspSession | None = None
    failure: Exception | None = None  # raised to the calls waiting for it, as a start of their own would have
    queued: bool = True  # behind another server's start
    cancelled: bool = False  # the manager closed meanwhile
    starting: LspSession | None = None  # while its server starts

    def waiting(self, own: bool) -> str:
        """What a call waiting for it waits on; `own`: the call that asked for this start."""
        if self.queued:
            return "waiting while another language server starts"
        session = self.starting
        return session.activity("initialize") if own and session is not None else f"waiting for {self.name} to start"

    def begin(self, manager: SessionManager, key: tuple[str | None, ...], command: tuple[str, ...], adapter: Adapter) -> None:
        """Start it on a thread with the caller's settings (its PATH found the server) and none
        of the caller's deadline (`waiting_at_most`) or progress reporter."""
        caller = callerenv.current()

        def run() -> None:
            try:
                with callerenv.Serving(caller) if caller is not None else contextlib.nullcontext():
                    manager._start(key, command, adapter, self)
            except Exception as failure:  # noqa: BLE001 - handed to the calls that wait for the start (`_await`)
                self.failure = failure
            finally:
                self.done.set()

        threading.Thread(target=contextvars.Context().run, args=(run,), daemon=True, name=f"lsp-{self.name}-start").start()


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
        self._launches: dict[tuple[str | None, ...], _Launch] = {}  # servers starting, or failed to start and not yet told, by launch key
        # Servers started ahead of their first call (`start_soon`), by language, and what they
        # failed with: the first call waits for the start and reports its failure.
        self._early: dict[str, tuple[threading.Thread, float]] = {}  # and when it began
        self._early_failures: dict[str, GatewayError] = {}
        # Server processes a cold command started before this manager existed (gateway.lsp.early),
        # by launch key, for the first session of that key to talk to.
        self._started: dict[tuple[str | None, ...], subprocess.Popen[bytes]] = {}
        # Languages whose last call found their server unusable (answered from tree-sitter), and why.
        self._unusable: dict[str, Unusable] = {}
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
        """The live session for the language's server; None when no server is installed (or one
        it runs is missing from PATH: `cannot_run`). A server not yet running is started
        (`_start`) and waited for at most the call's timeout: past it, ServerFailed, the server
        left to start for the next call.

        A session broken by a crash or a timeout is closed and replaced here.
        """
        found = self._session(lang, patient=False)
        assert not isinstance(found, NotStarted)  # only a patient call is answered so
        return found

    def started_session(self, lang: Language) -> LspSession | NotStarted | None:
        """`session_for`, for a call that can answer without the server (from tree-sitter): a
        server still starting is waited for only until READY_PATIENCE seconds (at most half the
        call's timeout) after its start began, as `LspSession.wait_ready` waits for its loading;
        past that, NotStarted, and the server goes on starting for the calls after it. A start
        that failed is NotStarted too, with the failure (told once: the next call starts afresh)."""
        return self._session(lang, patient=True)

    def _session(self, lang: Language, patient: bool) -> LspSession | NotStarted | None:
        if self._timeout is None:
            _timeout_from_env()  # the call's own: a bad one is refused, servers or not, as in process
        if not self.use_servers:
            return None
        self._wait_early(lang, patient)
        with progress.doing(f"looking for {lang.server.name}"):
            plan = planned(lang.server, self.root)
        if plan is None:
            self._usable(lang, why_unusable(lang.server, self.root))
            return None
        command, adapter, key = plan
        session = self._live(key)
        if session is None:
            with self._lock:
                launch = self._launches.get(key)
                own = launch is None
                if launch is None:  # a failed one is kept until a call is told (`_await`)
                    launch = self._launches[key] = _Launch(Path(command[0]).name, time.monotonic())
                    launch.begin(self, key, command, adapter)
            try:
                session = self._await(key, launch, patient, own)
            except ServerFailed as failed:
                if launch.failure is not None:  # its start failed (not: it is still starting)
                    self._usable(lang, str(failed))
                raise
        self._usable(lang, session.failure if isinstance(session, NotStarted) else None)
        return session

    def _usable(self, lang: Language, why_not: str | None) -> None:
        """Note whether the language's server could be used by the last call, and if not, why."""
        with self._lock:
            if why_not:
                self._unusable[lang.name] = Unusable(lang.name, lang.server.name, why_not)
            else:
                self._unusable.pop(lang.name, None)

    def unusable(self) -> list[Unusable]:
        """The languages whose server the last call for them could not use (answered from
        tree-sitter, or refused where a server was needed), with why."""
        with self._lock:
            return sorted(self._unusable.values(), key=lambda u: u.language)

    def _await(self, key: tuple[str | None, ...], launch: _Launch, patient: bool, own: bool) -> LspSession | NotStarted:
        """The launched session once started, waiting at most the call's timeout (patient: only
        until READY_PATIENCE after the launch began); what its start failed with is raised."""
        limit = self.timeout
        wait = launch.began + min(READY_PATIENCE, limit / 2) - time.monotonic() if patient else limit
        if not launch.done.is_set():
            with progress.doing(lambda: launch.waiting(own)):
                launch.done.wait(max(wait, 0.0))
        if not launch.done.is_set():
            if patient:
                return NotStarted(launch.name)
            raise ServerFailed(f"{launch.name}: still starting after {limit:g}s; it goes on starting, and a later call uses it once it has")
        if launch.failure is not None:
            with self._lock:
                if self._launches.get(key) is launch:
                    del self._launches[key]  # told: the next call starts afresh
            if patient and isinstance(launch.failure, ServerFailed):
                return NotStarted(launch.name, str(launch.failure))
            raise launch.failure
        assert launch.session is not None
        return launch.session

    def _start(self, key: tuple[str | None, ...], command: tuple[str, ...], adapter: Adapter, launch: _Launch) -> None:
        """Start the server for `launch`, on its thread: one server at a time, after the broken
        or retiring one it replaces has stopped (never both at once), bounded by the manager's
        own timeout (not by a caller's shorter one: `waiting_at_most` is not carried here)."""
        with self._starting:
            launch.queued = False
            with self._lock:
                broken, retiring, started = self._sessions.pop(key, None), self._retiring.pop(key, None), self._started.pop(key, None)
            if broken is not None:
                broken.close()
            if retiring is not None:
                retiring.join()
            if launch.cancelled:
                if started is not None:
                    end(started)
                raise ServerFailed(f"{launch.name}: the gateway closed its servers before this one started")
            session = launch.starting = LspSession(launch.name, command, self.root, adapter, lambda: self.timeout, started)
            try:
                session.start()
            except ServerFailed:
                if not launch.cancelled:
                    forget(command[0])  # it answered its version once; it is asked again next time
                raise
            finally:
                launch.starting = None
            with self._lock:
                kept = not launch.cancelled
                if kept:
                    self._sessions[key] = session
                if self._launches.get(key) is launch:
                    del self._launches[key]
            if not kept:
                session.close()
                raise ServerFailed(f"{launch.name}: the gateway closed its servers while this one started")
            launch.session = session

    def cannot_run(self, lang: Language) -> str | None:
        """Why the language's installed server is not started for this call: its program fails,
        or did not answer, when asked its version (`discovery.why_not_found`), or a program it
        runs is missing from the caller's PATH (`discovery.missing_programs`); None otherwise."""
        if not self.use_servers:
            return None
        if find_server(lang.server, self.root) is None:
            return why_not_found(lang.server, self.root)
        return missing_programs(lang.server, self.root)

    def _live(self, key: tuple[str | None, ...]) -> LspSession | None:
        with self._lock:
            session = self._sessions.get(key)
        return session if session is not None and not session.broken else None

    def start_soon(self, lang: Language, path: Path, text: str) -> None:
        """Start the language's server in the background and ask it for the symbols of `path`
        holding `text`: a cold command calls this before it loads the rest of the gateway, so
        that its imports and its own parse overlap the server's start. The language's next
        call waits for it as for a start of its own (and raises what it failed with); what it
        waits on is reported as the operation's own."""

        def start() -> None:
            try:
                session = self.session_for(lang)
                if session is not None and session.wait_ready():
                    session.document_symbols(path, text, lang.server.language_id_for(path))
            except GatewayError as error:
                self._early_failures[lang.name] = error

        thread = threading.Thread(target=progress.carried(start), daemon=True, name=f"lsp-{lang.name}-early")
        self._early[lang.name] = (thread, time.monotonic())
        thread.start()

    def _wait_early(self, lang: Language, patient: bool) -> None:
        """Wait for the language's start ahead (`start_soon`) as for a launch (`_await`), and
        raise what it failed with; one still going is left to go on."""
        early, began = self._early.get(lang.name, (None, 0.0))
        if early is None or early is threading.current_thread():
            return
        limit = self.timeout
        early.join(max(began + min(READY_PATIENCE, limit / 2) - time.monotonic(), 0.0) if patient else limit)
        if early.is_alive():
            return
        self._early.pop(lang.name, None)
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
        with self._lock:
            for launch in self._launches.values():
                launch.cancelled = True  # one waiting for its turn does not start, one that starts is not kept
                if launch.starting is not None:
                    launch.starting.put_down()  # one still starting has nothing to lose: it is ended, not waited for
            self._launches = {}
            sessions, self._sessions = list(self._sessions.values()), {}
            unused, self._started = list(self._started.values()), {}
        for process in unused:
            end(process)
        for session in sessions:
            if not (exiting and session.end_at_exit()):
                session.close()
