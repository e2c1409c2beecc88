"""The `gateway` command: its operation commands are generated from the table in gateway.surfaces.operations
(shown as each entry's `show` says); the process commands (serve, mcp, hook, daemon) are gateway.surfaces.cli_process's."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gateway.errors import EXIT_BLOCKED, EXIT_ERROR, GatewayError, UsageError, exit_code_for
from gateway.surfaces.cli_process import PROCESS_COMMANDS, add_process_commands
from gateway.surfaces.operations import OPERATIONS, Operation, Param

# Imported where used: a cold symbol command starts its server before it loads them (gateway.lsp.early).

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a cold symbol command starts its server before typing is loaded
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any, NoReturn

    Outcome = tuple[dict[str, Any], str, int]


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        command = self.prog.removeprefix("gateway").strip()  # printed after the one `gateway: ` prefix
        raise UsageError(f"{command}: {message}" if command else message)


class _Version(argparse.Action):
    """`--version`, looked up only when asked: importlib.metadata would slow every command."""

    def __init__(self, option_strings: Sequence[str], dest: str) -> None:
        super().__init__(option_strings, argparse.SUPPRESS, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *_: Any) -> NoReturn:
        from importlib.metadata import PackageNotFoundError, version

        try:
            text = version("gateway")
        except PackageNotFoundError:
            text = "unknown (not installed)"
        print(f"gateway {text}")
        parser.exit()


def _read_text_file(name: str) -> str:
    try:
        with open(name, encoding="utf-8", newline="") as handle:
            return handle.read()
    except OSError as error:
        raise UsageError(f"cannot read {name}: {error.strerror}") from None


def _gateway(args: argparse.Namespace, early: dict[str, Any] | None = None) -> Any:
    """The run's one Gateway, closed (servers shut down) when the command ends; `early`: its
    registry and the sessions already starting the file's server (`gateway.lsp.early`)."""
    if getattr(args, "gateway", None) is None:
        from gateway.api import Gateway

        args.gateway = Gateway(args.workspace, **(early or {}))
    return args.gateway


def _local(args: argparse.Namespace, operation: str, params: dict[str, Any]) -> dict[str, Any]:
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


def _through_daemon(args: argparse.Namespace, operation: str, params: dict[str, Any]) -> dict[str, Any]:
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


def _add_param(parser: argparse.ArgumentParser, param: Param, grouped: bool) -> None:
    """One table parameter as the command takes it (see `operations.Param`); in a command whose
    second word picks the operation (`grouped`), nothing is required by the parser."""
    required = param.required and not grouped
    if param.cli in ("positional", "file"):
        parser.add_argument(param.name, metavar=param.metavar or param.name.upper(), nargs=None if required else "?", help=param.help or None)
    elif param.cli == "switch":
        parser.add_argument(f"--{param.flag}", dest=param.name, action="store_true", help=param.help)
    elif param.cli == "text":
        group = parser.add_mutually_exclusive_group()
        group.add_argument(f"--{param.flag}", metavar="TEXT", help=param.help)
        group.add_argument(f"--{param.flag}-file", metavar="F", help=f"read {param.help} from file F")
    elif param.cli == "flag":
        parser.add_argument(f"--{param.flag}", dest=param.name, metavar=param.metavar, required=required, help=param.help,
                            choices=param.choices or None, type=param.kind if param.kind in (int, str) else str,
                            action="append" if param.many else "store")


def _param_value(args: argparse.Namespace, param: Param) -> Any:
    if param.cli == "text":
        inline, file = getattr(args, param.flag.replace("-", "_")), getattr(args, f"{param.flag.replace('-', '_')}_file")
        if inline is None and file is None:
            return None
        return inline if inline is not None else _read_text_file(file)
    value = getattr(args, param.name, None)
    if param.cli == "file" and value is not None:
        return os.path.abspath(value)
    return value


def _given(args: argparse.Namespace, param: Param) -> bool:
    value = _param_value(args, param)
    return value not in (None, False, [])


def _params_of(args: argparse.Namespace, operation: Operation) -> dict[str, Any]:
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


def _edit_params(args: argparse.Namespace, operation: Operation) -> dict[str, Any]:
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


def _run_operation(args: argparse.Namespace) -> Outcome:
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


