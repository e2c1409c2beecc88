"""The operations every process surface exposes, with their parameters: one table for all.

JSON-RPC and MCP translate names and errors; the parameters and results are the same
snake_case objects the CLI prints with --json.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gateway.api import Gateway
from gateway.errors import UsageError
from gateway.typed.declaration import Declaration


@dataclass(frozen=True)
class Param:
    name: str
    kind: type
    required: bool = True
    default: Any = None


@dataclass(frozen=True)
class Operation:
    params: tuple[Param, ...]
    run: Callable[[Gateway, dict[str, Any]], dict[str, Any]]


_TOKEN = Param("token", str, False, None)


def declaration_from(params: dict[str, Any]) -> Declaration:
    """A Declaration from snake_case parameters (the JSON-RPC/MCP object, the CLI's flags)."""
    for name in ("files", "test_files", "additional_files"):
        if not all(isinstance(item, str) for item in params.get(name) or []):
            raise UsageError(f"declare: {name} must be a list of paths")
    return Declaration(
        kind=params["kind"],
        files=tuple(params["files"]),
        provenance=params["provenance"],
        rationale=params["rationale"],
        target=params.get("target"),
        test_files=tuple(params.get("test_files") or ()),
        execution_state=params.get("execution_state") or "normal",
        additional_files=tuple(params.get("additional_files") or ()),
    )


def _path(params: dict[str, Any]) -> dict[str, Any]:
    """Agents send `file_path`; the gateway's objects say `path`. Either is accepted."""
    if "path" not in params and "file_path" in params:
        params = {**params, "path": params["file_path"]}
    return {key: value for key, value in params.items() if key != "file_path"}


OPERATIONS: dict[str, Operation] = {
    "classify": Operation(
        (Param("path", str), Param("old_string", str), Param("new_string", str), Param("replace_all", bool, False, False)),
        lambda g, p: g.classify(p["path"], p["old_string"], p["new_string"], p["replace_all"]).to_json(),
    ),
    "edit": Operation(
        (
            Param("path", str),
            Param("old_string", str),
            Param("new_string", str),
            Param("replace_all", bool, False, False),
            Param("route", bool, False, True),
            _TOKEN,
        ),
        lambda g, p: g.edit(p["path"], p["old_string"], p["new_string"], p["replace_all"], p["route"], p["token"]).to_json(),
    ),
    "symbols": Operation(
        (Param("path", str), Param("depth", int, False, None)), lambda g, p: g.symbols(p["path"], p["depth"])
    ),
    "find_symbol": Operation(
        (Param("name_path", str), Param("path", str, False, None), Param("body", bool, False, False)),
        lambda g, p: g.find_symbol(p["name_path"], p["path"], p["body"]),
    ),
    "replace_symbol": Operation(
        (Param("name_path", str), Param("path", str), Param("body", str), _TOKEN),
        lambda g, p: g.replace_symbol(p["name_path"], p["path"], p["body"], p["token"]),
    ),
    "insert_code": Operation(
        (Param("name_path", str), Param("path", str), Param("code", str), Param("position", str), _TOKEN),
        lambda g, p: g.insert_code(p["name_path"], p["path"], p["code"], p["position"], p["token"]),
    ),
    "remove_symbol": Operation(
        (Param("name_path", str), Param("path", str), _TOKEN, Param("force", bool, False, False)),
        lambda g, p: g.remove_symbol(p["name_path"], p["path"], p["token"], p["force"]),
    ),
    "rename_symbol": Operation(
        (Param("name_path", str), Param("path", str), Param("new_name", str), _TOKEN),
        lambda g, p: g.rename_symbol(p["name_path"], p["path"], p["new_name"], p["token"]),
    ),
    "servers": Operation((), lambda g, p: g.servers()),
    "kinds": Operation((), lambda g, p: g.kinds()),
    "declare": Operation(
        (
            Param("kind", str),
            Param("files", list),
            Param("provenance", str),
            Param("rationale", str),
            Param("target", str, False, None),
            Param("test_files", list, False, []),
            Param("execution_state", str, False, "normal"),
            Param("additional_files", list, False, []),
        ),
        lambda g, p: g.declare(declaration_from(p)),
    ),
    "audit_log": Operation(
        (Param("since", str, False, None), Param("kind", str, False, None)), lambda g, p: g.audit_log(p["since"], p["kind"])
    ),
    "audit_summary": Operation((), lambda g, p: g.audit_summary()),
    "audit_verify": Operation((), lambda g, p: g.audit_verify()),
    "contract_check": Operation((Param("path", str),), lambda g, p: g.contract_check(p["path"])),
    "contract_apply": Operation(
        (Param("path", str), Param("keep_on_failure", bool, False, False)),
        lambda g, p: g.contract_apply(p["path"], p["keep_on_failure"]),
    ),
    "context": Operation((), lambda g, p: g.context()),
}


def call(gateway: Gateway, operation: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """Validate `params` against the operation's table entry and run it."""
    spec = OPERATIONS[operation]
    given = _path(dict(params or {}))
    unknown = set(given) - {p.name for p in spec.params}
    if unknown:
        raise UsageError(f"{operation}: unknown parameter(s): {', '.join(sorted(unknown))}")
    checked: dict[str, Any] = {}
    for param in spec.params:
        if param.name not in given or given[param.name] is None:
            if param.required:
                raise UsageError(f"{operation}: missing parameter {param.name}")
            checked[param.name] = param.default
            continue
        value = given[param.name]
        if not isinstance(value, param.kind) or (param.kind is int and isinstance(value, bool)):
            raise UsageError(f"{operation}: {param.name} must be {param.kind.__name__}")
        checked[param.name] = value
    return spec.run(gateway, checked)
