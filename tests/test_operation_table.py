"""The operation table is the one place an operation is written: the CLI, MCP and JSON-RPC are
generated from it, and the operations the gate suggests are spelled (by the surfaces only) as
commands that parse back into the same operation."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.results import SuggestedOperation, Summary
from gateway.surfaces import render
from gateway.surfaces.cli import build_parser
from gateway.surfaces.mcp import build_server
from gateway.surfaces.operations import OPERATIONS, Arg, Operation, call, command_line
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


def test_an_operations_parameters_are_its_functions_signature() -> None:
    for operation in OPERATIONS.values():
        code = operation.function.__code__
        assert [p.name for p in operation.params] == list(code.co_varnames[1 : code.co_argcount]), operation.name
        assert all(p.required == (p.default is None and p.name not in _defaulted(operation.function)) for p in operation.params)
    position = next(p for p in OPERATIONS["insert_code"].params if p.name == "position")
    assert (position.kind, position.required, position.choices) == (str, True, ("before", "after"))  # Literal["before", "after"]


def _defaulted(function: object) -> set[str]:
    code, defaults = function.__code__, function.__defaults__ or ()  # type: ignore[attr-defined]
    return set(code.co_varnames[code.co_argcount - len(defaults) : code.co_argcount])


def test_an_operation_is_one_typed_function_on_every_surface(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding an operation: a function and its entry. The CLI command, the MCP tool (its schema
    from the signature), the JSON-RPC method and the CLI's text come from that entry alone."""

    def count_lines(g: Gateway, path: str, blank: bool = False) -> Summary:
        text = g.workspace.read(path).text
        return Summary({"lines": sum(1 for line in text.splitlines() if blank or line.strip())})

    entry = Operation(count_lines, "count a file's lines", "Count a file's lines. USE to size a file. Read-only.", command="count-lines",
                      tool="count_lines", args={"blank": Arg("count blank lines too", "switch")},
                      show=lambda result, params: (f"{result['lines']} lines", 0))
    monkeypatch.setitem(OPERATIONS, "count_lines", entry)
    (tmp_path / "m.py").write_text("a = 1\n\nb = 2\n")
    args = build_parser().parse_args(["count-lines", "m.py", "--blank"])
    assert args.operations[None] is entry and (args.path, args.blank) == ("m.py", True)
    with Gateway(tmp_path, use_servers=False) as gateway:
        assert call(gateway, "count_lines", {"path": "m.py"}) == {"ok": True, "lines": 2}
        assert entry.show(call(gateway, "count_lines", {"path": "m.py", "blank": True}), {}) == ("3 lines", 0)
        tool = next(t for t in build_server(gateway)._tool_manager.list_tools() if t.name == "count_lines")
    assert tool.parameters["properties"] == {"path": {"type": "string"}, "blank": {"default": False, "type": "boolean"}}
    assert entry.method == "gateway/countLines"


def test_the_mcp_declare_tool_is_generated_from_the_table(tmp_path: Path) -> None:
    (tmp_path / ".gateway").mkdir()
    (tmp_path / ".gateway" / "config.toml").write_text("[mcp]\ntyped_edits = true\n")
    with Gateway(tmp_path, use_servers=False) as gateway:
        tools = {t.name: t for t in build_server(gateway)._tool_manager.list_tools()}
    schema = tools["declare"].parameters
    assert list(schema["properties"]) == [p.name for p in OPERATIONS["declare"].params] and schema["required"] == ["kind"]
    assert schema["properties"]["files"] == {"default": None, "type": ["array", "null"], "items": {"type": "string"}}
    assert schema["properties"]["target"]["enum"] == ["prod", "test"]
