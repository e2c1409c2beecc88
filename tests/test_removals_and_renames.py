"""One rule for removals, and renames complete or said incomplete (issue 35): deleting a
referenced definition by a text edit is refused as remove_symbol refuses it, with the places,
on every writing surface; the advice of a refusal is an operation that succeeds. In process,
tree-sitter only (the servers' side is in test_removals_servers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Ambiguous, Blocked, StillReferenced
from gateway.results import SuggestedOperation
from gateway.surfaces import render
from gateway.surfaces.cli import run as cli
from gateway.surfaces.operations import call
from gateway.surfaces.hooks.hosts.claude_code import run as run_hook

UTIL = (
    "def get_auth_from_url(url):\n    return url.split('@')[0]\n\n\n"
    "def unused(url):\n    return url\n\n\n"
    "def prepend_scheme(url):\n    return 'http://' + url\n"
)
SESSION = "import util\n\n\ndef auth(url):\n    return util.get_auth_from_url(url)\n"
ADAPTERS = "from util import get_auth_from_url\n\n\ndef proxy(url):\n    return get_auth_from_url(url)\n"
REMOVED = "def get_auth_from_url(url):\n    return url.split('@')[0]\n\n\n"

GO_UTIL = "package cmd\n\nfunc HasParent() bool {\n\treturn true\n}\n\nfunc Name() string {\n\treturn \"cobra\"\n}\n"
GO_USER = "package cmd\n\nfunc Use() bool {\n\treturn HasParent()\n}\n"
GO_COMMAND = ("package cobra\n\ntype Command struct {\n\tparent *Command\n}\n\n// HasParent says whether the command has a parent.\n"
              "func (c *Command) HasParent() bool {\n\treturn c.parent != nil\n}\n\nfunc (c *Command) Name() string {\n\treturn \"x\"\n}\n")
GO_ROOT = "package cobra\n\nfunc Root(c *Command) *Command {\n\tif c.HasParent() {\n\t\treturn Root(c.parent)\n\t}\n\treturn c\n}\n"
GO_METHOD = "// HasParent says whether the command has a parent.\nfunc (c *Command) HasParent() bool {\n\treturn c.parent != nil\n}\n\n"


@pytest.fixture
def python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    (tmp_path / "util.py").write_text(UTIL)
    (tmp_path / "sessions.py").write_text(SESSION)
    (tmp_path / "adapters.py").write_text(ADAPTERS)
    return tmp_path


def _refused_as_remove_symbol_refuses(root: Path, name: str, path: str) -> str:
    with Gateway(root, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.remove_symbol(name, path)
    return str(refused.value).split("; nothing removed")[0]


def test_a_text_edit_removing_a_referenced_function_is_refused_as_remove_symbol_refuses_it(python: Path) -> None:
    said_by_remove = _refused_as_remove_symbol_refuses(python, "get_auth_from_url", "util.py")
    with Gateway(python, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("util.py", REMOVED, "", route=True)
    said = render.message(refused.value)
    assert said.startswith(said_by_remove + "; nothing removed"), said
    assert "adapters.py:1" in said and "adapters.py:5" in said and "sessions.py:5" in said, said
    assert "gateway remove-symbol get_auth_from_url util.py --force" in said, said
    assert (python / "util.py").read_text() == UTIL


def test_the_suggested_forced_removal_succeeds(python: Path) -> None:
    with Gateway(python, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("util.py", REMOVED, "", route=True)
    (suggestion,) = refused.value.suggested
    assert isinstance(suggestion, SuggestedOperation)
    assert json.loads(json.dumps(suggestion.to_json()))["params"]["force"] == "true"
    assert cli([*render.command(suggestion).split()[1:], "--workspace", str(python)]) == 0
    assert "get_auth_from_url" not in (python / "util.py").read_text()


def test_an_unreferenced_function_is_still_removed_by_a_text_edit(python: Path) -> None:
    with Gateway(python, use_servers=False) as gateway:
        result = gateway.edit("util.py", "def unused(url):\n    return url\n\n\n", "", route=True)
    assert result.route is not None and [o["tool"] for o in result.route.to_json()["operations"]] == ["remove_symbol"]
    assert "def unused" not in (python / "util.py").read_text()


def test_a_removal_together_with_its_only_use_in_the_same_file_goes_through(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n\n\ndef other():\n    return 2\n")
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.edit("m.py", "def helper():\n    return 1\n\n\ndef caller():\n    return helper()\n\n\n", "", route=True)
    assert (tmp_path / "m.py").read_text() == "def other():\n    return 2\n"


DUPLICATED = "def foo(a):\n    return a\n\n\ndef bar():\n    return 1\n\n\ndef foo(a):\n    return a + 1\n"
FOO_USER = "from m import foo\n\nprint(foo(1))\n"


def test_removing_one_of_two_copies_of_a_referenced_definition_goes_through(tmp_path: Path) -> None:
    """A definition moved (its new copy inserted first), then its old copy deleted: the name is
    still defined after the write, so its references are not left behind (the polyglot cuts)."""
    (tmp_path / "m.py").write_text(DUPLICATED)
    (tmp_path / "user.py").write_text(FOO_USER)
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.edit("m.py", "def foo(a):\n    return a\n\n\ndef bar", "def bar", route=True)
    assert result.route is not None and [o["tool"] for o in result.route.to_json()["operations"]] == ["remove_symbol"]
    assert (tmp_path / "m.py").read_text() == "def bar():\n    return 1\n\n\ndef foo(a):\n    return a + 1\n"


OVERLOADS = ("class Shapes {\n    static int area(int side) {\n        return side * side;\n    }\n\n"
             "    static int area(int width, int height) {\n        return width * height;\n    }\n}\n")
OVERLOAD_USER = "class Use {\n    int one() {\n        return Shapes.area(2);\n    }\n}\n"
ONE_SIDE = "    static int area(int side) {\n        return side * side;\n    }\n\n"


def test_removing_an_overload_while_another_is_kept_is_still_refused(tmp_path: Path) -> None:
    """Where a language overloads, a namesake with another signature does not stand in for the one removed."""
    (tmp_path / "Shapes.java").write_text(OVERLOADS)
    (tmp_path / "Use.java").write_text(OVERLOAD_USER)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(StillReferenced):
        gateway.edit("Shapes.java", ONE_SIDE, "", route=True)
    assert (tmp_path / "Shapes.java").read_text() == OVERLOADS
    (tmp_path / "Shapes.java").write_text(OVERLOADS.replace("int width, int height", "int side").replace("width * height", "side + 0"))
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.edit("Shapes.java", ONE_SIDE, "", route=True)  # an exact duplicate's removal goes through
    assert (tmp_path / "Shapes.java").read_text().count("static int area(int side)") == 1


def test_without_route_the_refusal_names_no_removal_that_would_be_refused(python: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["edit", "util.py", "--old", REMOVED, "--new", "", "--workspace", str(python)]) == 3
    shown = capsys.readouterr()
    said = shown.out + shown.err
    assert "is still referenced at" in said and "gateway remove-symbol get_auth_from_url util.py --force" in said, said
    assert "gateway remove-symbol get_auth_from_url util.py\n" not in said + "\n" and "--route" not in said, said
    assert (python / "util.py").read_text() == UTIL


def test_the_hook_denies_the_removal_listing_the_references(python: Path) -> None:
    payload = {"tool_name": "Edit", "cwd": str(python), "tool_input": {"file_path": "util.py", "old_string": REMOVED, "new_string": ""}}
    output, code = run_hook(json.dumps(payload).encode())
    decision = json.loads(output)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny", decision
    reason = decision["permissionDecisionReason"]
    assert "util.py: get_auth_from_url is still referenced at" in reason and "sessions.py:5" in reason, reason
    assert f"gateway remove-symbol get_auth_from_url {python / 'util.py'} --force" in reason, reason
    assert (python / "util.py").read_text() == UTIL


def test_the_hook_refuses_it_too_where_the_workspace_denies_structural_writes(python: Path) -> None:
    (python / ".gateway").mkdir()
    (python / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
    payload = {"tool_name": "Write", "cwd": str(python), "tool_input": {"file_path": "util.py", "content": UTIL.replace(REMOVED, "")}}
    output, _ = run_hook(json.dumps(payload).encode())
    reason = json.loads(output)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "is still referenced at" in reason and f"remove-symbol get_auth_from_url {python / 'util.py'} --force" in reason, reason


def test_a_go_function_used_in_another_file_of_the_package_is_not_removed_by_a_text_edit(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_UTIL)
    (tmp_path / "use.go").write_text(GO_USER)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", "func HasParent() bool {\n\treturn true\n}\n\n", "", route=True)
    assert "command.go: HasParent is still referenced at use.go:4" in str(refused.value), refused.value
    assert (tmp_path / "command.go").read_text() == GO_UTIL


def test_a_go_method_called_in_another_file_is_not_removed_by_a_text_edit(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_COMMAND)
    (tmp_path / "root.go").write_text(GO_ROOT)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", GO_METHOD, "", route=True)
    assert "command.go: Command/HasParent is still referenced at root.go:4" in str(refused.value), refused.value


def test_a_rename_by_text_of_a_function_nothing_refers_to_is_performed(tmp_path: Path) -> None:
    (tmp_path / "test_shapes.py").write_text("def test_area():\n    assert 1\n\n\ndef test_other():\n    assert 2\n")
    (tmp_path / "other.py").write_text("x = 1\n")
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.edit("test_shapes.py", "def test_area():\n    assert 1\n", "def test_area_is_positive():\n    assert 1\n", route=True)
    assert result.route is not None
    assert (tmp_path / "test_shapes.py").read_text().startswith("def test_area_is_positive():\n")


def test_a_rename_by_text_is_refused_naming_the_references_it_leaves(tmp_path: Path) -> None:
    (tmp_path / "shapes.py").write_text("def area(w):\n    return w\n\n\ndef other():\n    return 2\n")
    (tmp_path / "use.py").write_text("from shapes import area\n\nprint(area(2))\n")
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked) as refused:
        gateway.edit("shapes.py", "def area(w):\n    return w\n", "def surface(w):\n    return w\n", route=True)
    assert "which leaves the references to the old name at use.py:1, use.py:3 behind" in str(refused.value), refused.value


# Renames complete, or said incomplete: the strings that name the old name

API = "__all__ = ['options', 'get']\n\n\ndef options(url):\n    return url\n\n\ndef get(url):\n    return url\n"
PACKAGE = 'from .api import options, get\n\n__all__ = ["options", "get"]\n__all__ += ("options",)\n'
HOOKS = "from req import api\n\nfound = getattr(api, 'options')\n"


@pytest.fixture
def package(tmp_path: Path) -> Path:
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "api.py").write_text(API)
    (tmp_path / "req" / "__init__.py").write_text(PACKAGE)
    (tmp_path / "hooks.py").write_text(HOOKS)
    return tmp_path


def test_a_rename_renames_the_export_lists_and_reports_a_lookup_by_string(package: Path) -> None:
    with Gateway(package, use_servers=False) as gateway:
        result = gateway.rename_symbol("options", "req/api.py", "opts").to_json()
    assert (package / "req" / "api.py").read_text().startswith("__all__ = ['opts', 'get']\n")
    assert (package / "req" / "__init__.py").read_text() == 'from .api import opts, get\n\n__all__ = ["opts", "get"]\n__all__ += ("opts",)\n'
    assert not result["complete"] and result["mentioned_in"] == ["hooks.py:3"], result
    assert (package / "hooks.py").read_text() == HOOKS


def test_a_rename_with_only_export_lists_to_follow_is_complete(package: Path) -> None:
    (package / "hooks.py").write_text("from req import options\n\nprint(options('x'))\n")
    with Gateway(package, use_servers=False) as gateway:
        result = gateway.rename_symbol("options", "req/api.py", "opts").to_json()
    assert result["complete"] and sorted(result["files"]) == ["hooks.py", "req/__init__.py", "req/api.py"], result
    assert "'options'" not in (package / "req" / "api.py").read_text()


def test_an_export_list_of_a_namesake_is_left_alone(package: Path) -> None:
    (package / "other.py").write_text("__all__ = ['options']\n\n\ndef options():\n    return 1\n")
    with Gateway(package, use_servers=False) as gateway:
        result = gateway.rename_symbol("options", "req/api.py", "opts").to_json()
    assert (package / "other.py").read_text().startswith("__all__ = ['options']\n") and "other.py:1" not in result["mentioned_in"]


def test_removing_an_exported_function_is_refused_naming_its_export_list_entry(package: Path) -> None:
    (package / "hooks.py").write_text("x = 1\n")
    (package / "req" / "__init__.py").write_text("from .api import get\n")
    with Gateway(package, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.remove_symbol("options", "req/api.py")
    assert "req/api.py:1" in str(refused.value), refused.value


# A rename by text of an override: its name is the overridden method's

POINT = (
    "public class Point {\n    private final int x;\n\n    public Point(int x) {\n        this.x = x;\n    }\n\n"
    "    @Override\n    public boolean equals(Object other) {\n        if (other == this) {\n            return true;\n        }\n"
    "        if (!(other instanceof Point)) {\n            return false;\n        }\n        Point that = (Point) other;\n"
    "        return that.x == x;\n    }\n}\n"
)
HEADER = "    public boolean equals(Object other) {\n"
GUARDED = "    public boolean equalsWithGuard(Object other) {\n"


@pytest.fixture
def point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The first hunk of a commit that turns equals' code into equalsWithGuard and adds an
    equals calling it below (git diff -U2 splits the two), sent alone as an edit."""
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    (tmp_path / "Point.java").write_text(POINT)
    (tmp_path / "Use.java").write_text("public class Use {\n    boolean same(Point a, Point b) {\n        return a.equals(b);\n    }\n}\n")
    return tmp_path


