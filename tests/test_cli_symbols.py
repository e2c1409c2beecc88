"""The symbol commands as processes: the JSON contract, exit codes, files untouched on error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import gateway
from tests.caller_cases import GO, GO_NEW, GO_OLD, GO_WORKSPACE

pytestmark = pytest.mark.usefixtures("processes")

FIXTURES = Path(__file__).parent / "fixtures"
OPERATION_FIELDS = {"ok", "operation", "name_path", "path", "backend", "start_line", "end_line", "diff", "message"}


def test_symbols(workspace: Path) -> None:
    done = gateway("symbols", "pkg/shapes.py", "--depth", "1", "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["backend"] == "lsp:zuban"
    assert [s["name_path"] for s in result["symbols"]] == ["functools", "Shape", "area", "perimeter"]
    assert result["symbols"][1] == {"name": "Shape", "name_path": "Shape", "kind": "class", "start_line": 6, "end_line": 25}
    text = gateway("symbols", "pkg/shapes.py", cwd=workspace).stdout
    assert "    method Shape/unit  12-15" in text


def test_find_symbol_with_body(workspace: Path) -> None:
    result = json.loads(gateway("find-symbol", "Meta/label", "pkg/shapes.py", "--body", "--json", cwd=workspace).stdout)
    assert [(m["name_path"], m["start_line"], m["end_line"]) for m in result["matches"]] == [("Shape/Meta/label", 24, 25)]
    assert result["matches"][0]["body"] == '        def label(self):\n            return "meta"'
    missing = gateway("find-symbol", "nothing_like_this", cwd=workspace)
    assert missing.returncode == 1


def test_replace_symbol_from_file(workspace: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    body = tmp_path_factory.mktemp("input") / "area.py"
    body.write_text("def area(width, height):\n    return float(width * height)\n")
    done = gateway("replace-symbol", "area", "pkg/shapes.py", "--body-file", str(body), "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert OPERATION_FIELDS <= set(result) and result["ok"] is True
    assert (result["operation"], result["name_path"], result["path"], result["start_line"], result["end_line"]) == (
        "replace_symbol", "area", "pkg/shapes.py", 28, 29)
    assert "+    return float(width * height)" in result["diff"]


def test_insert_remove_rename(workspace: Path) -> None:
    insert = gateway("insert-code", "area", "pkg/shapes.py", "--code", "def volume(w, h, d):\n    return w * h * d",
                     "--position", "after", "--json", cwd=workspace)
    assert json.loads(insert.stdout)["start_line"] == 32
    remove = gateway("remove-symbol", "volume", "pkg/shapes.py", "--json", cwd=workspace)
    assert json.loads(remove.stdout)["operation"] == "remove_symbol"
    assert (workspace / "pkg" / "shapes.py").read_text() == (FIXTURES / "python" / "pkg" / "shapes.py").read_text()
    rename = json.loads(gateway("rename-symbol", "area", "pkg/shapes.py", "surface", "--json", cwd=workspace).stdout)
    assert rename["files"] == ["pkg/shapes.py", "pkg/use.py"] and rename["new_name"] == "surface"
    text = gateway("remove-symbol", "perimeter", "pkg/shapes.py", cwd=workspace).stdout
    assert text.startswith("remove_symbol perimeter in pkg/shapes.py (lines 32-33) via lsp:zuban\n---")


@pytest.mark.parametrize(
    ("args", "kind"),
    [
        (("replace-symbol", "nope", "pkg/shapes.py", "--body", "def nope(): pass"), "not_found"),
        (("remove-symbol", "Shape/unit[4]", "pkg/shapes.py"), "not_found"),
        (("replace-symbol", "area", "pkg/shapes.py", "--body", "def area(:"), "syntax_error"),
        (("insert-code", "area", "../outside.py", "--code", "x = 1", "--position", "after"), "outside_workspace"),
        (("remove-symbol", "area", "pyproject.toml"), "file_not_found"),
    ],
)
def test_errors(workspace: Path, args: tuple[str, ...], kind: str) -> None:
    before = (workspace / "pkg" / "shapes.py").read_bytes()
    done = gateway(*args, "--json", cwd=workspace)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["ok"] is False and result["error"]["kind"] == kind
    assert done.stderr.count("\n") == 1
    assert (workspace / "pkg" / "shapes.py").read_bytes() == before


def test_servers_json(workspace: Path) -> None:
    rows = {r["language"]: r for r in json.loads(gateway("servers", "--json", cwd=workspace).stdout)["languages"]}
    assert rows["go"]["backend"] == "lsp:gopls" and rows["rust"]["backend"] == "tree-sitter"


HEADER_EDIT = ("edit", "shop.go", "--old", GO_OLD, "--new", GO_NEW, "--route")
ON_NEW_ERRORS = "[verify]\non_new_errors = \"{}\"\n"


def _on_new_errors(workspace: Path, policy: str) -> None:
    (workspace / ".gateway").mkdir(exist_ok=True)
    (workspace / ".gateway" / "config.toml").write_text(ON_NEW_ERRORS.format(policy))


@pytest.mark.workspace(copy=None, files=GO_WORKSPACE)
def test_a_header_change_breaking_a_caller_is_previewed_reported_and_refused_naming_the_caller(workspace: Path) -> None:
    """gopls: the caller in checkout.go that the new parameter breaks, in the preview (nothing
    written, exit 0), in the write's report (exit 0) and as the reason of a refusal (exit 3)."""
    preview = gateway(*HEADER_EDIT, "--dry-run", "--json", cwd=workspace)
    assert preview.returncode == 0, preview.stderr
    result = json.loads(preview.stdout)
    assert (result["applied"], result["dry_run"], result["decision"], result["verified"]) == (False, True, "routed", "checked")
    assert [(e["path"], e["line"]) for e in result["new_errors"]] == [("checkout.go", 4)]
    assert (workspace / "shop.go").read_text() == GO
    _on_new_errors(workspace, "refuse")
    for args in (HEADER_EDIT, (*HEADER_EDIT, "--dry-run")):  # a preview is refused as its write would be
        refused = gateway(*args, "--json", cwd=workspace)
        assert refused.returncode == 3, refused.stderr
        error = json.loads(refused.stdout)["error"]
        assert error["kind"] == "new_errors" and "checkout.go:4" in error["message"]
        assert refused.stderr.startswith("gateway: ") and "\n  checkout.go:4:" in refused.stderr
        assert (workspace / "shop.go").read_text() == GO
    _on_new_errors(workspace, "report")
    done = gateway(*HEADER_EDIT, cwd=workspace)
    assert done.returncode == 0 and (workspace / "shop.go").read_text() == GO.replace(GO_OLD, GO_NEW), done.stderr
    assert "new error(s):\n  checkout.go:4:" in done.stdout and "not enough arguments in call to Total" in done.stdout
