"""The `gateway` command's parser (argparse): its operation commands generated from the table in
gateway.surfaces.operations, its process commands from gateway.surfaces.cli_process. Loaded only
when gateway.surfaces.cli_words cannot read the words itself (help, a usage error, a command that
is not a warm operation's): argparse and `re` cost a warm command more than its whole answer."""

from __future__ import annotations

import argparse

from gateway.errors import UsageError
from gateway.surfaces.cli_process import add_process_commands
from gateway.surfaces.cli_run import run_operation
from gateway.surfaces.operations import OPERATIONS, Operation, Param

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn


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
        parser.set_defaults(handler=run_operation, operations={op.word: op for op in operations})


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
