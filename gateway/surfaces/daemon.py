"""`gateway daemon run`: one process per workspace that keeps grammars, parsed trees, the Bash
parser and language servers warm for the hook, the CLI and MCP.

It speaks the JSON-RPC of `gateway serve` (same methods, framing and limits) on a Unix socket
that only its user can reach (`daemon_client`), plus `gateway/hook` (the hook's whole answer)
and `gateway/status`. A lock file makes it one per workspace and user, whatever the callers'
environments: each request is answered with the settings it carries (`gateway.callerenv`), or
refused as NotServed when the daemon cannot answer as the caller's own process would (another
state directory), and the caller answers it in process. A socket left by a killed daemon is
removed by the next. It exits after `[daemon] idle_minutes` without requests, within
WORKSPACE_CHECK_SECONDS of its workspace's directory being deleted (or replaced), on
`gateway/stop` or SIGTERM, shutting its language servers down; if it is killed, they die
with it (`gateway.lsp.session`). While a request runs it tells the caller every
ALIVE_SECONDS that it is alive (`daemon_client`: a silent daemon is taken for hung and
killed). Its memory is bounded between requests: what its caches keep of texts no longer
current is dropped (`gateway.bounded.settle_all`), the C heap's free pages go back to the
system (`_bound_heap` keeps large blocks out of the heap and the threads to few heaps, so that
they can), and a language server whose caches have no bound of their own (jedi's;
`Adapter.restart_when_grown`) is restarted once grown by more than `[daemon]
server_growth_mib` since its first answer.
"""

from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import fcntl
import gc
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from gateway import progress
from gateway import callerenv
from gateway.api import Gateway
from gateway.bounded import over_rest, settle_all
from gateway.config import daemon_config
from gateway.errors import GatewayError, NotServed, UsageError
from gateway.reaper import descendants
from gateway.lsp.manager import waiting_at_most
from gateway.priority import background, give_way
from gateway.surfaces.daemon_client import ALIVE, ALIVE_SECONDS, DaemonUnavailable, daemon_file
from gateway.surfaces.rpc import _REQUESTER, GatewayProtocol, GatewayServer, plain, run_until_stopped
from gateway.userstate import private_file
from gateway.watcher import watch

if TYPE_CHECKING:
    from gateway.lsp.session import LspSession

HOOK, STATUS = "gateway/hook", "gateway/status"
# A hook's answer is due well within the hosts' own hook timeouts (the installer gives them 120
# s; the hook's client gives the whole answer 60 s, hooks.client.ANSWER_SECONDS); past it the
# hook is refused (exit 2) and the worker it held is given up (gateway.workers).
HOOK_SECONDS = 45.0
# How often the daemon looks whether its workspace's directory is still there.
WORKSPACE_CHECK_SECONDS = 2.0
# The daemon tidies (heap, grown servers) when a request ends and none runs, at most this often.
TIDY_SECONDS = 1.0
GC_THRESHOLD = 10_000  # Python's default: 700 allocations
# How long a thread that wants the interpreter lock waits before the one holding it is asked to
# let it go (Python's default: 5 ms). A hook's request takes the lock back after every read,
# parse and answer; behind a background ask's normalisation of a long file's outline, or
# another client's request, each time cost it up to the default's 5 ms.
SWITCH_SECONDS = 0.0005


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _tree_rss(pid: int | None) -> int:
    return _rss(pid) + sum(_rss(child) for child in descendants(pid)) if pid else 0


# glibc's mallopt parameters (malloc.h).
M_MMAP_THRESHOLD, M_ARENA_MAX = -3, -8
MMAP_BYTES = 256 << 10  # blocks this large are mapped on their own and unmapped when freed
ARENAS = 2  # heaps for the daemon's threads (glibc makes up to 8 per core, each kept at its largest)


