"""`gateway mcp`: the MCP server (official `mcp` SDK) over stdio.

Each tool's description carries its obligations (gateway.descriptions). A gate refusal is
an ordinary result naming the tool to use; other failures are tool errors with the
gateway's one-line message. Neither is a protocol error. Calls go to the workspace's daemon
when one runs (`daemon_client.invoke`). One tool per typed-edit kind
(gateway.typed.kinds): its description is the kind's obligations; it declares, and, given
an edit, applies it through the gate with the grant it was issued.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gateway.api import Gateway
from gateway.descriptions import TOOL_DESCRIPTIONS, kind_tool_description
from gateway.daemon_client import invoke
from gateway.errors import GatewayError
from gateway.surface import call
from gateway.typed.kinds import Kind, catalogue

# The enumerations come from kinds.toml, so the tools' schemas list exactly what the matrix accepts.
Provenance = Literal[catalogue().rules.provenances]  # type: ignore[valid-type]
ExecutionState = Literal[catalogue().rules.execution_states]  # type: ignore[valid-type]


def build_server(gateway: Gateway) -> MCPServer:
    server = MCPServer(
        "gateway",
        instructions="Structural edit gateway: text edits to definitions are refused; use the symbol tools.",
        version="0.1.0",
    )

    def run(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return invoke(gateway.workspace.root, operation, params, lambda: call(gateway, operation, params))
        except GatewayError as error:
            if error.kind == "blocked":  # Blocked here, RemoteError from the daemon: the same object
                return {**error.to_json()["classification"], "applied": False}
            raise ToolError(f"{error.kind}: {error}") from None

    @server.tool(description=TOOL_DESCRIPTIONS["edit_file"])
    def edit_file(
        file_path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = True, token: str | None = None
    ) -> dict[str, Any]:
        return run("edit", {"file_path": file_path, "old_string": old_string, "new_string": new_string, "replace_all": replace_all, "route": route, "token": token})

    @server.tool(description=TOOL_DESCRIPTIONS["replace_symbol"])
    def replace_symbol(name_path: str, path: str, body: str, token: str | None = None) -> dict[str, Any]:
        return run("replace_symbol", {"name_path": name_path, "path": path, "body": body, "token": token})

    @server.tool(description=TOOL_DESCRIPTIONS["insert_code"])
    def insert_code(name_path: str, path: str, code: str, position: Literal["before", "after"], token: str | None = None) -> dict[str, Any]:
        return run("insert_code", {"name_path": name_path, "path": path, "code": code, "position": position, "token": token})

    @server.tool(description=TOOL_DESCRIPTIONS["remove_symbol"])
    def remove_symbol(name_path: str, path: str, token: str | None = None) -> dict[str, Any]:
        return run("remove_symbol", {"name_path": name_path, "path": path, "token": token})

    @server.tool(description=TOOL_DESCRIPTIONS["rename_symbol"])
    def rename_symbol(name_path: str, path: str, new_name: str, token: str | None = None) -> dict[str, Any]:
        return run("rename_symbol", {"name_path": name_path, "path": path, "new_name": new_name, "token": token})

    @server.tool(description=TOOL_DESCRIPTIONS["symbols"])
    def symbols(path: str, depth: int | None = None) -> dict[str, Any]:
        return run("symbols", {"path": path, "depth": depth})

    @server.tool(description=TOOL_DESCRIPTIONS["find_symbol"])
    def find_symbol(name_path: str, path: str | None = None, body: bool = False) -> dict[str, Any]:
        return run("find_symbol", {"name_path": name_path, "path": path, "body": body})

    @server.tool(description=TOOL_DESCRIPTIONS["contract_check"])
    def contract_check(path: str) -> dict[str, Any]:
        return run("contract_check", {"path": path})

    @server.tool(description=TOOL_DESCRIPTIONS["contract_apply"])
    def contract_apply(path: str, keep_on_failure: bool = False) -> dict[str, Any]:
        return run("contract_apply", {"path": path, "keep_on_failure": keep_on_failure})

    for kind in catalogue().kinds.values():
        server.add_tool(_kind_tool(kind, run), name=kind.name, description=kind_tool_description(kind))
    return server


def _kind_tool(kind: Kind, run: Callable[[str, dict[str, Any]], dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    def declare_and_edit(
        provenance: Provenance,
        rationale: str,
        files: list[str] | None = None,
        target: Literal["prod", "test"] | None = None,
        test_files: list[str] | None = None,
        execution_state: ExecutionState = "normal",
        additional_files: list[str] | None = None,
        file_path: str | None = None,
        old_string: str | None = None,
        new_string: str | None = None,
        replace_all: bool = False,
    ) -> dict[str, Any]:
        edit = (file_path, old_string, new_string)
        if any(part is not None for part in edit) and not all(part is not None for part in edit):
            raise ToolError("usage: give file_path, old_string and new_string together (or none, to declare only)")
        declared = run("declare", {
            "kind": kind.name,
            "files": list(dict.fromkeys([*(files or []), *([file_path] if file_path else [])])),
            "provenance": provenance,
            "rationale": rationale,
            "target": target,
            "test_files": test_files or [],
            "execution_state": execution_state,
            "additional_files": additional_files or [],
        })
        if not declared["issued"] or file_path is None:
            return declared
        try:
            applied = run("edit", {"file_path": file_path, "old_string": old_string, "new_string": new_string,
                                   "replace_all": replace_all, "token": declared["token"]})
        except ToolError as error:
            applied = {"applied": False, "error": str(error)}
        return {**declared, "edit": applied}

    declare_and_edit.__name__ = kind.name
    return declare_and_edit


def serve_mcp(workspace: str) -> None:
    with Gateway(workspace) as gateway:
        build_server(gateway).run("stdio")
