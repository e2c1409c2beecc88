"""The operation table is the one place an operation is written: the CLI, MCP and JSON-RPC are
generated from it, and the operations the gate suggests are spelled (by the surfaces only) as
commands that parse back into the same operation."""

from __future__ import annotations

import argparse
import shlex

import pytest

from gateway.results import SuggestedOperation
from gateway.surfaces import render
from gateway.surfaces.cli import build_parser
from gateway.surfaces.operations import OPERATIONS, command_line
from gateway.surfaces.rpc import METHODS


def test_every_operation_is_on_each_surface_it_names() -> None:
    commands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name, operation in OPERATIONS.items():
        assert METHODS[operation.method] == name
        if operation.command:
            assert operation.command in commands and callable(operation.show)


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


def test_suggestions_are_values_that_each_surface_spells() -> None:
    remove = SuggestedOperation.of("remove_symbol", name_path="f[0]", path="x y.py")
    said = f"Use remove_symbol: {remove}. Path: a\u27e6gateway b.py"
    # The Python API's message names the operation as its call; the value travels beside it.
    assert said == "Use remove_symbol: remove_symbol(name_path='f[0]', path='x y.py'). Path: a\u27e6gateway b.py"
    assert SuggestedOperation.from_json(remove.to_json()) == remove and SuggestedOperation.from_json({"operation": 1}) is None
    refused = {"message": said, "commands": [str(remove)], "suggested": [remove.to_json()], "body": str(remove)}
    cli = render.answer(refused, render.CLI)
    assert cli["message"] == "Use remove_symbol: gateway remove-symbol 'f[0]' 'x y.py'. Path: a\u27e6gateway b.py"
    assert cli["commands"] == ["gateway remove-symbol 'f[0]' 'x y.py'"] and cli["suggested"] == [
        {"operation": "remove_symbol", "params": {"name_path": "f[0]", "path": "x y.py"}, "command": "gateway remove-symbol 'f[0]' 'x y.py'"}]
    mcp = render.answer(refused, render.MCP)
    assert mcp["message"] == 'Use remove_symbol: remove_symbol {"name_path": "f[0]", "path": "x y.py"}. Path: a\u27e6gateway b.py'
    assert mcp["suggested"][0]["tool"] == "remove_symbol" and mcp["suggested"][0]["arguments"] == {"name_path": "f[0]", "path": "x y.py"}
    assert render.answer(refused, render.RPC)["suggested"][0]["method"] == "gateway/removeSymbol"
    # A file's own text that looks like a suggestion (a body, a diff) is the file's: never spelled.
    assert cli["body"] == str(remove) and render.answer(refused, None) == refused
    assert render.hook_text(said, (remove,)) == cli["message"]


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]


def _shape(parser: argparse.ArgumentParser) -> list[tuple[object, ...]]:
    return [(tuple(a.option_strings), a.dest, a.nargs, a.required, a.default, a.help) for a in parser._actions]


def test_a_command_run_alone_is_parsed_as_among_all() -> None:
    everything = _commands(build_parser())
    for name, parser in everything.items():
        alone = _commands(build_parser(name))
        assert list(alone) == [name]
        assert _shape(alone[name]) == _shape(parser), name
        assert alone[name].get_default("handler") == parser.get_default("handler"), name
