"""`gateway mcp` driven by the official SDK's client over stdio: list tools, call them, recover from a refusal."""

from __future__ import annotations

import pytest

import json
import shutil
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gateway.surfaces.operations import DESCRIPTION_BUDGET, OPERATIONS
from gateway.typed.kinds import catalogue
from tests.caller_cases import GO, GO_CALLER, GO_NEW, GO_OLD

pytestmark = pytest.mark.usefixtures("processes")

CONTRACT_TOOLS = {o.tool for o in OPERATIONS.values() if o.tool and o.group == "contracts"}

FIXTURES = Path(__file__).parent / "fixtures"
TOOLS = {"edit_file", "create_file", "replace_symbol", "insert_code", "remove_symbol", "rename_symbol", "symbols", "find_symbol", "contract_check", "contract_apply"}
KIND_TOOLS = {"declare"}


def _session_calls(workspace: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    async def run() -> tuple[list[Any], list[Any]]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gateway", "mcp", "--workspace", str(workspace)],
                                       cwd=str(Path(__file__).parent.parent), env=dict(os.environ))
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            results = [await session.call_tool(name, arguments) for name, arguments in calls]
            return tools, results

    return anyio.run(run)


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    assert result.structured_content is None and len(result.content) == 1  # sent once
    return json.loads(result.content[0].text)


def _configure(workspace: Path, text: str) -> None:
    (workspace / ".gateway").mkdir(exist_ok=True)
    (workspace / ".gateway" / "config.toml").write_text(text)


def _listed_size(tools: list[Any]) -> int:
    """Characters of the tools as tools/list sends them."""
    return sum(len(json.dumps(tool.model_dump(mode="json", by_alias=True, exclude_none=True))) for tool in tools)


def test_by_default_only_the_gate_and_symbol_tools_are_listed_and_they_fit_a_budget(tmp_path: Path) -> None:
    tools, _ = _session_calls(tmp_path, [])
    assert {tool.name for tool in tools} == TOOLS - set(CONTRACT_TOOLS)
    assert _listed_size(tools) <= 10_000
    (tmp_path / "contracts").mkdir()
    (tmp_path / "contracts" / "plan.toml").write_text("")
    tools, _ = _session_calls(tmp_path, [])  # a workspace with contracts gets the contract tools
    assert {tool.name for tool in tools} == TOOLS
    assert _listed_size(tools) <= 10_000


def test_config_switches_list_the_typed_and_contract_tools_which_carry_their_obligations_once_within_the_budget(tmp_path: Path) -> None:
    _configure(tmp_path, "[mcp]\ncontracts = true\n")
    tools, _ = _session_calls(tmp_path, [])
    assert {tool.name for tool in tools} == TOOLS
    _configure(tmp_path, "[typed_edits]\nenforce = true\n\n[mcp]\ncontracts = false\n")
    tools, _ = _session_calls(tmp_path, [])
    assert {tool.name for tool in tools} == (TOOLS - set(CONTRACT_TOOLS)) | KIND_TOOLS
    _configure(tmp_path, "[mcp]\ntyped_edits = true\ncontracts = true\n")
    tools, _ = _session_calls(tmp_path, [])
    assert {tool.name for tool in tools} == TOOLS | KIND_TOOLS
    assert _listed_size(tools) <= 10_000  # everything listed: typed edits and contracts
    _assert_obligations_carried_once(tools)


def _assert_obligations_carried_once(tools: list[Any]) -> None:
    """Every tool listed (typed edits and contracts on) carries its obligations once, within the budget."""
    [declare] = [tool for tool in tools if tool.name == "declare"]
    assert declare.input_schema["properties"]["kind"]["enum"] == list(catalogue().kinds) and len(catalogue().kinds) == 21
    assert {"provenance", "rationale", "path", "old_string", "new_string"} <= set(declare.input_schema["properties"])
    sentences: dict[str, str] = {}
    for tool in tools:
        description = tool.description or ""
        assert len(description) <= DESCRIPTION_BUDGET, (tool.name, len(description))
        assert "USE" in description or "Read-only" in description
        if tool.name not in ("symbols", "find_symbol"):
            assert "TESTS:" in description and "STOP AND ASK" in description and "DO NOT USE" in description
        for sentence in (s.strip() for s in description.split(". ") if len(s.strip()) > 30):
            assert sentence not in sentences, f"{tool.name} repeats {sentences.get(sentence)}: {sentence!r}"
            sentences[sentence] = tool.name
    assert "title" not in json.dumps([tool.input_schema for tool in tools])


