"""The `gateway` command: argument parsing and rendering only; the work is in `Gateway`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from gateway.cli_daemon import add_daemon_commands
from gateway.cli_plans import add_plan_commands
from gateway.errors import EXIT_BLOCKED, EXIT_ERROR, EXIT_INCOMPLETE, EXIT_OK, GatewayError, UsageError, exit_code_for

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


def _text_arg(args: argparse.Namespace, name: str) -> str:
    inline, file = getattr(args, name), getattr(args, f"{name}_file")
    if inline is None and file is None:
        raise UsageError(f"one of --{name} or --{name}-file is required")
    return inline if inline is not None else _read_text_file(file)


def _add_text_arg(parser: argparse.ArgumentParser, name: str, what: str) -> None:
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument(f"--{name}", metavar="TEXT", help=what)
    group.add_argument(f"--{name}-file", metavar="F", help=f"read {what} from file F")


def _add_edit_text_args(parser: argparse.ArgumentParser, required: bool) -> None:
    for name in ("old", "new"):
        group = parser.add_mutually_exclusive_group(required=required)
        group.add_argument(f"--{name}", metavar="TEXT", help=f"the {name} text")
        group.add_argument(f"--{name}-file", metavar="F", help=f"read the {name} text from file F")


def _add_token_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--token", metavar="TOKEN", help="the grant from `gateway declare` (default: a live grant for the file)")


def _gateway(args: argparse.Namespace) -> Any:
    """The run's one Gateway, closed (servers shut down) when the command ends."""
    if getattr(args, "gateway", None) is None:
        from gateway.api import Gateway

        args.gateway = Gateway(args.workspace)
    return args.gateway


def _through_daemon(args: argparse.Namespace, operation: str, params: dict[str, Any]) -> dict[str, Any]:
    """The operation answered by the workspace's daemon when one runs (started for next time
    when none does), else computed here; the same answer either way."""
    from gateway.daemon_client import invoke

    def local() -> dict[str, Any]:
        from gateway.surface import call

        return call(_gateway(args), operation, params)

    return invoke(args.workspace, operation, params, local)


def _cmd_classify(args: argparse.Namespace) -> Outcome:
    params = {"path": args.path, "old_string": _text_arg(args, "old"), "new_string": _text_arg(args, "new"), "replace_all": args.replace_all}
    result = _through_daemon(args, "classify", params)
    return result, result["message"], EXIT_BLOCKED if result["decision"] == "block" else EXIT_OK


def _operation(result: dict[str, Any]) -> Outcome:
    return result, result["message"] + ("\n" + result["diff"].rstrip() if result.get("diff") else ""), EXIT_OK


def _cmd_symbols(args: argparse.Namespace) -> Outcome:
    result = _through_daemon(args, "symbols", {"path": args.path, "depth": args.depth})
    lines = [f"{result['path']} ({result['language']}, {result['backend']})"]
    for symbol in result["symbols"]:
        depth = symbol["name_path"].count("/")
        lines.append(f"{'  ' * (depth + 1)}{symbol['kind']} {symbol['name_path']}  {symbol['start_line']}-{symbol['end_line']}")
    return result, "\n".join(lines), EXIT_OK


def _cmd_find_symbol(args: argparse.Namespace) -> Outcome:
    result = _through_daemon(args, "find_symbol", {"name_path": args.name_path, "path": args.path, "body": args.body})
    lines = []
    for match in result["matches"]:
        lines.append(f"{match['path']}:{match['start_line']}-{match['end_line']} {match['kind']} {match['name_path']}")
        if args.body:
            lines.append(match["body"])
    nearest = f"; nearest: {', '.join(result['nearest'])}" if result.get("nearest") else ""
    return result, "\n".join(lines) or f"no symbol matches {args.name_path}{nearest}", EXIT_OK if result["matches"] else EXIT_ERROR


def _cmd_replace_symbol(args: argparse.Namespace) -> Outcome:
    params = {"name_path": args.name_path, "path": args.path, "body": _text_arg(args, "body"), "token": args.token}
    return _operation(_through_daemon(args, "replace_symbol", params))


