"""`gateway hook claude-code`: the PreToolUse hook. Reads the hook JSON on stdin.

Edit, MultiEdit and Write are classified; a block is answered with a `deny` decision
whose reason names the tool or command to use instead. In a workspace with typed edits
enforced (`.gateway/config.toml`), every write tool also needs a live grant for its file,
consumed here, and Bash commands that write workspace files are denied. Everything else
passes. Malformed input fails closed (exit 2). The gate is imported only for the tools it
judges, and nothing of the language-server or MCP machinery ever is: this runs before
every edit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.errors import Blocked, GrantRefused, OutsideWorkspace, UsageError

if TYPE_CHECKING:
    from gateway.classify import Classification
    from gateway.typed.service import TypedEdits

EXIT_MALFORMED = 2
ROUTE_HINT = (
    ". Or call the gateway MCP tool `edit_file` with the same old_string/new_string and route=true, "
    "which performs the edit as those symbol operations when the mapping is unambiguous."
)
DECLARE_HINT = (
    " Typed edits are enforced in this workspace: declare the change first (`gateway kinds` lists the kinds; "
    "`gateway declare KIND --file PATH --target prod|test --provenance P --rationale TEXT [--test-file T]`, "
    "or the gateway MCP tool named after the kind), then retry."
)
BASH_HINT = (
    " With typed edits enforced, files in the workspace change only through the gate: declare the change, "
    "then use the Edit/Write tools or the gateway's tools. Writing outside the workspace (e.g. /tmp) is fine."
)
WRITE_TOOLS = {"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path", "NotebookEdit": "notebook_path"}


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
        if tool in WRITE_TOOLS and not isinstance(payload.get("tool_input"), dict):
            raise UsageError("tool_input must be an object")
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


def deny(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def _cwd(payload: dict[str, Any]) -> Path:
    return Path(payload.get("cwd") or os.getcwd())


def _typed_edits(payload: dict[str, Any]) -> TypedEdits | None:
    """The typed-edit state of the project the agent works in, if it has any (.gateway/)."""
    from gateway.typed.config import find_root

    root = find_root(Path(os.environ.get("CLAUDE_PROJECT_DIR") or _cwd(payload)))
    if root is None:
        return None
    from gateway.typed.service import TypedEdits
    from gateway.workspace import Workspace

    return TypedEdits(Workspace(root))


def _tool_path(payload: dict[str, Any]) -> Path:
    field = WRITE_TOOLS[payload["tool_name"]]
    path = Path(_text(payload["tool_input"].get(field), field))
    return path if path.is_absolute() else _cwd(payload) / path


def _bash(payload: dict[str, Any]) -> dict[str, Any] | None:
    typed = _typed_edits(payload)
    if typed is None or not typed.config().enforce:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    from gateway.hooks.bash_guard import workspace_writes

    writes = workspace_writes(_text(tool_input.get("command"), "command"), _cwd(payload), typed.workspace.root)
    if not writes:
        return None
    shown = ", ".join(writes)
    refusal = GrantRefused("bash_write", writes[0], f"the command writes workspace files behind the gate ({shown})")
    typed.refuse("hook:Bash", writes, refusal)
    return deny(f"Refused: {refusal}." + BASH_HINT)


def _judge(payload: Any) -> dict[str, Any] | None:
    """The deny decision for a PreToolUse payload, or None to let the tool run."""
    if isinstance(payload, dict) and payload.get("tool_name") == "Bash":
        return _bash(payload)
    classification = decide(payload)
    tool = payload["tool_name"]
    if tool not in WRITE_TOOLS:
        return None
    typed = _typed_edits(payload)
    path = _tool_path(payload)
    if classification is not None and classification.blocked:
        if typed is not None and typed.config().enforce:
            typed.refuse(f"hook:{tool}", [str(path)], Blocked(classification))
        return deny(classification.message + ROUTE_HINT)
    if typed is None:
        return None
    try:
        typed.native_write(path, f"hook:{tool}")
    except OutsideWorkspace:
        return None
    except GrantRefused as refused:
        return deny(f"{refused}." + DECLARE_HINT)
    return None


def run(stdin_text: str) -> tuple[str, int]:
    """(stdout, exit code) for one hook invocation; errors raise UsageError."""
    try:
        payload = json.loads(stdin_text)
    except json.JSONDecodeError as error:
        raise UsageError(f"hook input is not JSON ({error.msg} at line {error.lineno})") from None
    decision = _judge(payload)
    return (json.dumps(decision), 0) if decision else ("", 0)
