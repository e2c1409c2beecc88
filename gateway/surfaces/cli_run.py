"""How the `gateway` command runs an operation of the table (gateway.surfaces.operations) once its
words are read (by gateway.surfaces.cli_words, or by argparse in gateway.surfaces.cli_parser;
either gives the same namespace): its parameters, its answer (from the workspace's daemon for
`warm` operations, else computed here) and its text. Nothing heavy is imported before an answer
has to be computed in this process: a warm command costs little more than starting Python."""

from __future__ import annotations

import os
import sys

from gateway.errors import EXIT_BLOCKED, GatewayError, UsageError

# Imported where used: a cold symbol command starts its server before it loads them (gateway.lsp.early).

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a cold symbol command starts its server before typing is loaded
if TYPE_CHECKING:
    from argparse import Namespace as Parsed
    from types import SimpleNamespace

    Namespace = Parsed | SimpleNamespace  # argparse's, or gateway.surfaces.cli_words's
    from collections.abc import Callable
    from typing import Any

    from gateway.surfaces.table import Operation, Param

    Outcome = tuple[dict[str, Any], str, int]


def _read_text_file(name: str) -> str:
    try:
        with open(name, encoding="utf-8", newline="") as handle:
            return handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror}") from None


def _gateway(args: Namespace, early: dict[str, Any] | None = None) -> Any:
    """The run's one Gateway, closed (servers shut down) when the command ends; `early`: its
    registry and the sessions already starting the file's server (`gateway.lsp.early`)."""
    if getattr(args, "gateway", None) is None:
        from gateway.api import Gateway

        args.gateway = Gateway(args.workspace, **(early or {}))
    return args.gateway


