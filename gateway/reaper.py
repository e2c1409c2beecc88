"""Run one command so that nothing it starts outlives it: `python reaper.py TIMEOUT STATUS_FD -- CMD...`.

Run as a script, importing nothing of the gateway. It makes itself a child subreaper
(Linux), so that descendants which leave the command's session (`setsid`, daemons) are
re-parented here instead of to init. When the command ends, or at TIMEOUT seconds (`inf`:
never), every descendant is killed and reaped. It then writes `{"exit_code", "timed_out"}` as
JSON to STATUS_FD (unless it is -1) and exits with the command's code. If its own parent dies
(or had died before it could watch, when GATEWAY_REAPER_PARENT names that parent), it does the
same clean-up and exits; the command itself is killed if the reaper is.
"""

from __future__ import annotations

import os
import signal
import sys
import time

SCRIPT = os.path.abspath(__file__)  # run by path, with `python -I -S`
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # not Linux: the command's own session is still killed


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for name in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(name))
    return tree


def descendants(root: int | None = None) -> list[int]:
    """Every process below `root` (default: this one), from /proc."""
    tree, found, queue = _children(), [], [root or os.getpid()]
    while queue:
        for child in tree.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def _reap() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_all(session: int | None) -> None:
    """Kill the command's session and every descendant, until none is left."""
    if session is not None:
        try:
            os.killpg(session, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for _ in range(200):
        left = descendants()
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)
        _reap()
    _reap()


def _start(command: list[str]) -> int:
    """The command started in a session of its own, as `subprocess.Popen(start_new_session=True,
    preexec_fn=...)` would, with fork and exec: importing subprocess would cost every language
    server's start ~12 ms more. The child dies with the reaper, gets the default dispositions of
    the signals Python ignores, and inherits no descriptor past stderr."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
            for name in ("SIGPIPE", "SIGXFSZ", "SIGTERM"):
                if hasattr(signal, name):
                    signal.signal(getattr(signal, name), signal.SIG_DFL)
            os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1 << 16)
            os.execvp(command[0], command)
        except BaseException as error:  # noqa: BLE001 - whatever failed, the child must not return into the reaper
            os.write(2, f"reaper: cannot run {command[0]}: {error}\n".encode(errors="replace"))
        os._exit(127)
    return pid


def _wait(pid: int, timeout: float | None) -> int | None:
    """The command's exit code (-N: killed by signal N), or None at `timeout` seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    delay = 0.0005
    while True:
        done, status = os.waitpid(pid, 0 if deadline is None else os.WNOHANG)
        if done == pid:
            return os.waitstatus_to_exitcode(status)
        left = deadline - time.monotonic() if deadline is not None else 0.0
        if left <= 0:
            return None
        delay = min(delay * 2, left, 0.05)
        time.sleep(delay)


def main(argv: list[str]) -> int:
    timeout = None if argv[1] == "inf" else float(argv[1])
    status_fd, command = int(argv[2]), argv[4:]
    session: list[int] = []

    def parent_gone(*_: object) -> None:
        kill_all(session[0] if session else None)
        os._exit(1)

    signal.signal(signal.SIGTERM, parent_gone)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    parent = os.environ.pop("GATEWAY_REAPER_PARENT", "")
    if parent.isdigit() and os.getppid() != int(parent):
        return 1
    child = _start(command)
    session.append(child)
    code = _wait(child, timeout)
    timed_out = code is None
    kill_all(child)
    if status_fd >= 0:
        import json

        os.write(status_fd, json.dumps({"exit_code": code, "timed_out": timed_out}).encode())
        os.close(status_fd)
    return 1 if code is None else code if code >= 0 else 128 - code


if __name__ == "__main__":
    sys.exit(main(sys.argv))
