"""`gateway hook codex`: Codex CLI's PreToolUse and PostToolUse hooks. Edits arrive as
`apply_patch` with the patch in `tool_input.command`, or as a Bash command that runs
`apply_patch <<'EOF'`. A rewrite goes back as `updatedInput.command` with
`permissionDecision: allow` (Codex applies `updatedInput` only with it, and has no "ask");
a refusal as `permissionDecision: deny` with its reason. Context for the model goes in
PostToolUse's `additionalContext`."""

from __future__ import annotations

from typing import Any

from gateway.errors import UsageError
from gateway.hostcalls.call import Answer, HookCall
from gateway.surfaces.hooks.run import cwd_of, named_tool, text_of


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    named = named_tool(payload, event, "PostToolUse")
    if named is None:
        return None
    tool, when = named
    if tool not in ("apply_patch", "Bash"):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    command = text_of(tool_input.get("command"), "command")
    cwd = cwd_of(payload, context)
    if tool == "apply_patch":
        return HookCall(when, "patch", tool, cwd, text=command)
    use_id = payload.get("tool_use_id")
    return HookCall(when, "shell", tool, cwd, text=command, key=use_id if isinstance(use_id, str) and use_id else command)


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": answer.reason}}
    if answer.action == "rewrite":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "updatedInput": {**payload["tool_input"], "command": answer.text}}}
    if answer.action == "block":
        return {"decision": "block", "reason": answer.reason}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": answer.reason}}
    return None
