"""One hook invocation for any host: the payload parsed, translated by the host's adapter into
a `HookCall`, judged (`judge.pre`/`judge.post`), and the `Answer` translated back into the
host's reply form, its text spelled here (`gateway.surfaces.render`), in the daemon or in the
hook's own process alike. Input it cannot handle, and any internal error, fail closed: before
a tool in Copilot CLI (which shows the model no stderr), the host's deny with the reason;
elsewhere HookFailed, which the hook's process turns into exit 2 with one line on stderr (the
blocking convention of every command-hook host; OpenCode's plugin turns it into a thrown error)."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, Protocol

from gateway.errors import GatewayError, HookFailed, UsageError
from gateway.surfaces import render
from gateway.surfaces.hooks.client import HOSTS, context_of
from gateway.surfaces.hooks.judge import PASS, Answer, HookCall

MAX_PATH = 4096
STOP_EVENTS = ("Stop", "SubagentStop", "SessionEnd", "sessionEnd", "session.idle")


class Adapter(Protocol):
    def to_call(self, payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None: ...

    def reply(self, payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None: ...


def adapter(host: str) -> Adapter:
    if host == "claude-code":
        from gateway.surfaces.hooks import claude_code as module
    elif host == "copilot":
        from gateway.surfaces.hooks import copilot as module
    elif host == "gemini":
        from gateway.surfaces.hooks import gemini as module
    elif host == "codex":
        from gateway.surfaces.hooks import codex as module
    elif host == "opencode":
        from gateway.surfaces.hooks import opencode as module
    else:
        raise UsageError(f"unknown host {host!r} (one of {', '.join(HOSTS)})")
    return module  # type: ignore[return-value]


def load(data: bytes) -> dict[str, Any]:
    """The hook's JSON object."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"hook input is not UTF-8 (byte {error.start})") from None
    try:
        payload = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"hook input is not JSON ({error.msg} at line {error.lineno})") from None
    except RecursionError:
        raise UsageError("hook input is nested too deeply") from None
    if not isinstance(payload, dict):
        raise UsageError("hook input must be a JSON object")
    return payload


def text_of(value: Any, field: str) -> str:
    from gateway.gate.effect import check_text

    if not isinstance(value, str):
        raise UsageError(f"tool_input.{field} must be a string")
    return check_text(value, f"tool_input.{field}")


def path_text(value: Any, field: str) -> str:
    text = text_of(value, field)
    if not text or "\x00" in text or len(text.encode()) > MAX_PATH:
        raise UsageError(f"{field} must be a path of 1 to {MAX_PATH} bytes without NUL")
    return text


def named_tool(payload: dict[str, Any], event: str | None, post_event: str) -> tuple[str, Literal["pre", "post"]] | None:
    """(tool name, "pre" or "post") of a payload shaped {hook_event_name, tool_name}; None at a
    session's start, which only warms the daemon."""
    tool, name = payload.get("tool_name"), payload.get("hook_event_name")
    if name == "SessionStart" or event == "start":
        return None
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with tool_name")
    return tool, "post" if name == post_event or event == "post" else "pre"


def cwd_of(payload: dict[str, Any], context: dict[str, str | None], field: str = "cwd") -> Path:
    given = payload.get(field)
    if given is not None:
        return Path(path_text(given, field))
    return Path(context.get("cwd") or os.getcwd())


def path_in(cwd: Path, value: Any, field: str) -> Path:
    path = Path(path_text(value, field))
    return path if path.is_absolute() else cwd / path


def run(host: str, stdin: bytes, context: dict[str, str | None] | None = None, event: str | None = None) -> tuple[str, int]:
    """(stdout, exit code) for one hook invocation; input it cannot handle raises UsageError."""
    from gateway.surfaces.hooks import judge

    module = adapter(host)
    payload = load(stdin)
    context = context or context_of(host)
    if event == "stop" or payload.get("hook_event_name") in STOP_EVENTS:
        # The end of a turn or a session: only the check for writes made since the last one.
        call: HookCall | None = HookCall("post", "other", "Stop", cwd_of(payload, context), context.get("project_dir"))
        answer = judge.post(call)
        reply = module.reply(payload, call, replace(answer, reason=render.hook_text(answer.reason, answer.suggested))) if answer.action != "pass" else None
        return (json.dumps(reply), 0) if reply else ("", 0)
    call = module.to_call(payload, context, event)
    call = replace(call, host=host) if call is not None else None
    answer = PASS if call is None else judge.pre(call) if call.event == "pre" else judge.post(call)
    reply = module.reply(payload, call, replace(answer, reason=render.hook_text(answer.reason, answer.suggested)))
    return (json.dumps(reply), 0) if reply else ("", 0)


# Hosts that show the model only "hook exited with code 2", not the line on stderr: Copilot CLI,
# through its own hooks and through Claude Code's, which it also runs. Before a tool, an error is
# answered with the host's deny, which carries the reason (Claude Code shows that deny too).
DENY_ON_ERROR = ("copilot", "claude-code")
PRE_EVENTS = ("PreToolUse", "preToolUse")


def outcome(host: str, stdin: bytes, context: dict[str, str | None] | None = None, event: str | None = None) -> tuple[str, int]:
    """`run`, failing closed: any error becomes the host's deny with the reason where the host
    shows the model no stderr (`DENY_ON_ERROR`, before a tool), else HookFailed (exit 2, one line)."""
    try:
        return run(host, stdin, context, event)
    except GatewayError as error:
        reason = render.message(error)
    except Exception as error:  # fail closed: the host must not run a tool the hook could not judge
        reason = f"internal error ({type(error).__name__}: {str(error)[:200]}); the tool call is refused"
    if host in DENY_ON_ERROR and _before_a_tool(stdin, event):
        reply = adapter(host).reply({}, None, Answer("deny", reason=f"gateway: {reason}"))
        return json.dumps(reply), 0
    raise HookFailed(reason)


def _before_a_tool(stdin: bytes, event: str | None) -> bool:
    if event is not None:
        return event == "pre"
    try:
        return load(stdin).get("hook_event_name") in PRE_EVENTS
    except GatewayError:
        return False
