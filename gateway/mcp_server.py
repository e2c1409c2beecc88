"""`gateway mcp`: the MCP server (official `mcp` SDK) over stdio.

Each tool's description carries its obligations (gateway.descriptions), under a budget: the
tool list is in the agent's context on every request. The typed-edit tool (`declare`, with
the kind as an enum; a kind alone answers that kind's obligations) is listed only when the
workspace turns typed edits on, contract tools only when it has contracts (`[mcp]` in
.gateway/config.toml overrides both). A result is sent
once, as compact JSON text. A gate refusal is an ordinary result naming the tool to use; other
failures are tool errors with the gateway's one-line message. Calls go to the workspace's
daemon when one runs (`daemon_client.invoke`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gateway.api import Gateway
from gateway.config import mcp_config
from gateway.daemon_client import invoke
from gateway.descriptions import CONTRACT_TOOLS, INSTRUCTIONS, TOOL_DESCRIPTIONS, TYPED_INSTRUCTIONS
from gateway.errors import GatewayError
from gateway.surface import call
from gateway.typed.kinds import catalogue

# The enumerations come from kinds.toml, so the tools' schemas list exactly what the matrix accepts.
KindName = Literal[tuple(catalogue().kinds)]  # type: ignore[valid-type]
Provenance = Literal[catalogue().rules.provenances]  # type: ignore[valid-type]
ExecutionState = Literal[catalogue().rules.execution_states]  # type: ignore[valid-type]

Run = Callable[[str, dict[str, Any]], dict[str, Any]]


def _core_tools(run: Run) -> dict[str, Callable[..., str]]:
    """The gate and symbol tools (and the contract tools), each answering in compact JSON."""

    def edit_file(
        file_path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = True, token: str | None = None
    ) -> str:
        return _text(run("edit", {"file_path": file_path, "old_string": old_string, "new_string": new_string, "replace_all": replace_all, "route": route, "token": token}))

    def replace_symbol(name_path: str, path: str, body: str, token: str | None = None) -> str:
        return _text(run("replace_symbol", {"name_path": name_path, "path": path, "body": body, "token": token}))

    def insert_code(name_path: str, path: str, code: str, position: Literal["before", "after"], token: str | None = None) -> str:
        return _text(run("insert_code", {"name_path": name_path, "path": path, "code": code, "position": position, "token": token}))

    def remove_symbol(name_path: str, path: str, token: str | None = None) -> str:
        return _text(run("remove_symbol", {"name_path": name_path, "path": path, "token": token}))

    def rename_symbol(name_path: str, path: str, new_name: str, token: str | None = None) -> str:
        return _text(run("rename_symbol", {"name_path": name_path, "path": path, "new_name": new_name, "token": token}))

    def symbols(path: str, depth: int | None = None) -> str:
        return _text(run("symbols", {"path": path, "depth": depth}))

    def find_symbol(name_path: str, path: str | None = None, body: bool = False) -> str:
        return _text(run("find_symbol", {"name_path": name_path, "path": path, "body": body}))

    def contract_check(path: str) -> str:
        return _text(run("contract_check", {"path": path}))

    def contract_apply(path: str, keep_on_failure: bool = False) -> str:
        return _text(run("contract_apply", {"path": path, "keep_on_failure": keep_on_failure}))

    return {f.__name__: f for f in (edit_file, replace_symbol, insert_code, remove_symbol, rename_symbol, symbols, find_symbol, contract_check, contract_apply)}


def _text(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def build_server(gateway: Gateway) -> MCPServer:
    listed = mcp_config(gateway.workspace.root)
    server = MCPServer("gateway", instructions=INSTRUCTIONS + (TYPED_INSTRUCTIONS if listed.typed_edits else ""), version="0.1.0")

    def run(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return invoke(gateway.workspace.root, operation, params, lambda: call(gateway, operation, params))
        except GatewayError as error:
            if error.kind == "blocked":  # Blocked here, RemoteError from the daemon: the same object
                return {**error.to_json()["classification"], "applied": False}
            raise ToolError(f"{error.kind}: {error}") from None

    for name, tool in _core_tools(run).items():
        if name not in CONTRACT_TOOLS or listed.contracts:
            server.add_tool(tool, name=name, description=TOOL_DESCRIPTIONS[name], structured_output=False)
    if listed.typed_edits:
        server.add_tool(_declare_tool(run), name="declare", description=TOOL_DESCRIPTIONS["declare"], structured_output=False)
    for tool in server._tool_manager.list_tools():
        tool.parameters = _compact_schema(tool.parameters)
    return server


def _compact_schema(schema: Any) -> Any:
    """A tool's input schema without what costs context and tells nothing: pydantic's titles, and
    `anyOf [{type: T}, {type: null}]` spelled as `type: [T, null]`."""
    if isinstance(schema, list):
        return [_compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        other = next(o for o in options if o != {"type": "null"})
        if isinstance(other.get("type"), str):
            kept = {k: v for k, v in schema.items() if k != "anyOf"}
            schema = {**other, "type": [other["type"], "null"], **kept}
    return {k: _compact_schema(v) for k, v in schema.items() if not (k == "title" and isinstance(v, str))}


def _declare_tool(run: Run) -> Callable[..., str]:
    def declare(
        kind: KindName,  # pyright: ignore[reportInvalidTypeForm]
        provenance: Provenance | None = None,  # pyright: ignore[reportInvalidTypeForm]
        rationale: str | None = None,
        files: list[str] | None = None,
        target: Literal["prod", "test"] | None = None,
        test_files: list[str] | None = None,
        execution_state: ExecutionState = "normal",  # pyright: ignore[reportInvalidTypeForm]
        additional_files: list[str] | None = None,
        file_path: str | None = None,
        old_string: str | None = None,
        new_string: str | None = None,
        replace_all: bool = False,
    ) -> str:
        if provenance is None and rationale is None and not files and file_path is None:
            return _text({"declared": False, **catalogue().kinds[kind].to_json()})  # the obligations, on demand
        edit = (file_path, old_string, new_string)
        if any(part is not None for part in edit) and not all(part is not None for part in edit):
            raise ToolError("usage: give file_path, old_string and new_string together (or none, to declare only)")
        if provenance is None or rationale is None:
            raise ToolError("usage: a declaration needs provenance and rationale (call with kind alone to read what it needs)")
        declared = run("declare", {
            "kind": kind,
            "files": list(dict.fromkeys([*(files or []), *([file_path] if file_path else [])])),
            "provenance": provenance,
            "rationale": rationale,
            "target": target,
            "test_files": test_files or [],
            "execution_state": execution_state,
            "additional_files": additional_files or [],
        })
        if not declared["issued"] or file_path is None:
            return _text(declared)
        try:
            applied = run("edit", {"file_path": file_path, "old_string": old_string, "new_string": new_string,
                                   "replace_all": replace_all, "token": declared["token"]})
        except ToolError as error:
            applied = {"applied": False, "error": str(error)}
        return _text({**declared, "edit": applied})

    return declare


def serve_mcp(workspace: str) -> None:
    with Gateway(workspace) as gateway:
        build_server(gateway).run("stdio")
