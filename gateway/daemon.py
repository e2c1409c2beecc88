"""`gateway daemon run`: one process per workspace that keeps grammars, parsed trees, the Bash
parser and language servers warm for the hook, the CLI and MCP.

It speaks the JSON-RPC of `gateway serve` (same methods, framing and limits) on a Unix socket
that only its user can reach (`daemon_client`), plus `gateway/hook` (the hook's whole answer)
and `gateway/status`. A lock file makes it one per workspace and environment; a socket left by
a killed daemon is removed by the next. It exits after `[daemon] idle_minutes` without requests,
on `gateway/stop` or SIGTERM, shutting its language servers down; if it is killed, they die
with it (`gateway.lsp.session`).
"""

from __future__ import annotations

import fcntl
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from gateway import progress
from gateway.api import Gateway
from gateway.config import daemon_config
from gateway.daemon_client import DaemonUnavailable, daemon_file
from gateway.errors import UsageError
from gateway.reaper import descendants
from gateway.rpc import GatewayServer, plain, run_until_stopped
from gateway.userstate import private_file

HOOK, STATUS = "gateway/hook", "gateway/status"
# A hook's answer is due well within the hosts' own hook timeouts (Claude Code: 60 s); past it
# the hook is refused (exit 2) and the worker it held is given up (gateway.workers).
HOOK_SECONDS = 45.0


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def _hook(params: dict[str, Any]) -> dict[str, Any]:
    from gateway.hooks.client import EVENTS, HOSTS
    from gateway.hooks.run import outcome

    text, context = params.get("input"), params.get("context")
    host, event = params.get("host", "claude-code"), params.get("event")
    if not isinstance(text, str) or not isinstance(context, dict) or not isinstance(context.get("cwd"), str) \
            or not isinstance(context.get("project_dir"), str | None) or host not in HOSTS or event not in (None, *EVENTS):
        raise UsageError("gateway/hook: params must be {host, event, input: string, context: {cwd: string, project_dir: string|null}}")
    stdout, code = outcome(host, text.encode("utf-8", "surrogatepass"), {"cwd": context["cwd"], "project_dir": context["project_dir"]}, event)
    return {"stdout": stdout, "exit_code": code}


def _warm() -> None:
    """Load what a first hook call would otherwise pay for: the gate and the routing of a
    structural edit (grammar, queries, symbol lifting)."""
    from gateway.gate.checker import Gate
    from gateway.hooks.judge import Judged, plan

    gate, before = Gate(), "def f(a):\n    return a\n\n\ndef g():\n    return 1\n"
    effect, classification = gate.check_write("warm.py", before, before.replace("def f(a):", "def f(a, b):"))
    plan(Judged(classification, effect, Path("warm.py"), gate))


class DaemonServer(GatewayServer):
    """`GatewayServer` with the hook, a status report and an idle clock."""

    def __init__(self, gateway: Gateway, idle_seconds: float) -> None:
        self.started = self.last_active = time.monotonic()
        self.active = self.requests = 0
        self.idle_seconds = idle_seconds
        super().__init__(gateway)
        self.feature(HOOK)(self._counted(lambda params: self._logged("hook", lambda: _hook(plain(params))), HOOK_SECONDS))
        self.feature(STATUS)(self._counted(lambda params: self.status()))

    def _handler(self, operation: str) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        counted = self._counted(lambda work: work())

        async def handle(params: Any) -> dict[str, Any]:
            return await counted(self.reported(operation, plain(params)))

        return handle

    @staticmethod
    def _logged(what: str, work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """A hook's long waits go to the daemon's log: the hook's host must not see them."""
        with progress.reporting(progress.StreamSink(sys.stderr), what):
            return work()

    def _counted(self, work: Callable[[Any], dict[str, Any]], seconds: float | None = None) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        async def handle(params: Any) -> dict[str, Any]:
            self.active += 1
            self.requests += 1
            try:
                return await self.pool.run(work, params, seconds=seconds)  # type: ignore[no-any-return]
            finally:
                self.active -= 1
                self.last_active = time.monotonic()

        return handle

    def status(self) -> dict[str, Any]:
        pid = os.getpid()
        servers = [{"server": s.name, "pid": s.server_pid, "broken": s.broken} for s in self.gateway.sessions.running()]
        children = descendants(pid)
        return {
            "running": True,
            "pid": pid,
            "workspace": str(self.gateway.workspace.root),
            "uptime_seconds": round(time.monotonic() - self.started, 3),
            "requests": self.requests,
            "idle_minutes": self.idle_seconds / 60,
            "servers": servers,
            "memory": {"daemon_rss_bytes": _rss(pid), "servers_rss_bytes": sum(_rss(child) for child in children)},
        }

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


def run_daemon(workspace: str) -> None:
    """Serve the workspace until idle, stopped or signalled. Returns at once if its daemon runs."""
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
    server = DaemonServer(Gateway(root), daemon_config(root).idle_minutes * 60)
    mask = os.umask(0o177)
    try:
        listener = server.loop.run_until_complete(
            server.loop.create_unix_server(lambda: server.connection(token_required=False), str(socket_path))
        )
    finally:
        os.umask(mask)
    private_file(pid_path, f"{os.getpid()}\n".encode())

    def serving() -> None:
        threading.Thread(target=_warm, daemon=True, name="gateway-warm").start()
        server.watch_idle()
        print(f"gateway daemon: serving {root} on {socket_path} (pid {os.getpid()})", file=sys.stderr, flush=True)
        try:
            server.loop.run_forever()
        finally:
            listener.close()
            socket_path.unlink(missing_ok=True)
            pid_path.unlink(missing_ok=True)

    run_until_stopped(server, serving)
