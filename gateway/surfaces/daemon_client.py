"""Finding and calling a workspace's daemon. Standard library only: the hook imports this and
nothing heavy when the daemon answers.

One daemon serves a workspace for its user, whatever the caller's environment: its socket's
name is a digest of the workspace's real path alone. Each request carries the caller's
settings (`gateway.callerenv`); the daemon answers with them, or, where it cannot answer as
the caller's own process would (another state directory, say), says so (`NOT_SERVED`) and the
call is answered in process, with no second daemon started. The socket lives in a private
directory (0700): `$XDG_RUNTIME_DIR/gateway`, else `/run/user/UID/gateway` when the system
keeps one, else `/tmp/gateway-UID`; a daemon is looked for in each of these, so a shell with
another (or no) `XDG_RUNTIME_DIR` finds it too. A directory that is not the user's own, or
open to others, is never used.

A daemon that has taken a request says it is alive (`$/alive`) every ALIVE_SECONDS until it
answers. One silent for SILENT_SECONDS is hung (stopped, or its loop stuck; a stopped
process's socket still accepts connections): the caller kills it, removes its socket, and the
call is answered as if no daemon ran (in process, with a new daemon started for next time).
"""

from __future__ import annotations

import _socket  # not `socket`: its enums cost the hook more than the whole call to the daemon
import os
import stat
import sys
import time

from gateway import callerenv, fastjson
from gateway.framing import FrameError, FrameReader

try:  # hashlib would load OpenSSL
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - every CPython build has _blake2
    from hashlib import blake2b

TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable
    from typing import Any

CONNECT_SECONDS = 1.0
MAX_BASE = 60
CALL_SECONDS = 600.0
# The daemon's sign of life while a request runs, and the silence after which it is hung: six
# missed signs, so that a daemon on a loaded machine is not taken for hung.
ALIVE, ALIVE_SECONDS, SILENT_SECONDS = "$/alive", 1.0, 6.0
# The daemon's answer to a caller it cannot answer as the caller's own process would (gateway.errors.NotServed).
NOT_SERVED = -32011


class DaemonUnavailable(Exception):
    """No daemon answered: none runs, its socket is stale, or it died mid-call (`sent`)."""

    def __init__(self, message: str, sent: bool = False) -> None:
        super().__init__(message)
        self.sent = sent


class DaemonError(Exception):
    """The daemon answered with a JSON-RPC error; `data` is the gateway's error object, if any."""

    def __init__(self, code: int, message: str, data: Any) -> None:
        super().__init__(message)
        self.code = code
        self.data = data if isinstance(data, dict) else None


def disabled() -> bool:
    """GATEWAY_NO_DAEMON=1: neither use nor start a daemon."""
    return os.environ.get("GATEWAY_NO_DAEMON") == "1"


