"""`gateway hook gemini`: Gemini CLI's BeforeTool and AfterTool hooks. `replace {file_path,
instruction, old_string, new_string, allow_multiple}`, `write_file {file_path, content}` and
`run_shell_command {command}`. A rewrite goes back as the whole tool input in
`hookSpecificOutput.tool_input` (Gemini builds the call from it alone); a refusal as
`decision: deny`. Gemini's replace falls back to fuzzy matching and a model "fixer" when
old_string is not found exactly; the gate judges exact matches, so such an edit is refused."""

from __future__ import annotations

from typing import Any

from gateway.errors import UsageError
from gateway.hostcalls.call import Edit
from gateway.hostcalls.call import Answer, HookCall
from gateway.surfaces.hooks.run import cwd_of, named_tool, path_in, text_of


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    named = named_tool(payload, event, "AfterTool")
    if named is None:
        return None
    tool, when = named
    if tool not in ("replace", "write_file", "run_shell_command"):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    cwd, project = cwd_of(payload, context), context.get("project_dir")
    if tool == "run_shell_command":
        command = text_of(tool_input.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, project, text=command, key=f"{payload.get('session_id')}\0{command}")
    path = path_in(cwd, tool_input.get("file_path"), "file_path")
    if tool == "write_file":
        return HookCall(when, "write", tool, cwd, project, path=path, content=text_of(tool_input.get("content"), "content"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, project, path=path)
    edit = Edit(text_of(tool_input.get("old_string"), "old_string"), text_of(tool_input.get("new_string"), "new_string"),
                bool(tool_input.get("allow_multiple")))
    return HookCall(when, "edit", tool, cwd, project, path=path, edits=(edit,), style="gemini")


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action in ("deny", "block"):
        return {"decision": "deny", "reason": answer.reason}
    if answer.action == "rewrite":
        tool_input = dict(payload["tool_input"])
        if answer.content is not None:
            tool_input["content"] = answer.content
        else:
            assert answer.edit is not None
            tool_input.update(old_string=answer.edit.old, new_string=answer.edit.new, allow_multiple=False)
        return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": tool_input}}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": answer.reason}}
    return None
