"""One hook invocation for any host: the payload parsed, translated by the host's adapter (its
module registers it: `hooks.registry`) into a `HookCall`, judged (`hostcalls.pre` /
`hostcalls.post`, on the daemon's engine or, in the hook's own process, one made for the call),
and the `Answer` translated back into the host's reply form, its text spelled here
(`gateway.surfaces.render`). Input it cannot handle, and any internal error, fail closed: before
a tool in a host that shows the model no stderr (Copilot CLI), the host's deny with the reason;
elsewhere HookFailed, which the hook's process turns into exit 2 with one line on stderr (the
blocking convention of every command-hook host; OpenCode's plugin turns it into a thrown error)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gateway import hostcalls
from gateway.errors import GatewayError, HookFailed, UsageError
from gateway.hostcalls import PASS, Answer, HookCall
from gateway.surfaces import render
from gateway.surfaces.hooks import registry
from gateway.surfaces.hooks.payloads import cwd_of

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.surfaces.hooks.registry import Host


def adapter(host: str) -> Host:
    """The host's registration (its adapter among it)."""
    found = registry.host(host)
    if found is None:
        raise UsageError(f"unknown host {host!r} (one of {', '.join(registry.names())})")
    return found


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


def run(host: str, stdin: bytes, context: dict[str, str | None] | None = None, event: str | None = None,
        engine: Engine | None = None) -> tuple[str, int]:
    """(stdout, exit code) for one hook invocation, judged on `engine` (the daemon's; None: the
    hook's own process, where one is made when needed); input it cannot handle raises UsageError."""
    module = adapter(host)
    payload = load(stdin)
    context = context or registry.context_of(host)
    if event == "stop" or payload.get("hook_event_name") in registry.events_for("stop"):
        # The end of a turn or a session: only the check for writes made since the last one.
        call: HookCall | None = HookCall("post", "other", "Stop", cwd_of(payload, context), context.get("project_dir"))
        answer = hostcalls.post(engine, call)
        reply = module.reply(payload, call, replace(answer, reason=render.hook_text(answer.reason, answer.suggested))) if answer.action != "pass" else None
        return (json.dumps(reply), 0) if reply else ("", 0)
    call = module.to_call(payload, context, event)
    call = replace(call, host=host, style=module.edit_style, edit_tools=module.edit_tools) if call is not None else None
    answer = PASS if call is None else hostcalls.pre(engine, call) if call.event == "pre" else hostcalls.post(engine, call)
    reply = module.reply(payload, call, replace(answer, reason=render.hook_text(answer.reason, answer.suggested)))
    return (json.dumps(reply), 0) if reply else ("", 0)




def outcome(host: str, stdin: bytes, context: dict[str, str | None] | None = None, event: str | None = None,
            engine: Engine | None = None) -> tuple[str, int]:
    """`run`, failing closed: any error becomes the host's deny with the reason where the host
    shows the model no stderr (`Host.deny_on_error`: Copilot CLI, through its own hooks and
    through Claude Code's, which it also runs; before a tool), else HookFailed (exit 2, one line)."""
    try:
        return run(host, stdin, context, event, engine)
    except GatewayError as error:
        reason = render.message(error)
    except Exception as error:  # fail closed: the host must not run a tool the hook could not judge
        reason = f"internal error ({type(error).__name__}: {str(error)[:200]}); the tool call is refused"
    found = registry.host(host)
    if found is not None and found.deny_on_error and _before_a_tool(stdin, event):
        reply = adapter(host).reply({}, None, Answer("deny", reason=f"gateway: {reason}"))
        return json.dumps(reply), 0
    raise HookFailed(reason)


def _before_a_tool(stdin: bytes, event: str | None) -> bool:
    if event is not None:
        return event == "pre"
    try:
        return load(stdin).get("hook_event_name") in registry.events_for("pre")
    except GatewayError:
        return False
