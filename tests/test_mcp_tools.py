"""The MCP tools as a new user's agent meets them, in process (nothing is started): argument
mistakes answered in one line, one name (`path`) for the file everywhere, bad values refused,
and create_file obeying the gate, the workspace, the read-only default and the host's denies."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.server.mcpserver.exceptions import ToolError

from gateway.api import Gateway
from gateway.surfaces.cli import run as cli
from gateway.surfaces.mcp import build_server

SOURCE = "def area(width, height):\n    return width * height\n"


@pytest.fixture
def gateway(tmp_path: Path) -> Iterator[Gateway]:
    (tmp_path / "shapes.py").write_text(SOURCE)
    with Gateway(tmp_path) as opened:
        yield opened


def _call(gateway: Gateway, tool: str, arguments: dict[str, Any], host: str | None = None, writes: bool = True) -> dict[str, Any]:
    result = anyio.run(build_server(gateway, host, writes).call_tool, tool, arguments)
    return json.loads(result.content[0].text)


def _refused(gateway: Gateway, tool: str, arguments: dict[str, Any], host: str | None = None, writes: bool = True) -> str:
    """The refusal, as `Error executing tool TOOL: KIND: MESSAGE` (the SDK's own errors as it says them)."""
    try:
        result = anyio.run(build_server(gateway, host, writes).call_tool, tool, arguments)
    except ToolError as error:
        return str(error)
    assert result.is_error, result
    error = json.loads(result.content[0].text)["error"]
    return f"Error executing tool {tool}: {error['kind']}: {error['message']}"


@pytest.mark.parametrize("tool, arguments, said", [
    ("symbols", {"path": "shapes.py", "depth": "two"}, "usage: symbols: depth must be a valid integer, not 'two' (symbols takes depth, path)"),
    ("symbols", {}, "usage: symbols: missing argument path (symbols takes depth, path)"),
    ("symbols", {"file": "shapes.py"}, "usage: symbols: unknown argument file; missing argument path (symbols takes depth, path)"),
    ("insert_code", {"name_path": "/", "path": "shapes.py", "position": "end", "code": "X = 1\n"},
     "usage: insert_code: position must be 'before' or 'after', not 'end' (insert_code takes code, dry_run, name_path, path, position, token)"),
    ("edit_file", {"path": "shapes.py", "old_string": "width", "new_string": 3},
     "usage: edit_file: new_string must be a valid string, not 3 (edit_file takes dry_run, new_string, old_string, path, replace_all, route, token)"),
])
def test_an_argument_mistake_is_one_line_naming_the_argument(gateway: Gateway, tool: str, arguments: dict[str, Any], said: str) -> None:
    assert _refused(gateway, tool, arguments) == f"Error executing tool {tool}: {said}"
    assert (gateway.workspace.root / "shapes.py").read_text() == SOURCE


def test_every_tool_names_its_file_path_and_edit_file_still_takes_file_path(gateway: Gateway) -> None:
    tools = anyio.run(build_server(gateway).list_tools)
    assert not [tool.name for tool in tools if "file_path" in tool.input_schema["properties"]]
    assert {"edit_file", "create_file", "symbols", "replace_symbol", "insert_code", "remove_symbol", "rename_symbol"} <= {
        tool.name for tool in tools if "path" in tool.input_schema["properties"]}
    edit = {"old_string": "width * height", "new_string": "height * width"}
    assert _call(gateway, "edit_file", {"path": "shapes.py", **edit})["applied"] is True
    assert _call(gateway, "edit_file", {"file_path": "shapes.py", "old_string": "height * width", "new_string": "width * height"})["applied"]
    assert (gateway.workspace.root / "shapes.py").read_text() == SOURCE


@pytest.mark.parametrize("depth", [-1, 0])
def test_a_depth_below_one_is_refused(gateway: Gateway, depth: int) -> None:
    said = "usage: depth must be 1 or more (the levels of symbols to show; omit it for all), not"
    assert _refused(gateway, "symbols", {"path": "shapes.py", "depth": depth}) == f"Error executing tool symbols: {said} {depth}"


NEW = "def volume(a, b, c):\n    return a * b * c\n"


def test_create_file_makes_a_new_file_through_the_gate(gateway: Gateway) -> None:
    root = gateway.workspace.root
    created = _call(gateway, "create_file", {"path": "solids/volume.py", "content": NEW})
    assert (created["ok"], created["applied"], created["path"], created["reason"]) == (True, True, "solids/volume.py", "new_file")
    assert (root / "solids" / "volume.py").read_text() == NEW
    refused = _call(gateway, "create_file", {"path": "broken.py", "content": "def volume(a, b:\n    return a\n"})
    assert (refused["ok"], refused["decision"], refused["reason"]) == (False, "block", "syntax_error")
    assert "would add a syntax error at line 1" in refused["message"] and not (root / "broken.py").exists()
    said = _refused(gateway, "create_file", {"path": "shapes.py", "content": NEW})
    assert said == ("Error executing tool create_file: file_exists: shapes.py already exists; nothing written (create_file only makes new "
                    "files: change this one with edit_file or the symbol tools)")
    assert (root / "shapes.py").read_text() == SOURCE
    assert "outside_workspace" in _refused(gateway, "create_file", {"path": "../escaped.py", "content": NEW})
    assert not (root.parent / "escaped.py").exists()
    assert {p.name for p in root.iterdir()} == {"shapes.py", "solids"}


def test_create_file_obeys_the_read_only_default_and_the_hosts_denies(gateway: Gateway, monkeypatch: pytest.MonkeyPatch) -> None:
    root = gateway.workspace.root
    monkeypatch.setenv("HOME", str(root.parent / "home"))
    tools = anyio.run(build_server(gateway, "claude-code", False).list_tools)
    assert "create_file" not in {tool.name for tool in tools}
    assert _refused(gateway, "create_file", {"path": "a.py", "content": NEW}, "claude-code", False) == "Unknown tool: create_file"
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Write(src/**)"]}}))
    said = _refused(gateway, "create_file", {"path": "src/a.py", "content": NEW}, "claude-code", True)
    assert "denied: claude-code's own edit tools are denied for this file (Write(src/**)" in said
    assert not (root / "src").exists() and not (root / "a.py").exists()
    assert _call(gateway, "create_file", {"path": "lib/a.py", "content": NEW}, "claude-code", True)["applied"] is True


def test_the_cli_creates_a_file_and_refuses_an_existing_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "shapes.py").write_text(SOURCE)
    assert cli(["create-file", "volume.py", "--content", NEW, "--workspace", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "Created volume.py (2 line(s)).\n" and (tmp_path / "volume.py").read_text() == NEW
    assert cli(["create-file", "shapes.py", "--content", NEW, "--workspace", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith("gateway: shapes.py already exists; nothing written")
    assert cli(["create-file", "bad.py", "--content", "def f(:\n", "--workspace", str(tmp_path)]) == 3
    assert "would add a syntax error" in capsys.readouterr().err and not (tmp_path / "bad.py").exists()
    assert (tmp_path / "shapes.py").read_text() == SOURCE