def _private(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def runtime_dirs() -> list[str]:
    """Where daemon sockets may be, the one new daemons use first: `$XDG_RUNTIME_DIR/gateway`,
    `/run/user/UID/gateway` (the usual `$XDG_RUNTIME_DIR`, for shells that lack it), then
    `$TMPDIR/gateway-UID` and `/tmp/gateway-UID`."""
    uid, found = os.getuid(), []
    base = os.environ.get("XDG_RUNTIME_DIR")
    if base and os.path.isabs(base) and len(base) <= MAX_BASE:  # a socket's path has at most 107 bytes
        found.append(os.path.join(base, "gateway"))
    if _private(f"/run/user/{uid}"):
        found.append(f"/run/user/{uid}/gateway")
    for temp in (os.environ.get("TMPDIR") or "/tmp", "/tmp"):
        if os.path.isabs(temp) and len(temp) <= MAX_BASE:
            found.append(os.path.join(temp, f"gateway-{uid}"))
    return list(dict.fromkeys(found))


def runtime_dir() -> str:
    """The user's private directory for new daemons' sockets, created 0700; refused if others can enter."""
    path = runtime_dirs()[0]
    try:
        if not os.path.lexists(path):
            os.mkdir(path, 0o700)
    except FileExistsError:
        return runtime_dir()
    except OSError as error:
        raise DaemonUnavailable(f"no runtime directory {path} ({error.strerror or error})") from None
    if not _private(path):
        raise DaemonUnavailable(f"{path} is not a private directory of this user; no daemon is used")
    return path


def daemon_key(workspace: str | os.PathLike[str]) -> str:
    """The workspace's daemon's name: its real path and the user, nothing of the environment."""
    keyed = f"{os.getuid()}\0{os.path.realpath(workspace)}"
    return blake2b(keyed.encode("utf-8", "surrogateescape"), digest_size=12).hexdigest()


def daemon_file(workspace: str | os.PathLike[str], suffix: str) -> str:
    """A new daemon's socket (`.sock`), lock (`.lock`), pid (`.pid`) or log (`.log`) file."""
    return os.path.join(runtime_dir(), f"{daemon_key(workspace)}{suffix}")


def socket_paths(workspace: str | os.PathLike[str]) -> list[str]:
    """Where the workspace's daemon may listen: its socket in each private runtime directory."""
    key = daemon_key(workspace)
    return [os.path.join(path, f"{key}.sock") for path in runtime_dirs() if _private(path)]


def _peer_credentials(sock: _socket.socket) -> tuple[int, int]:
    """(pid, uid) of the process at the other end of a Unix socket (SO_PEERCRED): for a
    connection to a listening socket, the process that listens."""
    credentials = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)  # struct ucred: pid, uid, gid (ints)
    return int.from_bytes(credentials[0:4], sys.byteorder, signed=True), int.from_bytes(credentials[4:8], sys.byteorder, signed=True)


