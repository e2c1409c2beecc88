"""`gateway hook opencode`: what the gateway's OpenCode plugin (`opencode_plugin.js`, installed
into `.opencode/plugins/`) sends from `tool.execute.before` / `tool.execute.after`:
`{hook_event_name, tool, args, cwd, session_id, call_id}`. `edit {filePath, oldString,
newString, replaceAll}`, `write {filePath, content}`, `apply_patch {patchText}` (GPT-5 models)
and `bash {command}`. The answer is `{action: "deny", reason}` (the plugin throws, which OpenCode
shows the model as the tool's result), `{action: "rewrite", args}` (the plugin assigns them
into the host's own args object) or `{action: "context", text}` (appended to the output)."""

from __future__ import annotations

from typing import Any

from gateway.errors import UsageError
from gateway.hostcalls.call import Edit
from gateway.hostcalls.call import Answer, HookCall
from gateway.surfaces.hooks.run import cwd_of, path_in, text_of


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    tool, name = payload.get("tool"), payload.get("hook_event_name")
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with tool")
    if tool not in ("edit", "write", "apply_patch", "bash"):
        return None
    args = payload.get("args")
    if not isinstance(args, dict):
        raise UsageError("args must be an object")
    when = "post" if name == "tool.execute.after" or event == "post" else "pre"
    cwd = cwd_of(payload, context)
    if tool == "apply_patch":
        return HookCall(when, "patch", tool, cwd, text=text_of(args.get("patchText"), "patchText"))
    if tool == "bash":
        command = text_of(args.get("command"), "command")
        key = payload.get("call_id")
        return HookCall(when, "shell", tool, cwd, text=command, key=key if isinstance(key, str) and key else command)
    path = path_in(cwd, args.get("filePath"), "filePath")
    if tool == "write":
        return HookCall(when, "write", tool, cwd, path=path, content=text_of(args.get("content"), "content"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, path=path)
    edit = Edit(text_of(args.get("oldString"), "oldString"), text_of(args.get("newString"), "newString"), bool(args.get("replaceAll")))
    return HookCall(when, "edit", tool, cwd, path=path, edits=(edit,))


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"action": "deny", "reason": answer.reason}
    if answer.action == "rewrite":
        if answer.text is not None:
            return {"action": "rewrite", "args": {"patchText": answer.text}}
        if answer.content is not None:
            return {"action": "rewrite", "args": {"content": answer.content}}
        assert answer.edit is not None
        return {"action": "rewrite", "args": {"oldString": answer.edit.old, "newString": answer.edit.new, "replaceAll": False}}
    if answer.action in ("block", "context"):
        return {"action": "context", "text": answer.reason}
    return None