def test_a_kind_alone_answers_its_obligations(tmp_path: Path) -> None:
    _configure(tmp_path, "[typed_edits]\nenforce = true\n")
    _, results = _session_calls(tmp_path, [("declare", {"kind": "edit_boundary_condition"}), ("declare", {"kind": "no_such_kind"})])
    kind = catalogue().kinds["edit_boundary_condition"]
    answer = _payload(results[0])
    assert answer["declared"] is False and answer["kind"] == kind.name
    assert all(answer[key] == getattr(kind, key) for key in ("use_when", "do_not_use", "tests", "stop_and_ask"))
    assert results[1].is_error


def test_on_structural_deny_is_honoured_exactly_as_the_hook_does(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    _configure(tmp_path, '[gate]\non_structural = "deny"\n')
    before = (tmp_path / "pkg" / "shapes.py").read_text()
    old = "def area(width, height):\n    return width * height\n"
    _, results = _session_calls(tmp_path, [
        ("edit_file", {"file_path": "pkg/shapes.py", "old_string": old, "new_string": "def area(w, h):\n    return w * h\n"}),
        ("edit_file", {"file_path": "pkg/shapes.py", "old_string": old, "new_string": "def area(w, h):\n    return w * h\n", "route": True}),
    ])
    for result in results:
        refused = _payload(result)
        assert (refused["decision"], refused["applied"], refused["suggested_tool"]) == ("block", False, "replace_symbol")
        call = 'replace_symbol {"name_path": "area", "path": "pkg/shapes.py", "body": "NEW_DEFINITION_FILE"}'  # spelled by the surface
        assert refused["commands"] == [call] and call in refused["message"] and call in refused["error"]["message"]
        assert (refused["ok"], refused["error"]["kind"], refused["error"]["suggested"][0]["tool"]) == (False, "blocked", "replace_symbol")
    assert (tmp_path / "pkg" / "shapes.py").read_text() == before


def test_refusal_then_symbol_tool(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    old = "def area(width, height):\n    return width * height\n"
    _, results = _session_calls(tmp_path, [
        ("edit_file", {"file_path": "pkg/shapes.py", "old_string": old, "new_string": "def area(w, h):\n    return w * h\n", "route": False}),
        ("replace_symbol", {"name_path": "area", "path": "pkg/shapes.py", "body": "def area(w, h):\n    return w * h\n"}),
        ("find_symbol", {"name_path": "area", "path": "pkg/shapes.py", "body": True}),
        ("edit_file", {"file_path": "pkg/shapes.py", "old_string": "def perimeter(width, height):\n    return 2 * (width + height)\n",
                       "new_string": ""}),
        ("remove_symbol", {"name_path": "nothing", "path": "pkg/shapes.py"}),
        ("symbols", {"path": "pkg/shapes.py", "depth": 1}),
    ])
    refused = _payload(results[0])
    assert (refused["decision"], refused["applied"], refused["suggested_tool"]) == ("block", False, "replace_symbol")
    assert _payload(results[1])["backend"] == "lsp:zuban"
    assert _payload(results[2])["matches"][0]["body"] == "def area(w, h):\n    return w * h"
    routed = _payload(results[3])
    assert (routed["decision"], routed["exact"]) == ("routed", True)
    assert [(o["tool"], o["name_path"]) for o in routed["operations"]] == [("remove_symbol", "perimeter")]
    missing = json.loads(results[4].content[0].text)  # a tool error holding the one refusal shape
    assert results[4].is_error and (missing["ok"], missing["error"]["kind"]) == (False, "not_found")
    assert missing["error"]["message"].startswith("no symbol nothing")
    assert "perimeter" not in [s["name_path"] for s in _payload(results[5])["symbols"]]
    assert "def area(w, h):" in (tmp_path / "pkg" / "shapes.py").read_text()


def _host_session(workspace: Path, args: list[str], calls: list[tuple[str, dict[str, Any]]]) -> tuple[list[Any], list[Any]]:
    async def run() -> tuple[list[Any], list[Any]]:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gateway", "mcp", "--workspace", str(workspace), *args],
                                       cwd=str(Path(__file__).parent.parent), env={**os.environ, "HOME": str(workspace.parent / "home")})
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return (await session.list_tools()).tools, [await session.call_tool(name, arguments) for name, arguments in calls]

    return anyio.run(run)


WRITE_TOOLS = {"edit_file", "create_file", "replace_symbol", "insert_code", "remove_symbol", "rename_symbol"}


def test_a_host_started_server_lists_no_write_tool_unless_asked(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "a.py").write_text("def f():\n    return 1\n")
    tools, [result] = _host_session(workspace, ["--host", "claude-code"], [("edit_file", {"file_path": "a.py", "old_string": "1", "new_string": "2"})])
    assert {tool.name for tool in tools} == TOOLS - set(CONTRACT_TOOLS) - WRITE_TOOLS
    assert result.is_error and (workspace / "a.py").read_text() == "def f():\n    return 1\n"
    tools, _ = _host_session(workspace, ["--host", "claude-code", "--writes"], [])
    assert {tool.name for tool in tools} == TOOLS - set(CONTRACT_TOOLS)


def test_a_write_the_hosts_user_denies_is_refused_with_the_rule(tmp_path: Path) -> None:
    """Claude Code's `Edit(src/**)` in the project's settings: the gateway's writes under src/
    are refused (the file untouched, the rule named), elsewhere they go through."""
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / ".claude").mkdir()
    (workspace / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Edit(src/**)"]}}))
    for name in ("src/a.py", "b.py"):
        (workspace / name).write_text("def f():\n    return 1\n")
    (workspace / "link.py").symlink_to(workspace / "src" / "a.py")
    edit = {"old_string": "return 1", "new_string": "return 2"}
    _, [refused, applied, renamed, linked] = _host_session(workspace, ["--host", "claude-code", "--writes"], [
        ("edit_file", {"file_path": "src/a.py", **edit}), ("edit_file", {"file_path": str(workspace / "b.py"), **edit}),
        ("rename_symbol", {"name_path": "f", "path": "b.py", "new_name": "g"}), ("edit_file", {"file_path": "link.py", **edit}),
    ])
    assert refused.is_error, refused.content[0].text
    denied = json.loads(refused.content[0].text)
    assert (denied["ok"], denied["error"]["kind"]) == (False, "denied")
    assert denied["error"]["message"].startswith("claude-code's own edit tools are denied for this file (Edit(src/**) in permissions.deny of ")
    assert (workspace / "src" / "a.py").read_text() == "def f():\n    return 1\n"
    assert _payload(applied)["applied"] is True and (workspace / "b.py").read_text() == "def f():\n    return 2\n"
    assert renamed.is_error and "a file this write may change" in renamed.content[0].text  # a rename may reach src/
    assert linked.is_error and "Edit(src/**)" in linked.content[0].text  # a link is judged where it leads
    assert (workspace / "src" / "a.py").read_text() == "def f():\n    return 1\n"


@pytest.mark.usefixtures("servers")
def test_a_preview_returns_the_delta_and_a_refusal_for_new_errors_is_a_tool_error_naming_the_caller(tmp_path: Path) -> None:
    """gopls, through `gateway mcp`: `dry_run` on edit_file and replace_symbol answers the result
    with the caller the new parameter breaks, nothing written; under `on_new_errors = "refuse"`
    the write is a tool error whose refusal lists that error."""
    for name, text in {"go.mod": "module shop\n\ngo 1.21\n", "shop.go": GO, "checkout.go": GO_CALLER}.items():
        (tmp_path / name).write_text(text)
    edit = {"path": "shop.go", "old_string": GO_OLD, "new_string": GO_NEW}
    total = GO.replace(GO_OLD, GO_NEW).removeprefix("package shop\n\n").split("\n\nfunc Count")[0]
    _, results = _session_calls(tmp_path, [("edit_file", {**edit, "dry_run": True}),
                                           ("replace_symbol", {"name_path": "Total", "path": "shop.go", "body": total, "dry_run": True})])
    for result in results:
        preview = _payload(result)
        assert (preview["applied"], preview["dry_run"], preview["verified"]) == (False, True, "checked")
        assert [(e["path"], e["line"]) for e in preview["new_errors"]] == [("checkout.go", 4)]
    assert (tmp_path / "shop.go").read_text() == GO
    _configure(tmp_path, '[verify]\non_new_errors = "refuse"\n')
    _, [result] = _session_calls(tmp_path, [("edit_file", edit)])
    refused = json.loads(result.content[0].text)
    assert result.is_error and (refused["ok"], refused["error"]["kind"]) == (False, "new_errors")
    assert "checkout.go:4" in refused["error"]["message"] and refused["error"]["new_errors"][0]["path"] == "checkout.go"
    assert (tmp_path / "shop.go").read_text() == GO
