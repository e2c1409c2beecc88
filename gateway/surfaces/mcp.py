"""`gateway mcp`: the MCP server (official `mcp` SDK) over stdio.

Each tool, with its description and parameters, comes from the operation table (gateway.surfaces.operations);
a description carries the tool's obligations, under a budget: the
tool list is in the agent's context on every request. The typed-edit tool (`declare`, with
the kind as an enum; a kind alone answers that kind's obligations) is listed only when the
workspace turns typed edits on, contract tools only when it has contracts (`[mcp]` in
.gateway/config.toml overrides both). A result is sent
once, as compact JSON text. A gate refusal is an ordinary result naming the tool to use; other
failures are tool errors with the gateway's one-line message. Calls go to the workspace's
daemon when one runs (`daemon_client.invoke`). A call that waits more than 2 seconds (a
language server starting or indexing) sends progress notifications, when the client asked
for them with a progressToken.

Started by a host (`--host`, as `gateway hook install` registers it), the server lists its
write tools only when the user asked for them (`--writes`), and each write is refused, before
anything runs, wherever the host's user denies the host's own edit tools for that file
(`hooks.host_denies`, read at each call): the user's deny holds for the gateway's tools too.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import AliasChoices, Field, ValidationError

from gateway import progress
from gateway.api import Gateway
from gateway.config import mcp_config
from gateway.errors import Denied, GatewayError, UsageError
from gateway.surfaces import render
from gateway.surfaces.daemon_client import invoke
from gateway.surfaces.hooks.host_denies import refusal as host_refusal
from gateway.surfaces.hooks.trust import session_notices
from gateway.surfaces.operations import OPERATIONS, Operation, Param, call
Run = Callable[[str, dict[str, Any], "Context | None"], dict[str, Any]]
Answer = str | CallToolResult  # a result as JSON text; a refusal other than the gate's is a tool error holding its JSON

INSTRUCTIONS = (
    "Structural edit gateway. edit_file judges each write by its effect: edits inside bodies apply; "
    "edits that add, remove or rename definitions or change their headers are done as verified symbol "
    "operations or refused with the tool to use; create_file makes a new file, judged alike. Symbol tools "
    "address definitions by name path (see find_symbol). There is no bypass. Every write is atomic and keeps encoding and line endings. "
    "A write that changes a definition answers new_errors, the errors the language server reports that it added (path:line), or "
    "verified: unknown with the reason; dry_run=true answers the same without writing."
)

READ_ONLY_INSTRUCTIONS = (
    "Structural edit gateway, read tools only here: find_symbol and symbols address definitions by name path. "
    "Edit files with the host's own edit tools; the gateway judges each of those writes by its effect."
)

# The operations that write files: those of the table's `writes`, and a contract's application.
WRITING = frozenset({name for name, operation in OPERATIONS.items() if operation.writes} | {"contract_apply"})
NO_WRITES = ("this MCP server was installed without its write tools (gateway hook install HOST --mcp-writes adds them); "
             "edit with the host's own edit tool, which the gateway judges")

TYPED_INSTRUCTIONS = (
    " Typed edits are on: declare the kind of change first (the declare tool) and get a short-lived "
    "single-use grant bound to each file's current hash; given path, old_string and new_string it "
    "also applies the edit through the gate. Pass the grant's token to a symbol tool for a structural "
    "change. A refusal names what the declaration lacks."
)

READ_ONLY_TYPED_INSTRUCTIONS = (
    " Typed edits are on: declare the kind of change first (the declare tool, without path), then make the edit "
    "with the host's edit tool. A refusal names what the declaration lacks."
)


def _tool(operation: Operation, run: Run) -> Callable[..., Answer]:
    """The MCP tool of a table operation: its signature (hence its schema) from the table's parameters."""

    def tool(ctx: Context | None = None, **given: Any) -> Answer:
        try:
            return _text(run(operation.name, given, ctx))
        except GatewayError as error:
            return _refused(error)

    # `ctx` (the SDK's request context, found by its annotation) is left out of the schema.
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context | None, default=None)
    tool.__signature__ = inspect.Signature([*map(_parameter, operation.params), context])  # type: ignore[attr-defined]
    tool.__name__ = operation.tool or operation.name
    return tool


# `file_path`, which edit_file took before every tool took `path`, is still accepted for it.
_PATH = Field(validation_alias=AliasChoices("path", "file_path"))


def _parameter(param: Param) -> inspect.Parameter:
    choices = param.enum() if param.enum else param.choices
    kind: Any = Literal[choices] if choices else list[str] if param.kind is list else param.kind
    if not param.required:
        kind = kind if param.default is not None else kind | None
    if param.name == "path":
        kind = Annotated[kind, _PATH]
    default = inspect.Parameter.empty if param.required else param.default
    return inspect.Parameter(param.name, inspect.Parameter.KEYWORD_ONLY, annotation=kind, default=default)