def _add_table_commands(commands: Any, common: argparse.ArgumentParser, only: str | None) -> None:
    """A command for each operation of the table (`only`: that one); operations that share a
    command are told apart by its second word (`audit log|summary|verify`, `contract check|apply|new`)."""
    by_command: dict[str, list[Operation]] = {}
    for operation in OPERATIONS.values():
        if operation.command and only in (None, operation.command):
            by_command.setdefault(operation.command, []).append(operation)
    for command, operations in by_command.items():
        words = [op.word for op in operations]
        grouped = words != [None]
        summary = operations[0].summary if not grouped else f"{command}: " + ", ".join(f"{op.word} ({op.summary})" for op in operations)
        parser = commands.add_parser(command, parents=[common], help=summary, epilog=operations[0].epilog or None)
        if grouped:
            parser.add_argument("word", choices=words, metavar="|".join(str(w) for w in words))
        added: set[str] = set()
        for operation in operations:
            for param in operation.params:
                if param.name not in added:
                    _add_param(parser, param, grouped or (operation.name == "edit" and param.name == "path"))
                    added.add(param.name)
        if command == "edit":
            parser.add_argument("--stdin", action="store_true", help='read {"file_path", "old_string", "new_string", "replace_all"}')
        parser.set_defaults(handler=_run_operation, operations={op.word: op for op in operations})


def _may_route(refused: dict[str, Any]) -> bool:
    """Whether --route may perform the refused edit: it changes definitions, and none is renamed
    (a rename by text is never routed) or taken away without deleting its text."""
    changes = {definition["change"] for definition in refused.get("definitions", [])}
    return refused.get("reason") == "definition" and not changes & {"renamed", "shadowed"}


def _routes(args: argparse.Namespace) -> bool:
    """Whether the workspace routes structural writes ([gate] on_structural)."""
    from pathlib import Path

    from gateway.config import find_root, gate_config

    return gate_config(find_root(Path(args.workspace).resolve())).on_structural == "route"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; `only`: with that command alone (a command's own run builds no
    other: the 24 commands' parsers would cost a cold symbol command ~8 ms before its server starts)."""
    parser = _Parser(prog="gateway", description="Structural edit gateway for AI coding agents.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object")
    common.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")

    _add_table_commands(commands, common, only)
    add_process_commands(commands, common, only)
    return parser


def _emit(args: argparse.Namespace | None, payload: dict[str, Any], text: str) -> None:
    if args is not None and args.json:
        print(json.dumps(payload, ensure_ascii=False))
    elif text:
        print(text)


def run(argv: Sequence[str] | None = None) -> int:
    args: argparse.Namespace | None = None
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        only = words[0] if words and (words[0] in _OPERATION_COMMANDS or words[0] in PROCESS_COMMANDS) else None
        args = build_parser(only).parse_args(words)
        handler: Callable[[argparse.Namespace], Outcome] = args.handler
        payload, text, code = handler(args)
    except GatewayError as error:
        from gateway.surfaces import render

        _close(args)
        refused = render.refusal(error, render.CLI)
        print(f"gateway: {render.message(error)}", file=sys.stderr)
        _say_new_errors(refused)
        _emit(args, refused, "")
        return exit_code_for(error)
    _close(args)
    _emit(args, payload, text)
    return code


def _say_new_errors(refused: dict[str, Any]) -> None:
    """A refusal for the errors a write would add ([verify] on_new_errors = "refuse"): each one
    on its own line of stderr, as a compiler says it, under the refusal's message."""
    errors = refused["error"].get("new_errors") if isinstance(refused.get("error"), dict) else None
    if isinstance(errors, list) and errors:
        from gateway.surfaces.cli_text import new_error

        print("\n".join(f"  {new_error(e)}" for e in errors if isinstance(e, dict)), file=sys.stderr)


def _close(args: argparse.Namespace | None) -> None:
    """The command's servers ended: this process exits next, so those that may be are killed
    rather than waited for."""
    if args is not None and getattr(args, "gateway", None) is not None:
        args.gateway.close(exiting=True)


def main() -> None:
    try:
        code = run()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`gateway ... | head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_ERROR
    if sys.argv[1:2] and sys.argv[1] in _OPERATION_COMMANDS:
        # An operation's command has done all it does (its servers ended in `run`, a daemon for
        # next time detached): it exits without the interpreter's teardown, which after a
        # symbol command costs more than printing the answer.
        os._exit(code)
    sys.exit(code)


_OPERATION_COMMANDS = frozenset(str(spec.command) for spec in OPERATIONS.values())


if __name__ == "__main__":
    main()
