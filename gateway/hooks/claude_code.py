"""`gateway hook claude-code`: the PreToolUse hook. Reads the hook JSON on stdin.

Edit, MultiEdit and Write are classified; a block is answered with a `deny` decision
whose reason names the tool or command to use instead. Everything else passes. Malformed
input fails closed (exit 2). The gate is imported only for the tools it judges, and
nothing of the language-server or MCP machinery ever is: this runs before every edit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.errors import UsageError

if TYPE_CHECKING:
    from gateway.classify import Classification

EXIT_MALFORMED = 2
ROUTE_HINT = (
    ". Or call the gateway MCP tool `edit_file` with the same old_string/new_string and route=true, "
    "which performs the edit as those symbol operations when the mapping is unambiguous."
)


def _text(value: Any, field: str) -> str:
    if not isinstance(value, str):
        raise UsageError(f"tool_input.{field} must be a string")
    return value


def _edit(path: Path, tool_input: dict[str, Any]) -> Classification:
    from gateway.classify import classify_edit

    return classify_edit(
        path,
        _text(tool_input.get("old_string"), "old_string"),
        _text(tool_input.get("new_string"), "new_string"),
        replace_all=bool(tool_input.get("replace_all")),
    )


def _multi_edit(path: Path, tool_input: dict[str, Any]) -> Classification:
    """Each edit judged against the file as the earlier edits leave it."""
    from gateway.classify import classify_edit, read_if_exists

    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits or not all(isinstance(e, dict) for e in edits):
        raise UsageError("tool_input.edits must be a non-empty list of objects")
    content = read_if_exists(path)
    result: Classification | None = None
    for number, edit in enumerate(edits):
        old, new = _text(edit.get("old_string"), f"edits[{number}].old_string"), _text(edit.get("new_string"), f"edits[{number}].new_string")
        replace_all = bool(edit.get("replace_all"))
        result = classify_edit(path, old, new, content=content, replace_all=replace_all)
        if result.blocked:
            return result
        if content is not None and old:
            content = content.replace(old, new) if replace_all else content.replace(old, new, 1)
    assert result is not None
    return result


def decide(payload: Any) -> Classification | None:
    """The gate's decision on a PreToolUse payload; None for tools the gate does not judge."""
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str):
        raise UsageError("hook input must be a JSON object with tool_name")
    tool = payload["tool_name"]
    if tool not in ("Edit", "MultiEdit", "Write"):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    path = Path(_text(tool_input.get("file_path"), "file_path"))
    if not path.is_absolute():
        path = Path(payload.get("cwd") or os.getcwd()) / path
    if tool == "Edit":
        return _edit(path, tool_input)
    if tool == "MultiEdit":
        return _multi_edit(path, tool_input)
    from gateway.write_gate import classify_write

    return classify_write(path, _text(tool_input.get("content"), "content"))


def deny(classification: Classification) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": classification.message + ROUTE_HINT,
        }
    }


def run(stdin_text: str) -> tuple[str, int]:
    """(stdout, exit code) for one hook invocation; errors raise UsageError."""
    try:
        payload = json.loads(stdin_text)
    except json.JSONDecodeError as error:
        raise UsageError(f"hook input is not JSON ({error.msg} at line {error.lineno})") from None
    classification = decide(payload)
    if classification is None or not classification.blocked:
        return "", 0
    return json.dumps(deny(classification)), 0
