"""`gateway hook HOST [EVENT]` as the host runs it: the input goes to the workspace's daemon,
which judges it exactly as `run.outcome` does in process. Only the standard library and
`daemon_client` are imported unless the answer has to be computed here (no daemon, or
GATEWAY_NO_DAEMON=1), so a warm hook costs little more than starting Python. A session's
start (EVENT `start`, or a SessionStart payload) only starts the daemon, so the first edit
finds it warm.

The answer has a deadline well inside the host's own timeout, since Claude Code, Codex and
Copilot run the tool when a hook times out: the installer gives hosts 120 s
(`host_configs.HOOK_TIMEOUT_SECONDS`), and a call not answered within ANSWER_SECONDS (half
that, room for a loaded machine's slow start of Python) is refused, exit 2, saying why. A
daemon that falls silent is killed after `daemon_client.SILENT_SECONDS` and the call answered
here; a language server is waited on at most SERVER_SECONDS per request, its start included.
"""

from __future__ import annotations

import _thread
import os
import sys

from gateway import fastjson
from gateway.roots import gateway_root
from gateway.surfaces.daemon_client import DaemonError, start_unless_running, through_daemon
from gateway.surfaces.hooks import registry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ANSWER_SECONDS = 60.0
# How long the daemon is given: past its own limit (daemon.HOOK_SECONDS, 45 s), so that its
# refusal arrives first; what is left of ANSWER_SECONDS is for an answer in this process.
DAEMON_SECONDS = 50.0
# A language server's answer or start (jdtls: about 8 s) is waited on this long in a hook; a
# server silent longer is killed and replaced, and the write judged without it.
SERVER_SECONDS = 20.0


def _payload(text: str) -> dict[str, Any] | None:
    try:
        payload = fastjson.loads(text)
    except (ValueError, RecursionError):
        return None
    return payload if isinstance(payload, dict) else None


def _workspace(payload: dict[str, Any], context: dict[str, str | None]) -> str:
    """The directory whose daemon judges this input: the project's `.gateway` root, else the
    project (or working) directory."""
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload.get("cwd") else context["cwd"]
    start = context["project_dir"] or cwd or "."
    return gateway_root(start) or os.path.realpath(start)


def _in_process(host: str, stdin: bytes, context: dict[str, str | None], event: str | None) -> dict[str, Any]:
    from gateway.lsp.manager import waiting_at_most
    from gateway.surfaces.hooks.run import outcome

    with waiting_at_most(SERVER_SECONDS):
        stdout, code = outcome(host, stdin, context, event)
    return {"stdout": stdout, "exit_code": code}


def _named_file(payload: dict[str, Any], context: dict[str, str | None], host: registry.Host) -> str | None:
    """The file the host's edit names (`Host.file_fields`), absolute: a daemon started for next
    time starts its server first, for that file."""
    for holder, field in host.file_fields:
        value = payload.get(holder, {}).get(field) if isinstance(payload.get(holder), dict) else None
        if isinstance(value, str) and value:
            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else context["cwd"]
            return os.path.join(cwd or ".", value)
    return None


def answer(host: str, stdin: bytes, event: str | None = None) -> tuple[str, int]:
    """(stdout, exit code) for one hook input; HookFailed (exit 2) when it cannot be judged."""
    found = registry.host(host)
    assert found is not None  # checked by `main`
    context = registry.context_of(host)
    try:
        payload = _payload(stdin.decode("utf-8"))
    except UnicodeDecodeError:
        payload = None
    if payload is None:  # the in-process path gives the one-line reason
        result = _in_process(host, stdin, context, event)
        return str(result["stdout"]), int(result["exit_code"])
    workspace = _workspace(payload, context)
    if event == "start" or payload.get("hook_event_name") in found.events_for("start"):
        start_unless_running(workspace)  # the first edit is answered in process all the same if it cannot
        return "", 0
    params = {"host": host, "event": event, "input": stdin.decode("utf-8"), "context": context}
    result = through_daemon(workspace, "gateway/hook", params, lambda: _in_process(host, stdin, context, event),
                            for_file=_named_file(payload, context, found), timeout=DAEMON_SECONDS)
    return str(result["stdout"]), int(result["exit_code"])


def _refuse_at(seconds: float) -> _thread.LockType:
    """Refuse the call (exit 2, saying why) unless the lock returned is released within
    `seconds`: from a thread of its own, whatever the answer is waiting on."""
    answered = _thread.allocate_lock()
    answered.acquire()

    def watch() -> None:
        if not answered.acquire(timeout=seconds):
            from gateway.errors import EXIT_HOOK_FAILED

            os.write(2, f"gateway: the write could not be judged within {seconds:g} s (a language server or the gateway's "
                        "daemon did not answer in time); the tool call is refused, try it again\n".encode())
            os._exit(EXIT_HOOK_FAILED)

    _thread.start_new_thread(watch, ())
    return answered


def main(argv: list[str] | None = None) -> int:
    """`gateway hook HOST [EVENT]`."""
    words = sys.argv[2:] if argv is None else argv
    answered = _refuse_at(ANSWER_SECONDS)
    try:
        if not words or registry.host(words[0]) is None or len(words) > 2 or (len(words) == 2 and words[1] not in registry.EVENTS):
            from gateway.errors import UsageError

            raise UsageError(f"usage: gateway hook ({'|'.join(registry.names())}) [{'|'.join(registry.EVENTS)}]")
        stdout, code = answer(words[0], sys.stdin.buffer.read(), words[1] if len(words) == 2 else None)
    except Exception as error:  # noqa: BLE001 - fail closed: the host must not run a tool the hook could not judge
        from gateway.errors import EXIT_HOOK_FAILED, GatewayError

        answered.release()
        if isinstance(error, DaemonError | GatewayError):
            print(f"gateway: {error}", file=sys.stderr)
        else:
            print(f"gateway: internal error ({type(error).__name__}: {str(error)[:200]}); the tool call is refused", file=sys.stderr)
        return EXIT_HOOK_FAILED
    answered.release()
    if stdout:
        print(stdout)
    if argv is None and "gateway.surfaces.hooks.run" not in sys.modules:
        # The daemon answered (nothing was computed here): nothing is left to finish, so the
        # hook exits without tearing the interpreter down, which costs more than the call.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code