def _cmd_insert_code(args: argparse.Namespace) -> Outcome:
    params = {"name_path": args.name_path, "path": args.path, "code": _text_arg(args, "code"), "position": args.position, "token": args.token}
    return _operation(_through_daemon(args, "insert_code", params))


def _cmd_remove_symbol(args: argparse.Namespace) -> Outcome:
    params = {"name_path": args.name_path, "path": args.path, "token": args.token, "force": args.force}
    return _operation(_through_daemon(args, "remove_symbol", params))


def _cmd_rename_symbol(args: argparse.Namespace) -> Outcome:
    params = {"name_path": args.name_path, "path": args.path, "new_name": args.new_name, "token": args.token}
    result, text, code = _operation(_through_daemon(args, "rename_symbol", params))
    return result, text, EXIT_INCOMPLETE if result.get("complete") is False else code


def _server_state(row: dict[str, Any]) -> str:
    """How the server did in this workspace, when it was started here."""
    if row["status"] == "working":
        return f"; working (asked about {row['probed']})"
    if row["status"] == "broken":
        return f"; BROKEN: {row['reason']}"
    if row["status"] == "loading":
        return f"; still loading the workspace ({row['reason']}): tree-sitter answers until it has"
    return "; not started (no file of the language here)" if row["status"] == "not started" else ""


def _cmd_servers(args: argparse.Namespace) -> Outcome:
    result = _gateway(args).servers()
    lines = []
    for row in result["languages"]:
        if row["found"]:
            found = f"found {row['path']} ({row['version'] or 'version unknown'})"
        else:
            found = f"not found ({row['reason']}); {row['install']}" if row["reason"] else f"not found; {row['install']}"
        renames = f"; renames through tree-sitter: {row['rename_fallback']}" if row["rename_fallback"] else ""
        lines.append(f"{row['language']:<11} {row['server']:<24} {found}; backend: {row['backend']}{_server_state(row)}{renames}")
    return result, "\n".join(lines), EXIT_OK


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


def _cmd_edit(args: argparse.Namespace) -> Outcome:
    if args.stdin:
        if args.path or args.old is not None or args.old_file or args.new is not None or args.new_file:
            raise UsageError("--stdin takes no PATH, --old or --new")
        path, old, new, replace_all = _stdin_edit()
    else:
        if not args.path:
            raise UsageError("PATH is required (or --stdin)")
        path, old, new, replace_all = args.path, _text_arg(args, "old"), _text_arg(args, "new"), args.replace_all
    params = {"path": path, "old_string": old, "new_string": new, "replace_all": replace_all, "route": args.route, "token": args.token}
    try:
        result = _through_daemon(args, "edit", params)
    except GatewayError as error:  # Blocked here, RemoteError from the daemon: the same object
        if error.kind != "blocked":
            raise
        classification = error.to_json()["classification"]
        hint = "" if args.route or not _routes(args) else (
            "\nOr rerun with --route: the edit is then performed as those symbol operations, verified, when it maps onto them.")
        return {**classification, "applied": False}, classification["message"] + hint, EXIT_BLOCKED
    lines = ", ".join(map(str, result["lines"]))
    text = f"Applied: {result['replacements']} replacement(s) in {result['path']} (line {lines})."
    if result.get("decision") == "routed":
        text = f"{result['message']}\n{result['diff'].rstrip()}"
    return result, text, EXIT_OK


def _routes(args: argparse.Namespace) -> bool:
    """Whether the workspace routes structural writes ([gate] on_structural)."""
    from pathlib import Path

    from gateway.config import find_root, gate_config

    return gate_config(find_root(Path(args.workspace).resolve())).on_structural == "route"


def _cmd_serve(args: argparse.Namespace) -> Outcome:
    from gateway.rpc import serve

    tcp = None
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or int(port) > 65535:
            raise UsageError(f"--tcp wants HOST:PORT with a port from 0 to 65535, not {args.tcp!r}")
        tcp = (host, int(port))
    serve(args.workspace, tcp)
    return {}, "", EXIT_OK