def test_a_renamed_override_is_not_advised_to_rename_symbol(point: Path) -> None:
    with Gateway(point, use_servers=False) as gateway:
        refused = gateway.classify("Point.java", "    @Override\n" + HEADER, GUARDED)
    assert "rename_symbol(" not in refused.message and not any(s.operation == "rename_symbol" for s in refused.suggested), refused.message
    assert "renames method `Point/equals` (line 9) to `Point/equalsWithGuard`, an override" in refused.message
    assert [str(s) for s in refused.suggested] == ["replace_symbol(name_path='Point/equals', path='Point.java', body='NEW_DEFINITION_FILE')"]


def test_the_replace_symbol_it_suggests_succeeds(point: Path) -> None:
    body = POINT[POINT.index(HEADER) : POINT.rindex("}")].replace(HEADER, GUARDED)
    with Gateway(point, use_servers=False) as gateway:
        gateway.replace_symbol("Point/equals", "Point.java", body)
    assert GUARDED in (point / "Point.java").read_text()


def test_a_renamed_override_is_routed_as_its_replacement(point: Path) -> None:
    with Gateway(point, use_servers=False) as gateway:
        result = gateway.edit("Point.java", HEADER, GUARDED, route=True)
    assert result.route is not None and [o["tool"] for o in result.route.to_json()["operations"]] == ["replace_symbol"]
    assert (point / "Point.java").read_text() == POINT.replace(HEADER, GUARDED)


