"""Where the engine's answers become a surface's text, one mapping per surface kind.

The gate and the routing say what to run instead of a refused write as values
(`gateway.results.SuggestedOperation`); a text that suggests one holds its placeholder. Here,
and only here, a placeholder is spelled as the `gateway` command that performs it, in every
text a surface sends out: results (`answer`), refusals (`refusal`), errors (`message`, and
`rpc_error` for JSON-RPC, `mcp_error` for MCP tools) and hook replies (`text`, in
`hooks.run`). Spelling is idempotent, so an answer the workspace's daemon already spelled
comes through unchanged: the text is the same whether it was computed there or here.
"""

from __future__ import annotations

from typing import Any

from gateway.errors import GatewayError, rpc_code_for
from gateway.results import SUGGESTION_END, SUGGESTION_START, SuggestedOperation, refusal as _refusal


def text(value: str) -> str:
    """`value` with each suggested operation in it spelled as its `gateway` command line."""
    start = value.find(SUGGESTION_START)
    if start < 0:
        return value
    from gateway.surfaces.operations import OPERATIONS, command_line

    parts, done = [], 0
    while start >= 0:
        end = value.find(SUGGESTION_END, start)
        if end < 0:
            break
        end += len(SUGGESTION_END)
        suggestion = SuggestedOperation.parse(value[start:end])
        if suggestion is not None and suggestion.operation in OPERATIONS:
            parts += [value[done:start], command_line(suggestion.operation, dict(suggestion.values))]
            done = end
        start = value.find(SUGGESTION_START, max(done, start + 1))
    return "".join(parts) + value[done:]


# The fields the gate and the routing write suggestions into. Only these are spelled: a body,
# a diff or a file's text that happens to hold a placeholder's characters is the file's.
SPELLED = frozenset({"message", "commands"})


def answer(value: Any, spelled: bool = False) -> Any:
    """A result object (dicts, lists, strings) with the texts of its `SPELLED` fields spelled."""
    if isinstance(value, str):
        return text(value) if spelled else value
    if isinstance(value, dict):
        return {key: answer(item, spelled or key in SPELLED) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [answer(item, spelled) for item in value]
    return value


def message(error: GatewayError) -> str:
    """The error's one-line message, spelled (the CLI's `gateway: MESSAGE`)."""
    return text(str(error))


def refusal(error: GatewayError) -> dict[str, Any]:
    """The one shape of a refusal (`gateway.results.refusal`), spelled: the CLI's --json, MCP."""
    return answer(_refusal(error))


def rpc_error(error: GatewayError) -> tuple[int, str, dict[str, Any]]:
    """A JSON-RPC error's code, message and data (the error object)."""
    return rpc_code_for(error), message(error), answer(error.to_json())


def mcp_error(error: GatewayError) -> str:
    """The text of an MCP tool error (a refusal of the gate is a result instead: `refusal`)."""
    return f"{error.kind}: {message(error)}"