def peer_uid(sock: _socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (SO_PEERCRED)."""
    return _peer_credentials(sock)[1]


def connect(workspace: str | os.PathLike[str]) -> _socket.socket:
    """A connection to the workspace's daemon, wherever it listens, checked to belong to this user."""
    paths = socket_paths(workspace) or [daemon_file(workspace, ".sock")]
    reason = ""
    for path in paths:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(CONNECT_SECONDS)
        try:
            sock.connect(path)
            uid = peer_uid(sock)
        except OSError as error:
            sock.close()
            reason = reason or f"no daemon answers on {path} ({error.strerror or error})"
            continue
        if uid != os.getuid():
            sock.close()
            raise DaemonUnavailable(f"{path} belongs to another user; not used")
        return sock
    raise DaemonUnavailable(reason)


def _frame(message: dict[str, Any]) -> bytes:
    body = fastjson.dumps(message).encode("utf-8", "surrogatepass")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _answer(sock: _socket.socket, wanted: int, deadline: float, on_progress: Callable[[Any], None] | None = None) -> Any:
    reader = FrameReader()
    late = "the daemon, still working, did not answer in the time the call has"
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise DaemonUnavailable(late, sent=True)
        sock.settimeout(min(SILENT_SECONDS, left))
        try:
            chunk = sock.recv(1 << 16)
        except TimeoutError:
            raise DaemonUnavailable(put_down(sock) if left >= SILENT_SECONDS else late, sent=True) from None
        if not chunk:
            raise DaemonUnavailable("the daemon closed the connection mid-call", sent=True)
        for body in reader.feed(chunk):
            message = fastjson.loads(body)
            if isinstance(message, dict) and message.get("id") == wanted:
                error = message.get("error")
                if isinstance(error, dict):
                    raise DaemonError(int(error.get("code", -32603)), str(error.get("message", "")), error.get("data"))
                return message.get("result")
            if on_progress is not None and isinstance(message, dict) and message.get("method") == "$/progress":
                on_progress(message.get("params"))


def request(workspace: str | os.PathLike[str], method: str, params: dict[str, Any], timeout: float = CALL_SECONDS,
            on_progress: Callable[[Any], None] | None = None) -> Any:
    """One JSON-RPC call to the workspace's daemon, carrying this process's settings
    (`callerenv.snapshot`), answered within `timeout` seconds. DaemonUnavailable when none
    answers, or when it fell silent (then it has been put down: `put_down`). With
    `on_progress`, the daemon's `$/progress` params for the call are handed to it."""
    deadline = time.monotonic() + timeout
    sock = connect(workspace)
    try:
        params = {**params, "caller": callerenv.snapshot()}
        if on_progress is not None:
            params["workDoneToken"] = "gateway"
        sock.settimeout(SILENT_SECONDS)  # a daemon that reads nothing for as long is hung as well
        try:
            sock.sendall(_frame({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
        except TimeoutError:
            raise DaemonUnavailable(put_down(sock), sent=True) from None
        return _answer(sock, 1, deadline, on_progress)
    except (OSError, FrameError, ValueError) as error:
        raise DaemonUnavailable(f"the daemon stopped answering ({error})", sent=True) from None
    finally:
        sock.close()


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def put_down(sock: _socket.socket) -> str:
    """The daemon at the other end of `sock` went silent mid-call: remove its socket (first: while
    it holds its lock no other daemon can have taken the path), kill it (SIGKILL ends a stopped
    process too) and wait for it to be gone, so that the next daemon can take the workspace.
    Only the daemon the socket leads to, this user's `gateway daemon run` for the workspace its
    socket is named for, is killed; what happened, for the caller's message."""
    import signal

    pid, path = _peer_credentials(sock)[0], sock.getpeername()
    key = os.path.basename(path).removesuffix(".sock") if isinstance(path, str) else ""
    workspace = _workspace_of(pid)
    if workspace is None or daemon_key(workspace) != key:
        return f"the daemon (pid {pid}) gave no sign of life for {SILENT_SECONDS:g} s; it is not one this user started for the workspace, so it was left alone"
    try:
        os.unlink(path)
        os.kill(pid, signal.SIGKILL)
    except OSError as error:
        return f"the daemon (pid {pid}) gave no sign of life for {SILENT_SECONDS:g} s and could not be stopped ({error.strerror or error})"
    ends = time.monotonic() + 2.0
    while not _gone(pid) and time.monotonic() < ends:
        time.sleep(0.01)
    said = f"the workspace's daemon (pid {pid}) gave no sign of life for {SILENT_SECONDS:g} s; it was killed, and the next call starts a new one"
    try:  # its log, beside its socket, says why it ended
        with open(path.removesuffix(".sock") + ".log", "a") as log:
            log.write(f"gateway: {said} (by pid {os.getpid()})\n")
    except OSError:
        pass
    return said


def _workspace_of(pid: int) -> str | None:
    """The workspace `gateway daemon run` process `pid` of this user serves, from its command line; None for any other process."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.getuid():
            return None
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = handle.read().split(b"\0")
    except OSError:
        return None
    for at, word in enumerate(words[:-1]):
        if word == b"--workspace" and b"daemon" in words[:at] and b"run" in words[:at]:
            return os.fsdecode(words[at + 1])
    return None


def spawn(workspace: str | os.PathLike[str], for_file: str | None = None) -> subprocess.Popen[bytes]:
    """Start the workspace's daemon, detached; it exits at once if another one runs. It starts
    `for_file`'s server first (see `gateway daemon run --for-file`)."""
    import subprocess

    log = daemon_file(workspace, ".log")
    with open(log, "ab") as output:
        os.chmod(log, 0o600)
        return subprocess.Popen(
            [sys.executable, "-m", "gateway", "daemon", "run", "--workspace", os.path.realpath(workspace),
             *([f"--for-file={for_file}"] if for_file is not None else [])],  # `=`: a path may begin with "-"
            stdin=subprocess.DEVNULL, stdout=output, stderr=output, start_new_session=True, close_fds=True,
        )


def _autostart_allowed(workspace: str | os.PathLike[str]) -> bool:
    from gateway.roots import has_config

    root = os.path.realpath(workspace)
    if not has_config(root):
        return True  # the default, told without loading the config module (a cold command's server starts sooner)
    from pathlib import Path

    from gateway.config import daemon_config

    return daemon_config(Path(root)).autostart


def through_daemon(workspace: str | os.PathLike[str], method: str, params: dict[str, Any], local: Callable[[], Any],
                   retry_local: Callable[[], bool] = lambda: True, on_progress: Callable[[Any], None] | None = None,
                   for_file: str | None = None, timeout: float = CALL_SECONDS) -> Any:
    """The daemon's answer, or `local()` when no daemon answers (one is started for next time,
    once this call is answered, unless autostart is off, with `for_file`'s server started first;
    a second daemon started meanwhile exits at once) or when the daemon cannot answer as this
    process would (NOT_SERVED: nothing is started). If the daemon died after the request was
    sent, `local()` runs only when `retry_local()` says nothing was written meanwhile. The daemon
    is given `timeout` seconds; a daemon that falls silent is put down first (`request`)."""
    if disabled():
        return local()
    try:
        return request(workspace, method, params, timeout, on_progress)
    except DaemonError as error:
        if error.code != NOT_SERVED:
            raise
    except DaemonUnavailable as unavailable:
        # Started after the answer: a starting daemon (about 1 s of imports) would take a core
        # from this call's own work, a cold language server's start above all.
        autostart = _autostart_allowed(workspace)
        try:
            if unavailable.sent and not retry_local():
                from gateway.errors import GatewayError  # not before: the hook's client does without it

                raise GatewayError(f"{unavailable}, after the file had changed; not redone in process") from None
            return local()
        finally:
            if autostart:
                _start_for_next_time(workspace, for_file)
    return local()


def start_unless_running(workspace: str | os.PathLike[str]) -> None:
    """Start the workspace's daemon, detached, unless one runs, daemons are off or autostart is
    (a host's session start, `gateway mcp`'s start): its servers start ahead of the first call."""
    from gateway.errors import GatewayError

    try:
        if disabled() or not _autostart_allowed(workspace):
            return
    except GatewayError:
        return  # a configuration the next call reports: nothing is started for it
    try:
        connect(workspace).close()
    except DaemonUnavailable:
        _start_for_next_time(workspace, None)


def _start_for_next_time(workspace: str | os.PathLike[str], for_file: str | None) -> None:
    try:
        spawn(workspace, for_file)
    except (OSError, DaemonUnavailable):
        pass  # no daemon next time either; this call is answered in process all the same


def invoke(workspace: str | os.PathLike[str], operation: str, params: dict[str, Any], local: Callable[[], Any],
           on_progress: Callable[[Any], None] | None = None) -> Any:
    """An operation of `gateway.surfaces.operations` through the daemon, else `local()`; the daemon's errors
    raised as RemoteError. After the daemon died mid-call, `local()` runs for a writing operation
    only if the file it names is unchanged."""
    from gateway.surfaces.operations import OPERATIONS

    retry: Callable[[], bool] = lambda: True  # noqa: E731
    path = params.get("path") or params.get("file_path")  # agents send `file_path` (gateway.surfaces.operations takes either)
    if OPERATIONS[operation].writes and isinstance(path, str):
        target = os.path.join(workspace, path)
        before = _contents(target)
        retry = lambda: _contents(target) == before  # noqa: E731
    try:
        return through_daemon(workspace, OPERATIONS[operation].method, params, local, retry, on_progress,
                              path if isinstance(path, str) else None)
    except DaemonError as error:
        from gateway.errors import RemoteError

        raise RemoteError(error.data or {"kind": "error", "message": str(error)}) from None


def _contents(path: str) -> bytes | None:
    """A regular file's bytes (bounded; a FIFO is never waited on); None for anything else."""
    from gateway.errors import GatewayError
    from gateway.reading import DEFAULT_MAX_FILE_BYTES, read_regular

    try:
        return read_regular(path, path, DEFAULT_MAX_FILE_BYTES)
    except (OSError, GatewayError):
        return None