def test_a_rename_of_a_method_that_overrides_nothing_still_suggests_rename_symbol(point: Path) -> None:
    (point / "Point.java").write_text(POINT.replace("    @Override\n", ""))
    with Gateway(point, use_servers=False) as gateway:
        refused = gateway.classify("Point.java", HEADER, GUARDED)
    assert [s.operation for s in refused.suggested] == ["rename_symbol"], refused.message


def test_the_forced_removal_is_spelled_with_a_boolean_for_mcp_and_json_rpc(python: Path) -> None:
    with Gateway(python, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("util.py", REMOVED, "", route=True)
    assert '"force": true' in render.message(refused.value, render.MCP) and '"force": true' in render.message(refused.value, render.RPC)
    with Gateway(python, use_servers=False) as gateway:
        call(gateway, "remove_symbol", {"name_path": "get_auth_from_url", "path": "util.py", "force": True})
    assert "get_auth_from_url" not in (python / "util.py").read_text()


def test_the_gates_verdict_on_the_removal_advises_only_what_succeeds(python: Path) -> None:
    with Gateway(python, use_servers=False) as gateway:
        verdict = gateway.classify("util.py", REMOVED, "")
        unreferenced = gateway.classify("util.py", "def unused(url):\n    return url\n\n\n", "")
    assert verdict.blocked and "get_auth_from_url is still referenced at adapters.py:1" in verdict.message, verdict.message
    assert [dict(s.values).get("force") for s in verdict.suggested] == ["true"], verdict.suggested
    assert [str(s) for s in unreferenced.suggested] == ["remove_symbol(name_path='unused', path='util.py')"]


def test_a_function_replaced_by_a_binding_of_its_name_is_not_refused_as_removed(python: Path) -> None:
    with Gateway(python, use_servers=False) as gateway:
        verdict = gateway.classify("util.py", REMOVED, "get_auth_from_url = str.lower\n\n\n")
    assert "still referenced" not in verdict.message, verdict.message


def test_without_a_server_a_member_of_the_same_name_is_said_to_be_a_name_match_not_a_reference(tmp_path: Path) -> None:
    """Only the name ties `t.String()` (an object of a type the syntax trees cannot tell) to the
    method removed: still refused, saying so, while a use tied to it is a reference."""
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_COMMAND)
    (tmp_path / "stamp").mkdir()
    (tmp_path / "stamp" / "stamp.go").write_text("package stamp\n\nimport \"time\"\n\nfunc Stamp() string {\n\tt := time.Now()\n\treturn t.HasParent()\n}\n")
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", GO_METHOD, "", route=True)
    said = str(refused.value)
    assert "Command/HasParent may still be referenced at stamp/stamp.go:7, where its name is spelt (member of an object of unknown type)" in said, said
    assert "no language server answered for it" in said and "is still referenced" not in said, said
    (tmp_path / "root.go").write_text(GO_ROOT)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", GO_METHOD, "", route=True)
    assert "Command/HasParent is still referenced at root.go:4; and may still be referenced at stamp/stamp.go:7" in str(refused.value), refused.value
    assert (tmp_path / "command.go").read_text() == GO_COMMAND


