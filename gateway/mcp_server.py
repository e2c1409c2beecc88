"""`gateway mcp`: the MCP server (official `mcp` SDK) over stdio.

Each tool's description carries its obligations (gateway.descriptions). A gate refusal is
an ordinary result naming the tool to use; other failures are tool errors with the
gateway's one-line message. Neither is a protocol error.
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gateway.api import Gateway
from gateway.descriptions import TOOL_DESCRIPTIONS
from gateway.errors import Blocked, GatewayError
from gateway.surface import call


def build_server(gateway: Gateway) -> MCPServer:
    server = MCPServer(
        "gateway",
        instructions="Structural edit gateway: text edits to definitions are refused; use the symbol tools.",
        version="0.1.0",
    )

    def run(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        try:
            return call(gateway, operation, params)
        except Blocked as blocked:
            return {**blocked.classification.to_json(), "applied": False}
        except GatewayError as error:
            raise ToolError(f"{error.kind}: {error}") from None

    @server.tool(description=TOOL_DESCRIPTIONS["edit_file"])
    def edit_file(file_path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = False) -> dict[str, Any]:
        return run("edit", {"file_path": file_path, "old_string": old_string, "new_string": new_string, "replace_all": replace_all, "route": route})

    @server.tool(description=TOOL_DESCRIPTIONS["replace_symbol"])
    def replace_symbol(name_path: str, path: str, body: str) -> dict[str, Any]:
        return run("replace_symbol", {"name_path": name_path, "path": path, "body": body})

    @server.tool(description=TOOL_DESCRIPTIONS["insert_code"])
    def insert_code(name_path: str, path: str, code: str, position: Literal["before", "after"]) -> dict[str, Any]:
        return run("insert_code", {"name_path": name_path, "path": path, "code": code, "position": position})

    @server.tool(description=TOOL_DESCRIPTIONS["remove_symbol"])
    def remove_symbol(name_path: str, path: str) -> dict[str, Any]:
        return run("remove_symbol", {"name_path": name_path, "path": path})

    @server.tool(description=TOOL_DESCRIPTIONS["rename_symbol"])
    def rename_symbol(name_path: str, path: str, new_name: str) -> dict[str, Any]:
        return run("rename_symbol", {"name_path": name_path, "path": path, "new_name": new_name})

    @server.tool(description=TOOL_DESCRIPTIONS["symbols"])
    def symbols(path: str, depth: int | None = None) -> dict[str, Any]:
        return run("symbols", {"path": path, "depth": depth})

    @server.tool(description=TOOL_DESCRIPTIONS["find_symbol"])
    def find_symbol(name_path: str, path: str | None = None, body: bool = False) -> dict[str, Any]:
        return run("find_symbol", {"name_path": name_path, "path": path, "body": body})

    return server


def serve_mcp(workspace: str) -> None:
    with Gateway(workspace) as gateway:
        build_server(gateway).run("stdio")
