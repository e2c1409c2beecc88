"""`gateway hook copilot EVENT`: GitHub Copilot CLI's own hooks (`.github/hooks/gateway.json`,
or inline in the user's settings): `preToolUse` / `postToolUse` with camelCase payloads,
`{toolName, toolArgs, cwd}`. `edit {path, old_str, new_str}`, `create {path, file_text}`,
`apply_patch` (the raw patch, for GPT-5 models) and `bash {command}`. A rewrite goes back as
`modifiedArgs` with no permission decision; a refusal as `permissionDecision: deny`.
(Copilot also runs Claude Code's hooks from `.claude/settings.json`: see `claude_code`.)"""

from __future__ import annotations

import json
from typing import Any

from gateway.errors import UsageError
from gateway.hostcalls.call import Edit
from gateway.hostcalls.call import Answer, HookCall
from gateway.surfaces.hooks.run import cwd_of, path_in, text_of


def _args(payload: dict[str, Any]) -> dict[str, Any] | str:
    """toolArgs: an object, a JSON text of one, or (apply_patch) the raw patch."""
    args = payload.get("toolArgs")
    if isinstance(args, str) and payload.get("toolName") != "apply_patch":
        try:
            args = json.loads(args)
        except ValueError:
            raise UsageError("toolArgs is not a JSON object") from None
    if not isinstance(args, dict | str):
        raise UsageError("toolArgs must be an object")
    return args


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    tool = payload.get("toolName")
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with toolName")
    if event == "start" or tool not in ("edit", "create", "apply_patch", "bash"):
        return None
    when = "post" if event == "post" else "pre"
    cwd, args = cwd_of(payload, context), _args(payload)
    if tool == "apply_patch":
        patch = args if isinstance(args, str) else args.get("input", args.get("patch"))
        return HookCall(when, "patch", tool, cwd, text=text_of(patch, "patch"))
    if not isinstance(args, dict):
        raise UsageError("toolArgs must be an object")
    if tool == "bash":
        command = text_of(args.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, text=command, key=f"{payload.get('sessionId')}\0{command}")
    path = path_in(cwd, args.get("path"), "path")
    if tool == "create":
        return HookCall(when, "write", tool, cwd, path=path, content=text_of(args.get("file_text"), "file_text"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, path=path)
    edit = Edit(text_of(args.get("old_str"), "old_str"), text_of(args.get("new_str"), "new_str"))
    return HookCall(when, "edit", tool, cwd, path=path, edits=(edit,), style="claude")  # deletes the newline too (seen running)


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"permissionDecision": "deny", "permissionDecisionReason": answer.reason}
    if answer.action == "rewrite":
        args = _args(payload)
        if isinstance(args, str):
            return {"modifiedArgs": answer.text}
        if answer.content is not None:
            return {"modifiedArgs": {**args, "file_text": answer.content}}
        assert answer.edit is not None
        return {"modifiedArgs": {**args, "old_str": answer.edit.old, "new_str": answer.edit.new}}
    if answer.action in ("block", "context"):
        return {"additionalContext": answer.reason}
    return None