def test_the_syntax_tree_rename_of_a_python_method_leaves_the_module_function_of_its_name_alone(tmp_path: Path) -> None:
    """A bare `helper()` is the module's function in Python, inside the class or not."""
    helpers = ("def helper():\n    return 1\n\n\nclass A:\n    def helper(self):\n        return helper() + 1\n\n    def other(self):\n"
               "        return self.helper()\n\n\ndef main():\n    return helper()\n")
    (tmp_path / "helpers.py").write_text(helpers)
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.rename_symbol("A/helper", "helpers.py", "assist").to_json()
    assert (tmp_path / "helpers.py").read_text() == helpers.replace("def helper(self)", "def assist(self)").replace(
        "self.helper()", "self.assist()"), result
    assert result["complete"], result


def test_self_in_another_modules_class_of_the_same_name_is_not_taken_for_the_renamed_method(tmp_path: Path) -> None:
    """Another module's `class A` is another class: its `self.helper()` may be anything, so the
    syntax-tree rename names it instead of renaming it."""
    (tmp_path / "helpers.py").write_text("class A:\n    def helper(self):\n        return 1\n")
    other = "class A:\n    def helper(self):\n        return 2\n\n    def call(self):\n        return self.helper()\n"
    (tmp_path / "other.py").write_text(other)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Ambiguous) as refused:
        gateway.rename_symbol("A/helper", "helpers.py", "assist")
    assert "other.py:6 may belong to another type" in str(refused.value), refused.value
    assert (tmp_path / "other.py").read_text() == other


