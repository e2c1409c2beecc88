"""`gateway hook claude-code`: the PreToolUse and PostToolUse hook. Reads the hook JSON on stdin.

Edit, MultiEdit and Write are judged by their effect: the file before and after the write,
computed as the host will compute it. Where the host's handling of line endings is not
known for certain (CRLF files), every plausible reading is judged and any structural one
denies. A structural write is denied with the reason and the tool or command to use
instead. In a workspace with typed edits enforced (`.gateway/config.toml`), every write
tool also needs a live grant for its file, consumed here. Bash commands that plainly write
workspace files are denied; for the others the workspace is recorded before the command
(PreToolUse) and compared after it (PostToolUse): a change no live grant covers is put
back and reported with `decision: block`. Everything else passes. Input the hook cannot handle fails
closed (exit 2, one line); so does any internal error. The gate is imported only for the
tools it judges, and nothing of the language-server or MCP machinery ever is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.errors import Ambiguous, Blocked, GatewayError, GrantRefused, HookFailed, NotFound, OutsideWorkspace, UsageError

if TYPE_CHECKING:
    from gateway.gate.checker import Gate
    from gateway.gate.effect import Effect
    from gateway.gate.verdict import Classification
    from gateway.symbols.routing import Route
    from gateway.typed.service import TypedEdits

ROUTE_HINT = (
    " Or call the gateway MCP tool `edit_file` with the same old_string/new_string and route=true, "
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
JUDGED_TOOLS = ("Edit", "MultiEdit", "Write")
MAX_PATH = 4096


def _text(value: Any, field: str) -> str:
    from gateway.gate.effect import check_text

    if not isinstance(value, str):
        raise UsageError(f"tool_input.{field} must be a string")
    return check_text(value, f"tool_input.{field}")


def _path_text(value: Any, field: str) -> str:
    text = _text(value, field)
    if not text or "\x00" in text or len(text.encode()) > MAX_PATH:
        raise UsageError(f"{field} must be a path of 1 to {MAX_PATH} bytes without NUL")
    return text


def parse_payload(data: bytes) -> dict[str, Any]:
    """The hook JSON, checked: an object with a string tool_name and, if given, a string cwd."""
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
    if not isinstance(payload, dict) or not isinstance(payload.get("tool_name"), str):
        raise UsageError("hook input must be a JSON object with tool_name")
    if payload.get("cwd") is not None:
        _path_text(payload["cwd"], "cwd")
    if payload["tool_name"] in WRITE_TOOLS and not isinstance(payload.get("tool_input"), dict):
        raise UsageError("tool_input must be an object")
    return payload


CALLER = "gateway:caller"


def caller() -> dict[str, str | None]:
    """What the hook's process adds to its input: its working directory and CLAUDE_PROJECT_DIR."""
    return {"cwd": os.getcwd(), "project_dir": os.environ.get("CLAUDE_PROJECT_DIR")}


def _cwd(payload: dict[str, Any]) -> Path:
    return Path(payload.get("cwd") or payload[CALLER]["cwd"])


def _root(payload: dict[str, Any]) -> Path | None:
    from gateway.config import find_root

    return find_root(Path(payload[CALLER]["project_dir"] or _cwd(payload)))


def _tool_path(payload: dict[str, Any]) -> Path:
    field = WRITE_TOOLS[payload["tool_name"]]
    path = Path(_path_text(payload["tool_input"].get(field), field))
    return path if path.is_absolute() else _cwd(payload) / path


def _readings(raw: str | None) -> list[tuple[str | None, str | None]]:
    """(text, newline) pairs the host may edit: as the file is, and with CRLF as LF."""
    if raw is None or "\r\n" not in raw:
        return [(raw, "\n")]
    return [(raw, None), (raw.replace("\r\n", "\n"), "\n")]


def _edits(tool: str, tool_input: dict[str, Any]) -> list[tuple[str, str, bool]]:
    if tool == "Edit":
        return [(_text(tool_input.get("old_string"), "old_string"), _text(tool_input.get("new_string"), "new_string"),
                 bool(tool_input.get("replace_all")))]
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits or not all(isinstance(e, dict) for e in edits):
        raise UsageError("tool_input.edits must be a non-empty list of objects")
    return [(_text(e.get("old_string"), f"edits[{n}].old_string"), _text(e.get("new_string"), f"edits[{n}].new_string"),
             bool(e.get("replace_all"))) for n, e in enumerate(edits)]