def _local(args: Namespace, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The operation computed in this process; what it waits on for more than 2 seconds is said
    on stderr. A symbol operation's server is started first, before the engine is loaded."""
    from gateway.surfaces.operations import OPERATIONS, call

    cold = OPERATIONS[operation].symbolic and isinstance(params.get("path"), str) and getattr(args, "gateway", None) is None
    if cold:
        from gateway.lsp.early import start_recorded

        recorded = start_recorded(args.workspace, params["path"])
    from gateway import progress

    with progress.reporting(progress.StreamSink(sys.stderr), operation):
        early = None
        if cold:
            from gateway.langs import default_registry
            from gateway.lsp.early import start_early

            registry = default_registry()
            sessions = start_early(args.workspace, params["path"], registry, recorded)
            early = {"registry": registry, "sessions": sessions} if sessions is not None else None
        return call(_gateway(args, early), operation, params)


def _through_daemon(args: Namespace, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The operation answered by the workspace's daemon when one runs (started for next time
    when none does), else computed here; the same answer either way, and the same lines on
    stderr while it waits (the daemon's, forwarded)."""
    from gateway.surfaces.daemon_client import invoke

    forward: list[Callable[[Any], None]] = []

    def shown(params: Any) -> None:  # the progress module loaded when the daemon first reports
        if not forward:
            from gateway import progress

            forward.append(progress.from_remote(progress.StreamSink(sys.stderr)))
        forward[0](params)

    return invoke(args.workspace, operation, params, lambda: _local(args, operation, params), shown)


def _stdin_edit() -> tuple[str, str, str, bool]:
    import json

    try:
        payload = json.load(sys.stdin)
    except json.JSONDecodeError as error:
        raise UsageError(f"--stdin: not a JSON object ({error.msg} at line {error.lineno})") from None
    if not isinstance(payload, dict):
        raise UsageError("--stdin: expected one JSON object")
    missing = [key for key in ("file_path", "old_string", "new_string") if not isinstance(payload.get(key), str)]
    if missing:
        raise UsageError(f"--stdin: missing or non-string field(s): {', '.join(missing)}")
    return payload["file_path"], payload["old_string"], payload["new_string"], bool(payload.get("replace_all"))


def _param_value(args: Namespace, param: Param) -> Any:
    if param.cli == "text":
        inline, file = getattr(args, param.flag.replace("-", "_")), getattr(args, f"{param.flag.replace('-', '_')}_file")
        if inline is None and file is None:
            return None
        return inline if inline is not None else _read_text_file(file)
    value = getattr(args, param.name, None)
    if param.cli == "file" and value is not None:
        return os.path.abspath(value)
    return value


def _given(args: Namespace, param: Param) -> bool:
    value = _param_value(args, param)
    return value not in (None, False, [])


def _params_of(args: Namespace, operation: Operation) -> dict[str, Any]:
    """The operation's parameters from the command line; a missing required one, or one that
    belongs to another operation of the same command, is a usage error."""
    params = {param.name: _param_value(args, param) for param in operation.params}
    own = {param.name for param in operation.params}
    command = " ".join(filter(None, (operation.command, operation.word)))
    for other in args.operations.values():
        for param in other.params:
            if param.name not in own and _given(args, param):
                raise UsageError(f"{command} takes no {_shown(param)}")
    for param in operation.params:
        if param.required and params[param.name] is None:
            what = f"one of --{param.flag} or --{param.flag}-file" if param.cli == "text" else _shown(param)
            raise UsageError(f"{what} is required" if param.cli == "text" else f"usage: gateway {command} needs {what}")
    return params


def _shown(param: Param) -> str:
    return param.metavar or param.name.upper() if param.cli in ("positional", "file") else f"--{param.flag}"


def _edit_params(args: Namespace, operation: Operation) -> dict[str, Any]:
    """`gateway edit`: PATH and the texts, or one JSON object on stdin (--stdin)."""
    if not args.stdin:
        if not args.path:
            raise UsageError("PATH is required (or --stdin)")
        return _params_of(args, operation)
    if args.path or any(_given(args, p) for p in operation.params if p.cli == "text"):
        raise UsageError("--stdin takes no PATH, --old or --new")
    path, old, new, replace_all = _stdin_edit()
    return {"path": path, "old_string": old, "new_string": new, "replace_all": replace_all, "route": args.route, "token": args.token,
            "dry_run": args.dry_run}


def run_operation(args: Namespace) -> Outcome:
    """A table operation: its parameters from the command line, its answer (from the daemon for
    `warm` operations), spelled (render) and shown as its entry's `show` says."""
    operation = args.operations[getattr(args, "word", None)]
    params = _edit_params(args, operation) if operation.name == "edit" else _params_of(args, operation)
    try:
        if operation.warm:
            result = _through_daemon(args, operation.name, params)
        else:
            result = _local(args, operation.name, params)
    except GatewayError as error:  # Blocked here, RemoteError from the daemon: the same object
        if error.kind != "blocked" or operation.name != "edit":
            raise
        from gateway.surfaces import render

        refused = render.refusal(error, render.CLI)
        if not args.route and _may_route(refused) and _routes(args):
            refused["error"]["hint"] = "Or rerun with --route: the edit is then performed as those symbol operations, verified, when it maps onto them."
        hint = f"\n{refused['error']['hint']}" if refused["error"].get("hint") else ""
        return refused, refused["message"] + hint, EXIT_BLOCKED
    from gateway.surfaces import render

    result = render.answer(result, render.CLI)
    text, code = operation.show(result, params)
    return result, text, code


def _may_route(refused: dict[str, Any]) -> bool:
    """Whether --route may perform the refused edit: it changes definitions, and none is renamed
    (a rename by text is never routed) or taken away without deleting its text."""
    changes = {definition["change"] for definition in refused.get("definitions", [])}
    return refused.get("reason") == "definition" and not changes & {"renamed", "shadowed"}


def _routes(args: Namespace) -> bool:
    """Whether the workspace routes structural writes ([gate] on_structural)."""
    from pathlib import Path

    from gateway.config import find_root, gate_config

    return gate_config(find_root(Path(args.workspace).resolve())).on_structural == "route"