def test_a_parameter_of_the_renamed_functions_name_is_left_alone_with_its_uses(tmp_path: Path) -> None:
    """`then((helper) => helper * 2)` and `then(helper => helper + 1)` bind parameters of their own."""
    source = ("export function helper(x: number): number {\n\treturn x + 1;\n}\n\n"
              "export function later(value: Promise<number>): Promise<number> {\n\treturn value.then((helper) => helper * 2);\n}\n\n"
              "export function sooner(value: Promise<number>): Promise<number> {\n\treturn value.then(helper => helper + 1);\n}\n")
    (tmp_path / "a.ts").write_text(source)
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.rename_symbol("helper", "a.ts", "assist").to_json()
    assert (tmp_path / "a.ts").read_text() == source.replace("function helper", "function assist"), result
    assert result["complete"], result


def test_a_rename_by_text_says_which_places_only_spell_the_name(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_COMMAND)
    (tmp_path / "stamp").mkdir()
    (tmp_path / "stamp" / "stamp.go").write_text("package stamp\n\nimport \"time\"\n\nfunc Stamp() bool {\n\tt := time.Now()\n\treturn t.HasParent()\n}\n")
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked) as refused:
        gateway.edit("command.go", "func (c *Command) HasParent() bool {", "func (c *Command) HasAParent() bool {\n", route=True)
    said = str(refused.value)
    assert ("which leaves the places spelling it at stamp/stamp.go:7 (which may refer to it: member of an object of unknown type) behind"
            in said), said
    assert (tmp_path / "command.go").read_text() == GO_COMMAND
