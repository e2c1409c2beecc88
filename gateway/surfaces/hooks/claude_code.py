"""`gateway hook claude-code`: Claude Code's PreToolUse and PostToolUse hook (and what GitHub
Copilot CLI sends to the same hook from `.claude/settings.json`: its own argument names,
`path`/`old_str`/`new_str` and `path`/`file_text`, and a patch string for `apply_patch`).

The adapter only translates. A routed write goes back as `updatedInput` with no permission
decision, so the user's rules and the permission mode decide as they would without the
gateway; only a refusal is a deny. What a routed write did is said at PostToolUse, once the
file holds it. Claude Code's Edit (and Copilot's edit) with an empty new_string also deletes
the newline after the text it removes, and the gate judges exactly that.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import UsageError
from gateway.hostcalls.call import Edit
from gateway.hostcalls.call import Answer, HookCall
from gateway.surfaces.hooks.run import cwd_of, named_tool, outcome as host_outcome, path_in, run as host_run, text_of

EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
# (path, old, new, content) as Claude Code names them, and as Copilot CLI does.
CLAUDE_NAMES = ("file_path", "old_string", "new_string", "content")
COPILOT_NAMES = ("path", "old_str", "new_str", "file_text")


def _names(tool_input: dict[str, Any]) -> tuple[str, str, str, str]:
    return COPILOT_NAMES if "file_path" not in tool_input and "path" in tool_input else CLAUDE_NAMES


def _edits(tool: str, tool_input: dict[str, Any], names: tuple[str, ...]) -> tuple[Edit, ...]:
    if tool == "Edit":
        return (Edit(text_of(tool_input.get(names[1]), names[1]), text_of(tool_input.get(names[2]), names[2]),
                     bool(tool_input.get("replace_all"))),)
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits or not all(isinstance(e, dict) for e in edits):
        raise UsageError("tool_input.edits must be a non-empty list of objects")
    return tuple(Edit(text_of(e.get("old_string"), f"edits[{n}].old_string"), text_of(e.get("new_string"), f"edits[{n}].new_string"),
                      bool(e.get("replace_all"))) for n, e in enumerate(edits))


def _shell_key(payload: dict[str, Any], command: str) -> str:
    use_id = payload.get("tool_use_id")
    return use_id if isinstance(use_id, str) and use_id else f"{payload.get('session_id')}\0{command}"


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    named = named_tool(payload, event, "PostToolUse")
    if named is None:
        return None
    tool, when = named
    cwd, project, tool_input = cwd_of(payload, context), context.get("project_dir"), payload.get("tool_input")
    if tool == "Edit" and isinstance(tool_input, str):  # Copilot's apply_patch, named Edit
        return HookCall(when, "patch", tool, cwd, project, text=text_of(tool_input, "patch"))
    if tool not in (*EDIT_TOOLS, "Bash"):
        return None
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    if tool == "Bash":
        command = text_of(tool_input.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, project, text=command, key=_shell_key(payload, command))
    if tool == "NotebookEdit":
        return HookCall(when, "other", tool, cwd, project, path=path_in(cwd, tool_input.get("notebook_path"), "notebook_path"))
    names = _names(tool_input)
    path = path_in(cwd, tool_input.get(names[0]), names[0])
    if tool == "Write":
        return HookCall(when, "write", tool, cwd, project, path=path, content=text_of(tool_input.get(names[3]), names[3]))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, project, path=path)
    # Copilot CLI's edit deletes the newline after removed text just as Claude Code's does (seen running).
    return HookCall(when, "edit", tool, cwd, project, path=path, edits=_edits(tool, tool_input, names), style="claude")


def _updated(payload: dict[str, Any], answer: Answer) -> Any:
    tool_input = payload["tool_input"]
    if isinstance(tool_input, str):
        return answer.text
    names = _names(tool_input)
    if answer.content is not None:
        return {**tool_input, names[3]: answer.content}
    assert answer.edit is not None
    edit = {names[1]: answer.edit.old, names[2]: answer.edit.new, "replace_all": False}
    return {**tool_input, **edit} if payload["tool_name"] == "Edit" else {**tool_input, "edits": [edit]}


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": answer.reason}}
    if answer.action == "rewrite":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": _updated(payload, answer)}}
    if answer.action == "block":
        return {"decision": "block", "reason": answer.reason}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": answer.reason}}
    return None


def run(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    return host_run("claude-code", stdin, context)


def outcome(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    return host_outcome("claude-code", stdin, context)
