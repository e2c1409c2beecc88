"""Where the engine's answers become a surface's text, one mapping per surface kind.

The gate and the routing say what to run instead of a refused write as values: an object's
`suggested` list (`gateway.results.SuggestedOperation`), which its `message` names as the
Python API's call. Here, and only here, each surface spells them in its own terms: the CLI
(and the text a hook's agent reads) as the `gateway` command line, MCP as the tool call,
JSON-RPC as the method call. `answer` spells a result or refusal object (the CLI's --json,
MCP, JSON-RPC), `message` an error's one line, `hook_text` a hook's reply. A daemon's answer
is the engine's object as JSON, spelled by the surface that asked.
"""

from __future__ import annotations

from gateway.errors import GatewayError, rpc_code_for

# gateway.results (its dataclasses), `json` and typing are loaded where used: a warm CLI command
# spells an answer that suggests nothing without them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

    from gateway.results import SuggestedOperation


class Spelling:
    """How one surface says a suggested operation: in a text (`say`), and as fields beside the
    suggestion in a JSON object (`fields`)."""

    __slots__ = ("say", "fields")

    def __init__(self, say: Callable[[SuggestedOperation], str], fields: Callable[[SuggestedOperation], dict[str, Any]]) -> None:
        self.say, self.fields = say, fields


def _operation(suggestion: SuggestedOperation) -> Any:
    from gateway.surfaces.operations import OPERATIONS

    return OPERATIONS.get(suggestion.operation)


def command(suggestion: SuggestedOperation) -> str:
    """The `gateway` command line that performs the suggestion."""
    from gateway.surfaces.operations import command_line

    return command_line(suggestion.operation, dict(suggestion.values)) if _operation(suggestion) else str(suggestion)


def _arguments(suggestion: SuggestedOperation) -> dict[str, Any]:
    """The suggestion's values as the operation takes them: a switch (`force`) as a boolean."""
    operation = _operation(suggestion)
    switches = {p.name for p in operation.params if p.kind is bool} if operation else set()
    return {name: value == "true" if name in switches else value for name, value in suggestion.values}


def _tool(suggestion: SuggestedOperation) -> tuple[str, dict[str, Any]]:
    operation = _operation(suggestion)
    if operation is None:
        return suggestion.operation, dict(suggestion.values)
    return operation.tool or operation.name, _arguments(suggestion)


def _tool_call(suggestion: SuggestedOperation) -> str:
    import json

    tool, arguments = _tool(suggestion)
    return f"{tool} {json.dumps(arguments, ensure_ascii=False)}"


def _tool_fields(suggestion: SuggestedOperation) -> dict[str, Any]:
    tool, arguments = _tool(suggestion)
    return {"tool": tool, "arguments": arguments}


def _method(suggestion: SuggestedOperation) -> str:
    operation = _operation(suggestion)
    return operation.method if operation else suggestion.operation


CLI = Spelling(command, lambda s: {"command": command(s)})
MCP = Spelling(_tool_call, _tool_fields)
def _method_call(suggestion: SuggestedOperation) -> str:
    import json

    return f"{_method(suggestion)} {json.dumps(_arguments(suggestion), ensure_ascii=False)}"


RPC = Spelling(_method_call, lambda s: {"method": _method(s)})
HOOK = CLI  # the agent behind a hook runs the gateway's commands (or its MCP tools, named in the text)


def _suggestions(entries: Any) -> list[SuggestedOperation]:
    if not isinstance(entries, list) or not entries:
        return []
    from gateway.results import SuggestedOperation

    return [s for s in map(SuggestedOperation.from_json, entries) if s is not None]


# The fields of an object whose texts name its suggestions.
SPELLED = ("message", "hint")


def answer(value: Any, spelling: Spelling | None) -> Any:
    """A result or refusal object (dicts, lists, strings) with each object's suggested operations
    spelled: in its `message`, `hint` and `commands`, and beside each suggestion. Other texts (a
    body, a diff) are the file's, left as they are. No `spelling`: the object as the engine
    said it (a daemon's answer, which the surface that asked spells)."""
    if spelling is None:
        return value
    if isinstance(value, list | tuple):
        return [answer(item, spelling) for item in value]
    if not isinstance(value, dict):
        return value
    spelled = {key: answer(item, spelling) for key, item in value.items()}
    suggested = _suggestions(value.get("suggested"))
    if not suggested:
        return spelled
    from gateway.results import spell

    for key in SPELLED:
        if isinstance(spelled.get(key), str):
            spelled[key] = spell(spelled[key], suggested, spelling.say)
    if isinstance(spelled.get("commands"), list):
        spelled["commands"] = [spell(c, suggested, spelling.say) if isinstance(c, str) else c for c in spelled["commands"]]
    spelled["suggested"] = [{**s.to_json(), **spelling.fields(s)} for s in suggested]
    return spelled


def refusal(error: GatewayError, spelling: Spelling | None) -> dict[str, Any]:
    """The one shape of a refusal (`gateway.results.refusal`), spelled for a surface."""
    from gateway.results import refusal as _refusal

    spelled: dict[str, Any] = answer(_refusal(error), spelling)
    return spelled


def message(error: GatewayError, spelling: Spelling | None = CLI) -> str:
    """The error's one-line message, spelled (the CLI's `gateway: MESSAGE`)."""
    return str(refusal(error, spelling)["error"].get("message") or error)


def hook_text(text: str, suggested: Iterable[SuggestedOperation]) -> str:
    """A hook reply's text, its suggested operations spelled as the agent runs them."""
    from gateway.results import spell

    return spell(text, suggested, HOOK.say)


def rpc_error(error: GatewayError, spelling: Spelling | None = RPC) -> tuple[int, str, dict[str, Any]]:
    """A JSON-RPC error's code, message and data (the refusal object)."""
    return rpc_code_for(error), message(error, spelling), refusal(error, spelling)


def mcp_error(error: GatewayError) -> str:
    """The text of an MCP tool error: the refusal object (a refusal of the gate is a result instead)."""
    import json

    return json.dumps(refusal(error, MCP), ensure_ascii=False, separators=(",", ":"))
