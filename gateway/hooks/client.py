"""`gateway hook claude-code` as the host runs it: the input goes to the workspace's daemon,
which judges it exactly as `claude_code.outcome` does in process. Only the standard library
and `daemon_client` are imported unless the answer has to be computed here (no daemon, or
GATEWAY_NO_DAEMON=1), so a warm hook costs little more than starting Python.
"""

from __future__ import annotations

import os
import sys

from gateway import fastjson
from gateway.daemon_client import DaemonError, through_daemon
from gateway.errors import EXIT_HOOK_FAILED, GatewayError
from gateway.roots import gateway_root

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _workspace(text: str, context: dict[str, str | None]) -> str | None:
    """The directory whose daemon judges this input: the project's `.gateway` root, else the
    project (or working) directory. None when the input is not a JSON object."""
    try:
        payload = fastjson.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(payload, dict):
        return None
    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload.get("cwd") else context["cwd"]
    start = context["project_dir"] or cwd or "."
    return gateway_root(start) or os.path.realpath(start)


def _in_process(stdin: bytes, context: dict[str, str | None]) -> dict[str, Any]:
    from gateway.hooks.claude_code import outcome

    stdout, code = outcome(stdin, context)
    return {"stdout": stdout, "exit_code": code}


def answer(stdin: bytes) -> tuple[str, int]:
    """(stdout, exit code) for one hook input; HookFailed (exit 2) when it cannot be judged."""
    context: dict[str, str | None] = {"cwd": os.getcwd(), "project_dir": os.environ.get("CLAUDE_PROJECT_DIR")}
    try:
        text = stdin.decode("utf-8")
        workspace = _workspace(text, context)
    except UnicodeDecodeError:
        workspace = None
    if workspace is None:  # the in-process path gives the one-line reason
        result = _in_process(stdin, context)
    else:
        result = through_daemon(workspace, "gateway/hook", {"input": text, "context": context}, lambda: _in_process(stdin, context))
    return str(result["stdout"]), int(result["exit_code"])


def main() -> int:
    try:
        stdout, code = answer(sys.stdin.buffer.read())
    except (DaemonError, GatewayError) as error:
        print(f"gateway: {error}", file=sys.stderr)
        return EXIT_HOOK_FAILED
    except Exception as error:  # noqa: BLE001 - fail closed: the host must not run a tool the hook could not judge
        print(f"gateway: internal error ({type(error).__name__}: {str(error)[:200]}); the tool call is refused", file=sys.stderr)
        return EXIT_HOOK_FAILED
    if stdout:
        print(stdout)
    return code