class _Server(MCPServer):
    """The SDK's server, with a tool's argument mistakes (an unknown name, a missing one, a value of
    the wrong type) answered in one line that names each argument and what it takes."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        tool = self._tool_manager.get_tool(name)
        if tool is None:
            return await super().call_tool(name, arguments, context)
        properties = set(tool.parameters.get("properties", {}))
        unknown = sorted(set(arguments) - properties - ({"file_path"} if "path" in properties else set()))
        if unknown:  # the SDK would drop them unsaid
            try:
                tool.fn_metadata.validate_arguments(arguments)
                invalid = None
            except ValidationError as error:
                invalid = error
            return _refused(UsageError(_argument_problems(name, properties, unknown, invalid)))
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            if not isinstance(error.__cause__, ValidationError):
                raise
            return _refused(UsageError(_argument_problems(name, properties, [], error.__cause__)))


def _argument_problems(tool: str, properties: set[str], unknown: list[str], error: ValidationError | None) -> str:
    """`usage: TOOL: ...`, one line: each argument that is unknown, missing or of the wrong type
    (`Input should be a valid integer` → `depth must be a valid integer`, with the value given)."""
    problems = [f"unknown argument {name}" for name in unknown]
    for problem in error.errors(include_url=False) if error is not None else []:
        name = ".".join(map(str, problem["loc"])) or "the arguments"
        if problem["type"] == "missing":
            problems.append(f"missing argument {name}")
        else:
            expected = problem["msg"].removeprefix("Input should be ")
            expected = expected.partition(", ")[0] if expected.startswith("a valid ") else expected
            given = repr(problem["input"])
            problems.append(f"{name} must be {expected}, not {given if len(given) <= 40 else given[:37] + '...'}")
    return f"{tool}: {'; '.join(problems)} ({tool} takes {', '.join(sorted(properties))})"


def _text(result: dict[str, Any]) -> str:
    return json.dumps(result, ensure_ascii=False, separators=(",", ":"))


def _refused(error: GatewayError) -> CallToolResult:
    """A tool error whose text is the refusal object (ok, error {kind, message, ...})."""
    return CallToolResult(content=[TextContent(type="text", text=render.mcp_error(error))], is_error=True)


def _written(root: Path, operation: str, params: dict[str, Any]) -> list[Path] | None:
    """The files a write names (as named, and where a link leads), or None when it may write
    others (a rename, a contract)."""
    path = params.get("path", params.get("file_path"))
    if operation in ("rename_symbol", "contract_apply") or not isinstance(path, str):
        return None
    named = root / path  # an absolute path stays itself
    return [named, Path(os.path.realpath(named))]


def _refuse_denied(root: Path, host: str | None, writes: bool, operation: str, params: dict[str, Any]) -> None:
    if operation == "declare" and params.get("path", params.get("file_path")) is not None:
        operation = "edit"  # a declaration that also makes its edit
    if operation not in WRITING:
        return
    if not writes:
        raise Denied(NO_WRITES)
    reason = host_refusal(host, root, _written(root, operation, params)) if host else None
    if reason is not None:
        raise Denied(reason)


def build_server(gateway: Gateway, host: str | None = None, writes: bool = True) -> MCPServer:
    """The server's tools; `host`: the agent host whose user's denies the writes obey; `writes`:
    whether the write tools are listed (and run)."""
    listed = mcp_config(gateway.workspace.root)
    typed = (TYPED_INSTRUCTIONS if writes else READ_ONLY_TYPED_INSTRUCTIONS) if listed.typed_edits else ""
    # A host shows a server's first line of instructions at a session's start (Codex): the notice goes first.
    instructions = "\n".join([*session_notices(gateway.workspace.root), (INSTRUCTIONS if writes else READ_ONLY_INSTRUCTIONS) + typed])
    server = _Server("gateway", instructions=instructions, version="0.1.0")

    def run(operation: str, params: dict[str, Any], ctx: Context | None) -> dict[str, Any]:
        _refuse_denied(gateway.workspace.root, host, writes, operation, params)
        sink = _progress_sink(ctx)

        def local() -> dict[str, Any]:
            with progress.reporting(sink, operation):
                return call(gateway, operation, params)

        try:
            return render.answer(invoke(gateway.workspace.root, operation, params, local, progress.from_remote(sink)), render.MCP)
        except GatewayError as error:
            if error.kind == "blocked":  # Blocked here, RemoteError from the daemon: the same object
                return render.refusal(error, render.MCP)
            raise

    groups = {"core", *(["contracts"] if listed.contracts else []), *(["typed"] if listed.typed_edits else [])}
    for operation in OPERATIONS.values():
        if operation.tool and operation.group in groups and (writes or operation.name not in WRITING):
            server.add_tool(_tool(operation, run), name=operation.tool, description=operation.description, structured_output=False)
    for tool in server._tool_manager.list_tools():
        tool.parameters = _compact_schema(tool.parameters)
    return server


def _progress_sink(ctx: Context | None) -> progress.Sink:
    """Progress notifications for the tool call, sent from whatever thread says them; the SDK
    sends nothing when the client gave no progressToken. The number is a count, so it grows."""
    try:
        loop = anyio.from_thread.run_sync(asyncio.get_running_loop) if ctx is not None else None
    except RuntimeError:  # not on one of the SDK's worker threads
        loop = None
    if ctx is None or loop is None:
        return lambda update: None
    said = itertools.count(1)

    def send(update: progress.Update) -> None:
        if update.kind != "end":  # the result ends it
            asyncio.run_coroutine_threadsafe(ctx.report_progress(next(said), None, update.text), loop).result(timeout=5)

    return send


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


def serve_mcp(workspace: str, host: str | None = None, writes: bool = True) -> None:
    with Gateway(workspace) as gateway:
        build_server(gateway, host, writes).run("stdio")
