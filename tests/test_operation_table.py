"""The operation table is the one place an operation is written: the CLI, MCP and JSON-RPC are
generated from it, and the commands the gate suggests parse back into the same operation."""

from __future__ import annotations

import shlex

import pytest

from gateway.surfaces.cli import build_parser
from gateway.surfaces.cli_text import RENDER
from gateway.surfaces.operations import OPERATIONS, command_line
from gateway.surfaces.rpc import METHODS


def test_every_operation_is_on_each_surface_it_names() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, operation in OPERATIONS.items():
        assert METHODS[operation.method] == name
        if operation.command:
            assert operation.command in commands and name in RENDER
    assert set(RENDER) == {name for name, operation in OPERATIONS.items() if operation.command}


@pytest.mark.parametrize("operation, values", [
    ("replace_symbol", {"name_path": "Account/refresh", "path": "src/a b.py", "body": "NEW_DEFINITION_FILE"}),
    ("insert_code", {"name_path": "/", "path": "m.py", "position": "after", "code": "NEW_CODE_FILE"}),
    ("remove_symbol", {"name_path": "f[1]", "path": "m.py"}),
    ("rename_symbol", {"name_path": "Cart/total", "path": "cart.go", "new_name": "sum"}),
    ("find_symbol", {"name_path": "area", "path": "m.py"}),
])
def test_a_suggested_command_parses_back_into_its_operation(operation: str, values: dict[str, str]) -> None:
    line = command_line(operation, values)
    words = shlex.split(line)
    assert words[0] == "gateway"
    args = build_parser().parse_args(words[1:])
    assert args.operations[None].name == operation
    for name, value in values.items():
        param = next(p for p in OPERATIONS[operation].params if p.name == name)
        given = getattr(args, f"{param.flag.replace('-', '_')}_file") if param.cli == "text" else getattr(args, name)
        assert given == value, (name, line)


def test_the_gate_suggests_commands_in_the_tables_form() -> None:
    assert command_line("insert_code", {"name_path": "a", "path": "m.py", "position": "after", "code": "NEW_CODE_FILE"}) == (
        "gateway insert-code a m.py --position after --code-file NEW_CODE_FILE")
    assert command_line("remove_symbol", {"name_path": "f[0]", "path": "x y.py"}) == "gateway remove-symbol 'f[0]' 'x y.py'"