def _bound_heap() -> None:
    """Before any thread starts: a long file's texts (megabytes each, several per edit) are
    mapped on their own and given back when freed, not left in the heap between smaller blocks
    (glibc otherwise raises this threshold to the largest block freed, up to 32 MiB); and the
    threads share ARENAS heaps. Measured on ten routed edits of a 50k-line file: the daemon's
    RSS 261 MiB before the heap is trimmed, 207 with these."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)
        libc.mallopt(M_ARENA_MAX, ARENAS)
    except (OSError, AttributeError):  # not glibc
        pass


def _trim_heap() -> None:
    """Give the C heap's free pages back to the system (glibc): a burst of parsing leaves them
    counted against the daemon otherwise."""
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def _hook(gateway: Gateway, params: dict[str, Any]) -> dict[str, Any]:
    from gateway.surfaces.hooks import registry
    from gateway.surfaces.hooks.client import SERVER_SECONDS
    from gateway.surfaces.hooks.run import outcome

    text, context = params.get("input"), params.get("context")
    host, event = params.get("host", "claude-code"), params.get("event")
    if not isinstance(text, str) or not isinstance(context, dict) or not isinstance(context.get("cwd"), str) \
            or not isinstance(context.get("project_dir"), str | None) or registry.host(host) is None \
            or event not in (None, *registry.EVENTS):
        raise UsageError("gateway/hook: params must be {host, event, input: string, context: {cwd: string, project_dir: string|null}}")
    with waiting_at_most(SERVER_SECONDS):  # judged and planned on the daemon's warm engine
        stdout, code = outcome(host, text.encode("utf-8", "surrogatepass"), {"cwd": context["cwd"], "project_dir": context["project_dir"]},
                               event, gateway)
    return {"stdout": stdout, "exit_code": code}


def _after_hooks(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """An operation (a CLI, MCP or JSON-RPC request) starts once the hook answers being worked out
    are made, and gives way to those that come while it runs where its long passes can
    (`gateway.priority`): an agent's every tool call waits on a hook's answer."""
    with background():
        give_way()
        return work()


def _warm(gateway: Gateway) -> None:
    """Load what a first hook call would otherwise pay for (`hostcalls.warm`), then freeze it."""
    from gateway.hostcalls import warm

    warm(gateway)
    # What is loaded by now (modules, grammars, queries) stays for the daemon's life: the cyclic
    # collector stops looking at it, and looks at the rest less often (a routed edit on a long
    # file makes thousands of objects, which otherwise set off several collections).
    gc.freeze()
    gc.set_threshold(GC_THRESHOLD, 10, 10)


async def _say_alive(protocol: GatewayProtocol | None) -> None:
    """Tell the caller every ALIVE_SECONDS that its request is still being worked on (until cancelled)."""
    while protocol is not None:
        await asyncio.sleep(ALIVE_SECONDS)
        transport = cast(asyncio.BaseTransport | None, protocol.transport)
        if transport is None or transport.is_closing():
            return
        protocol.notify(ALIVE)


class DaemonServer(GatewayServer):
    """`GatewayServer` with the hook, a status report, an idle clock, and each request answered
    with its caller's settings."""

    spelling = None  # its answers are spelled by the surface that asked

    def __init__(self, gateway: Gateway, idle_seconds: float, server_growth_mib: float = 64.0, prestart_servers: int = 0) -> None:
        self.started = self.last_active = time.monotonic()
        self.prestart: dict[str, Any] = {"servers": prestart_servers, "started": [], "done": False, "error": None}
        self.active = self.requests = self.restarted = 0
        self.idle_seconds = idle_seconds
        self.server_growth = int(server_growth_mib * 2**20)
        self._first_rss: dict[LspSession, int] = {}
        self._tidying: asyncio.Handle | None = None
        self._tidied = 0.0
        self.own = callerenv.snapshot()
        self.not_served: dict[str, Any] = {"requests": 0, "last_reasons": []}
        super().__init__(gateway)
        # A hook's judgement writes nothing (the host applies its answer): given up, it changes nothing.
        self.feature(HOOK)(self._counted(lambda params: self._logged("hook", lambda: _hook(self.gateway, params)), HOOK_SECONDS, changes=False))
        self.feature(STATUS)(self._counted(self.status, anyone=True, changes=False))

    def _handler(self, operation: str) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        return self._counted(_after_hooks, prepare=lambda params: self.reported(operation, params))

    @staticmethod
    def _logged(what: str, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A hook's long waits go to the daemon's log: the hook's host must not see them."""
        with progress.reporting(progress.StreamSink(sys.stderr), what):
            return work()

    def _counted(self, work: Callable[[Any], dict[str, Any]], seconds: float | None = None, anyone: bool = False,
                 prepare: Callable[[dict[str, Any]], Any] | None = None, changes: bool = True) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        """`work` on a worker (given the params, or what `prepare` makes of them on the loop),
        answered with the caller's settings; unless `anyone` may ask, NotServed for a caller the
        daemon cannot answer as its own process would."""

        async def handle(params: Any) -> dict[str, Any]:
            params = plain(params)
            caller = self._caller(params)
            self.requests += 1
            if not anyone:
                self._check_served(caller)
            argument = prepare(params) if prepare is not None else params
            self.active += 1
            alive = asyncio.ensure_future(_say_alive(_REQUESTER.get()))
            try:
                return await self.pool.run(self._as_caller, work, caller or self.own, argument, seconds=seconds, changes=changes)  # type: ignore[no-any-return]
            finally:
                alive.cancel()
                self.active -= 1
                if not anyone:  # asking for the status keeps no daemon alive
                    self.last_active = time.monotonic()
                    self._tidy_soon()

        return handle

    def _tidy_soon(self) -> None:
        """Tidy as soon as the answer has gone out (still before any other request is taken up)
        if that was not done in the last TIDY_SECONDS, else when they have passed; at once, too,
        when a cache holds more than it keeps at rest (a long file's texts before and after a
        write: its memory is counted as soon as the answer is). The answer does not wait for it:
        a request after a pause (an agent's next turn) always finds a tidy due, and reading /proc
        for the servers' memory takes milliseconds (the tidy, some 5 at 50k lines)."""
        if self._tidying is None:
            due = 0.0 if over_rest() else self._tidied + TIDY_SECONDS - time.monotonic()
            # Called as the request's task ends: the answer is sent by a callback of that task,
            # queued after this one, so this queues the tidy behind it.
            self._tidying = self.loop.call_soon(self._after_answer) if due <= 0 else self.loop.call_later(due, self._tidy)

    def _after_answer(self) -> None:
        self._tidying = self.loop.call_soon(self._tidy)

    def _tidy(self) -> None:
        """Between requests (none running, none given up still running): drop what the caches
        keep beyond their rest bound, trim the heap, and
        restart the language servers that grew by more than `server_growth` since they first
        answered. Runs on the loop, so no request starts meanwhile; takes a few milliseconds."""
        self._tidying = None
        if self.active or self.pool.abandoned:
            return  # the end of the running request tidies again
        self._tidied = time.monotonic()
        settle_all()
        _trim_heap()
        first_rss: dict[LspSession, int] = {}
        try:
            running = self.gateway.sessions.running()
        except GatewayError:  # the daemon's own GATEWAY_LSP_TIMEOUT is bad: then it has no sessions
            running = []
        for session in (s for s in running if s.adapter.restart_when_grown):
            rss = _tree_rss(session.pid)
            first = first_rss[session] = self._first_rss.get(session, rss)
            if rss - first > self.server_growth:
                print(f"gateway daemon: restarting {session.name}, grown from {first / 2**20:.0f} to {rss / 2**20:.0f} MiB",
                      file=sys.stderr, flush=True)
                del first_rss[session]
                self.restarted += 1
                self.gateway.sessions.retire(session)
        self._first_rss = first_rss

    def _caller(self, params: Any) -> dict[str, str | None] | None:
        """The settings the request carries (taken out of its params): the daemon's own for a
        client that sends none, which has no process of its own to agree with; None for
        settings of another shape (another version of the gateway sent them)."""
        if not isinstance(params, dict) or "caller" not in params:
            return self.own
        return callerenv.valid(params.pop("caller"))

    def _check_served(self, caller: dict[str, str | None] | None) -> None:
        """NotServed when answering with `caller`'s settings could differ from its own process's answer."""
        reasons = callerenv.mismatches(caller, self.own) if caller is not None else ["settings of another version of the gateway"]
        if reasons:
            self.not_served = {"requests": self.not_served["requests"] + 1, "last_reasons": reasons}
            raise NotServed(f"answered in the caller's own process: {'; '.join(reasons)}")

    @staticmethod
    def _as_caller(work: Callable[[Any], dict[str, Any]], caller: dict[str, str | None], params: Any) -> dict[str, Any]:
        with callerenv.Serving(caller):
            return work(params)

    def status(self, params: Any = None) -> dict[str, Any]:
        pid = os.getpid()
        servers = [{"server": s.name, "pid": s.server_pid, "broken": s.broken} for s in self.gateway.sessions.running()]
        children = descendants(pid)
        reasons = callerenv.mismatches(callerenv.current() or self.own, self.own)
        return {
            "running": True,
            "pid": pid,
            "workspace": str(self.gateway.workspace.root),
            "uptime_seconds": round(time.monotonic() - self.started, 3),
            "requests": self.requests,
            "idle_minutes": self.idle_seconds / 60,
            "servers": servers,
            "on_tree_sitter": [dataclasses.asdict(u) for u in self.gateway.sessions.unusable()],
            "servers_restarted": self.restarted,
            "prestart": {**self.prestart, "started": list(self.prestart["started"])},  # a copy: the prestart thread adds to it
            "server_growth_mib": self.server_growth / 2**20,
            "memory": {"daemon_rss_bytes": _rss(pid), "servers_rss_bytes": sum(_rss(child) for child in children)},
            "environment": self.own,
            "serves_caller": not reasons,
            "caller_not_served_because": reasons,
            "not_served": self.not_served,
        }

    def start_servers(self, first: str | None = None) -> None:
        """The workspace's leading languages' servers, started before any call asks for them
        (`[daemon] prestart_servers`), `first`'s before them; what failed is the next call's to
        meet again."""
        from gateway.symbols.servers import prestart

        def started(language: str, file: str) -> None:
            self.prestart["started"].append({"language": language, "file": file})

        try:
            prestart(self.gateway.symbol_service, self.prestart["servers"], started, first)
        except GatewayError as error:
            self.prestart["error"] = str(error)
        finally:
            self.prestart["done"] = True

    def watch_workspace(self, identity: tuple[int, int]) -> None:
        """Stop once the workspace's directory is gone, or is another directory (deleted and made
        again): nothing is left to serve, and its servers would hold the deleted files."""
        try:
            found = os.stat(self.gateway.workspace.root)
            same = (found.st_dev, found.st_ino) == identity
        except OSError:
            same = False
        if not same:
            print("gateway daemon: the workspace's directory is gone; exiting", file=sys.stderr, flush=True)
            self.loop.stop()
            return
        self.loop.call_later(WORKSPACE_CHECK_SECONDS, self.watch_workspace, identity)

    def watch_idle(self) -> None:
        if self.active == 0 and time.monotonic() - self.last_active >= self.idle_seconds:
            print("gateway daemon: idle; exiting", file=sys.stderr, flush=True)
            self.loop.stop()
            return
        self.loop.call_later(min(self.idle_seconds / 4, 30.0), self.watch_idle)


def _lock(path: str) -> int | None:
    """The workspace's daemon lock, held until this process ends; None if another holds it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def run_daemon(workspace: str, for_file: str | None = None) -> None:
    """Serve the workspace until idle, stopped or signalled. Returns at once if its daemon runs.
    `for_file`'s server is the first started ahead, answering for it."""
    root = Path(workspace).resolve()
    try:
        socket_path, pid_path = Path(daemon_file(root, ".sock")), Path(daemon_file(root, ".pid"))
        lock = _lock(daemon_file(root, ".lock"))
    except DaemonUnavailable as error:
        raise UsageError(str(error)) from None
    if lock is None:
        print(f"gateway daemon: already running for {root}", file=sys.stderr)
        return
    socket_path.unlink(missing_ok=True)  # left by a daemon that was killed: the lock is ours now
    try:
        found = root.stat()
    except OSError as error:
        raise UsageError(f"no workspace directory {root} ({error.strerror or error})") from None
    identity = (found.st_dev, found.st_ino)
    config = daemon_config(root)
    _bound_heap()
    sys.setswitchinterval(SWITCH_SECONDS)
    gateway = Gateway(root)
    gateway.symbol_service.asks_ahead = True
    server = DaemonServer(gateway, config.idle_minutes * 60, config.server_growth_mib, config.prestart_servers)
    mask = os.umask(0o177)
    try:
        listener = server.loop.run_until_complete(
            server.loop.create_unix_server(lambda: server.connection(token_required=False), str(socket_path))
        )
    finally:
        os.umask(mask)
    private_file(pid_path, f"{os.getpid()}\n".encode())

    def serving() -> None:
        threading.Thread(target=lambda: (watch(root), _warm(gateway), server.start_servers(for_file)), daemon=True, name="gateway-warm").start()
        server.watch_idle()
        server.watch_workspace(identity)
        print(f"gateway daemon: serving {root} on {socket_path} (pid {os.getpid()})", file=sys.stderr, flush=True)
        try:
            server.loop.run_forever()
        finally:
            listener.close()
            socket_path.unlink(missing_ok=True)
            pid_path.unlink(missing_ok=True)

    run_until_stopped(server, serving)