def _judge_reading(gate: Gate, tool: str, display: str, text: str | None, newline: str | None, tool_input: dict[str, Any]) -> tuple[Effect, Classification]:
    from gateway.textfile import normalize_fragment

    if tool == "Write":
        content = _text(tool_input.get("content"), "content")
        return gate.check_write(display, text, normalize_fragment(content, newline) if text is not None else content)
    edits = [(normalize_fragment(old, newline), normalize_fragment(new, newline), every) for old, new, every in _edits(tool, tool_input)]
    if text is None or (text == "" and edits[0][0] == ""):
        if edits[0][0]:
            raise NotFound(f"old_string not found: {display} does not exist")
        return gate.check_write(display, text, edits[0][1])
    if tool == "Edit":
        return gate.check_edit(display, text, *edits[0])
    return gate.check_multi_edit(display, text, edits)


@dataclass(frozen=True)
class Judged:
    """The gate's verdict on one reading of the file, with the write's effect on it."""

    classification: Classification
    effect: Effect
    path: Path
    gate: Gate


def decide(payload: dict[str, Any]) -> Judged | None:
    """The gate's verdict on a PreToolUse payload (the first structural reading, else the last
    allowed one); None for tools and files the gate does not judge."""
    tool = payload["tool_name"]
    if tool not in JUDGED_TOOLS:
        return None
    from gateway.config import gate_config
    from gateway.gate.checker import Gate
    from gateway.textfile import decode

    path = _tool_path(payload)
    gate = Gate(config=gate_config(_root(payload)))
    if not gate.judged(path):
        return None
    display = str(path)
    try:
        raw_bytes: bytes | None = path.read_bytes() if gate.check_bytes(display, path.stat().st_size) else None
    except FileNotFoundError:
        raw_bytes = None
    except OSError as error:
        raise GatewayError(f"{display}: cannot be read ({error.strerror or error})") from None
    raw = decode(raw_bytes, display)[0] if raw_bytes is not None else None
    verdicts: list[Judged] = []
    failures: list[GatewayError] = []
    for text, newline in _readings(raw):
        try:
            effect, classification = _judge_reading(gate, tool, display, text, newline, payload["tool_input"])
        except (NotFound, Ambiguous) as error:  # this reading is not the host's; another may be
            failures.append(error)
            continue
        verdicts.append(Judged(classification, effect, path, gate))
    if not verdicts:
        raise failures[0]
    return next((v for v in verdicts if v.classification.blocked), verdicts[-1])


def _routed(payload: dict[str, Any], judged: Judged) -> tuple[dict[str, Any], Route]:
    """The hook's answer for a structural write performed as symbol operations: the same tool,
    with input whose application gives the verified result R. RouteRefused if there is none."""
    from gateway.symbols.backends import TreeSitterBackend
    from gateway.symbols.routing import plan_route
    from gateway.symbols.service import FileSymbols, symbols_of
    from gateway.workspace import SourceFile

    effect, lang = judged.effect, judged.gate.registry.for_path(judged.path, judged.effect.before)
    assert lang is not None and effect.before is not None
    source = SourceFile(judged.path, str(judged.path), effect.before, "utf-8", None, 0, "")
    backend = TreeSitterBackend()
    route = plan_route(FileSymbols(source, lang, backend, symbols_of(lang, judged.path, effect.before, backend)), effect)
    tool, tool_input = payload["tool_name"], payload["tool_input"]
    if tool == "Write":
        updated = dict(tool_input) if route.exact else {**tool_input, "content": route.result}
    else:
        old, new = route.as_edit()
        edit = {"old_string": old, "new_string": new, "replace_all": False}
        updated = {**tool_input, **edit} if tool == "Edit" else {**tool_input, "edits": [edit]}
    decision = "allow" if payload.get("permission_mode") in ("acceptEdits", "bypassPermissions") else "ask"
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": decision,
            "permissionDecisionReason": route.summary(),
            "updatedInput": updated,
            "additionalContext": route.summary(),
        }
    }
    return answer, route


def deny(reason: str) -> dict[str, Any]:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


def _typed_edits(payload: dict[str, Any]) -> TypedEdits | None:
    """The typed-edit state of the project the agent works in, if it has any (.gateway/)."""
    root = _root(payload)
    if root is None:
        return None
    from gateway.typed.service import TypedEdits
    from gateway.workspace import Workspace

    return TypedEdits(Workspace(root))