def _cmd_mcp(args: argparse.Namespace) -> Outcome:
    from gateway.mcp_server import serve_mcp

    serve_mcp(args.workspace)
    return {}, "", EXIT_OK


HOOK_USAGE = ("gateway hook HOST [pre|post|start] | gateway hook (install|uninstall) HOST [--user] [--absolute] "
              "[--allow-mcp] [--workspace DIR]; HOST is claude-code, copilot, gemini, codex or opencode")
HOOK_HELP = """commands:
  gateway hook HOST [EVENT]             the hook itself, as the host runs it: reads the host's event on stdin
  gateway hook install HOST             add the hook and the MCP server to HOST's project configuration
  gateway hook uninstall HOST           remove exactly those entries (files the install changed come back byte for byte)

HOST: claude-code, copilot, gemini, codex, opencode.
install writes `gateway` (it must be on PATH, as the host will run it), or a path relative to the
project when the installation lives inside it; --absolute writes this installation's path.
--user writes the user-level configuration instead; --allow-mcp also lets the host call the
gateway's MCP tools without asking. The installed command refuses every edit (the host's
blocking convention) when the gateway cannot be run."""


def _cmd_hook(args: argparse.Namespace) -> Outcome:
    from gateway.hooks.client import HOSTS

    words = tuple(args.words)
    if words and words[0] in HOSTS:
        from gateway.hooks.client import main as hook

        return {}, "", hook(list(words))
    if len(words) == 2 and words[0] in ("install", "uninstall") and words[1] in HOSTS:
        from pathlib import Path

        from gateway.hooks import install

        workspace = Path(args.workspace).resolve()
        if words[0] == "install":
            result = install.install(words[1], workspace, user=args.user, absolute=args.absolute, allow_mcp=args.allow_mcp)
        else:
            result = install.uninstall(words[1], workspace, user=args.user)
        return result, result["message"], EXIT_OK
    raise UsageError(f"usage: {HOOK_USAGE}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="gateway", description="Structural edit gateway for AI coding agents.")
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON object")
    common.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")

    classify = commands.add_parser("classify", parents=[common], help="classify a proposed edit")
    classify.add_argument("path", metavar="PATH")
    _add_edit_text_args(classify, required=False)
    classify.add_argument("--replace-all", action="store_true", help="judge every occurrence")
    classify.set_defaults(handler=_cmd_classify)

    edit = commands.add_parser("edit", parents=[common], help="apply an exact-match edit through the gate")
    edit.add_argument("path", metavar="PATH", nargs="?")
    _add_edit_text_args(edit, required=False)
    edit.add_argument("--replace-all", action="store_true", help="replace every occurrence")
    edit.add_argument("--stdin", action="store_true", help='read {"file_path", "old_string", "new_string", "replace_all"}')
    edit.add_argument("--route", action="store_true", help="perform a structural edit as verified symbol operations instead of refusing it")
    _add_token_arg(edit)
    edit.set_defaults(handler=_cmd_edit)

    symbols = commands.add_parser("symbols", parents=[common], help="a file's symbol tree")
    symbols.add_argument("path", metavar="PATH")
    symbols.add_argument("--depth", type=int, metavar="N", help="show N levels")
    symbols.set_defaults(handler=_cmd_symbols)

    find = commands.add_parser("find-symbol", parents=[common], help="find symbols by name path")
    find.add_argument("name_path", metavar="NAME_PATH")
    find.add_argument("path", metavar="PATH", nargs="?")
    find.add_argument("--body", action="store_true", help="print each symbol's text")
    find.set_defaults(handler=_cmd_find_symbol)

    replace = commands.add_parser("replace-symbol", parents=[common], help="replace a whole definition")
    replace.add_argument("name_path", metavar="NAME_PATH")
    replace.add_argument("path", metavar="PATH")
    _add_text_arg(replace, "body", "the new definition")
    _add_token_arg(replace)
    replace.set_defaults(handler=_cmd_replace_symbol)

    insert = commands.add_parser("insert-code", parents=[common], help="insert code as a sibling of a symbol")
    insert.add_argument("name_path", metavar="NAME_PATH", help="the sibling; '/' is the file itself")
    insert.add_argument("path", metavar="PATH")
    _add_text_arg(insert, "code", "the code to insert")
    insert.add_argument("--position", choices=("before", "after"), required=True)
    _add_token_arg(insert)
    insert.set_defaults(handler=_cmd_insert_code)

    remove = commands.add_parser("remove-symbol", parents=[common], help="remove a definition")
    remove.add_argument("name_path", metavar="NAME_PATH")
    remove.add_argument("path", metavar="PATH")
    remove.add_argument("--force", action="store_true", help="remove it even while other code still refers to it")
    _add_token_arg(remove)
    remove.set_defaults(handler=_cmd_remove_symbol)

    rename = commands.add_parser(
        "rename-symbol", parents=[common], help="rename a symbol across the workspace",
        epilog="exit 4: renamed in this file only; with no language server other files were not searched, and some mention the name",
    )
    rename.add_argument("name_path", metavar="NAME_PATH")
    rename.add_argument("path", metavar="PATH")
    rename.add_argument("new_name", metavar="NEW_NAME")
    _add_token_arg(rename)
    rename.set_defaults(handler=_cmd_rename_symbol)

    serve = commands.add_parser("serve", help="run the JSON-RPC server (pygls) for middleware")
    serve.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="speak JSON-RPC on stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address")
    serve.set_defaults(handler=_cmd_serve, json=False)

    hook = commands.add_parser(
        "hook", parents=[common], help="agent-host hooks: run, install or uninstall a host's hook",
        usage=HOOK_USAGE + " [--json]",
        description=HOOK_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    hook.add_argument("words", nargs="+", metavar="WORD", help=argparse.SUPPRESS)
    hook.add_argument("--absolute", action="store_true", help="install: write this installation's absolute path, not `gateway`")
    hook.add_argument("--user", action="store_true", help="install/uninstall: the host's user-level configuration, not the project's")
    hook.add_argument("--allow-mcp", action="store_true", help="install: also add the host's permission entries for the gateway's MCP tools")
    hook.set_defaults(handler=_cmd_hook)

    mcp = commands.add_parser("mcp", help="run the MCP server over stdio")
    mcp.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")
    mcp.set_defaults(handler=_cmd_mcp, json=False)

    add_plan_commands(commands, common, _gateway)
    add_daemon_commands(commands, common)

    servers = commands.add_parser("servers", parents=[common], help="language servers and the backend each language uses")
    servers.set_defaults(handler=_cmd_servers)
    return parser


def _emit(args: argparse.Namespace | None, payload: dict[str, Any], text: str) -> None:
    if args is not None and args.json:
        print(json.dumps(payload, ensure_ascii=False))
    elif text:
        print(text)


def run(argv: Sequence[str] | None = None) -> int:
    args: argparse.Namespace | None = None
    try:
        args = build_parser().parse_args(argv)
        handler: Callable[[argparse.Namespace], Outcome] = args.handler
        payload, text, code = handler(args)
    except GatewayError as error:
        _close(args)
        print(f"gateway: {error}", file=sys.stderr)
        payload: dict[str, Any] = {"ok": False, "error": error.to_json()}
        if args is not None and args.command == "edit":
            payload["applied"] = False
        _emit(args, payload, "")
        return exit_code_for(error)
    _close(args)
    _emit(args, payload, text)
    return code


def _close(args: argparse.Namespace | None) -> None:
    if args is not None and getattr(args, "gateway", None) is not None:
        args.gateway.close()


def main() -> None:
    try:
        code = run()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`gateway ... | head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_ERROR
    sys.exit(code)


if __name__ == "__main__":
    main()