def _command(payload: dict[str, Any]) -> tuple[TypedEdits, str, str] | None:
    """(typed edits, the command, its key) for a Bash call in a project with typed-edit state; else None."""
    typed = _typed_edits(payload)
    if typed is None:
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    command = _text(tool_input.get("command"), "command")
    use_id = payload.get("tool_use_id")
    key = use_id if isinstance(use_id, str) and use_id else f"{payload.get('session_id')}\0{command}"
    return typed, command, key


def _bash(payload: dict[str, Any]) -> dict[str, Any] | None:
    found = _command(payload)
    if found is None or not found[0].config().enforce:
        return None
    typed, command, key = found
    from gateway.hooks.bash_guard import workspace_writes

    writes = workspace_writes(command, _cwd(payload), typed.workspace.root)
    if not writes:
        from gateway.typed.shell import before_command

        before_command(typed, key, command)
        return None
    shown = ", ".join(writes)
    refusal = GrantRefused("bash_write", writes[0], f"the command writes workspace files behind the gate ({shown})")
    typed.refuse("hook:Bash", writes, refusal)
    return deny(f"Refused: {refusal}." + BASH_HINT)


def _after_bash(payload: dict[str, Any]) -> dict[str, Any] | None:
    """PostToolUse of Bash: every workspace change without a live grant put back, and said."""
    found = _command(payload) if payload["tool_name"] == "Bash" else None
    if found is None:
        return None
    from gateway.typed.shell import after_command, recorded

    typed, command, key = found
    # The record decides, not the config now: the command itself may have turned enforcement off.
    if not recorded(typed, key) and not typed.config().enforce:
        return None
    try:
        outcome = after_command(typed, key, command)
    except GatewayError as error:
        return {"decision": "block", "reason": f"The gateway could not verify what the command changed: {error}."}
    return {"decision": "block", "reason": outcome.message(command)} if outcome.bypassed else None


def _judge(payload: dict[str, Any]) -> dict[str, Any] | None:
    """The deny decision for a PreToolUse payload, or None to let the tool run."""
    tool = payload["tool_name"]
    if tool == "Bash":
        return _bash(payload)
    if tool not in WRITE_TOOLS:
        return None
    path = _tool_path(payload)
    try:
        judged = decide(payload)
    except UsageError:
        raise
    except GatewayError as error:
        return deny(f"Refused: {error}.")
    typed = _typed_edits(payload)
    answer, operations = None, None
    if judged is not None and judged.classification.blocked:
        refusal = _structural(payload, judged)
        if isinstance(refusal, str):
            if typed is not None and typed.config().enforce:
                typed.refuse(f"hook:{tool}", [str(path)], Blocked(judged.classification))
            return deny(refusal)
        answer, operations = refusal[0], [o.to_json() for o in refusal[1].operations]
    if typed is None:
        return answer
    try:
        typed.native_write(path, f"hook:{tool}", operations)
    except OutsideWorkspace:
        return answer
    except GrantRefused as refused:
        return deny(f"{refused}." + DECLARE_HINT)
    return answer


def _structural(payload: dict[str, Any], judged: Judged) -> tuple[dict[str, Any], Route] | str:
    """A structural write routed (the answer and its route), or the reason it is denied."""
    from gateway.symbols.routing import RouteRefused

    message = judged.classification.message
    if judged.gate.config.on_structural == "deny":
        return message + ROUTE_HINT
    try:
        return _routed(payload, judged)
    except RouteRefused as refused:
        return f"{message} Not routed: {str(refused).rstrip('.')}."


def run(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    """(stdout, exit code) for one hook invocation; input it cannot handle raises UsageError.
    `context` is the hook process's `caller()` (the daemon gets it with the input)."""
    payload = parse_payload(stdin)
    payload[CALLER] = context or caller()
    decision = _after_bash(payload) if payload.get("hook_event_name") == "PostToolUse" else _judge(payload)
    return (json.dumps(decision), 0) if decision else ("", 0)


def outcome(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    """`run`, failing closed: any error becomes HookFailed (exit 2, one line)."""
    try:
        return run(stdin, context)
    except GatewayError as error:
        raise HookFailed(str(error)) from None
    except Exception as error:  # fail closed: the host must not run a tool the hook could not judge
        raise HookFailed(f"internal error ({type(error).__name__}: {str(error)[:200]}); the tool call is refused") from None
