"""The rule for removals and the export lists of a rename with the language servers running
(jedi or the configured Python server, gopls): the same refusal, its places from the server's references."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import StillReferenced
from tests.test_removals_and_renames import ADAPTERS, API, GO_COMMAND, GO_METHOD, GO_ROOT, GO_USER, GO_UTIL, HOOKS, PACKAGE, REMOVED, SESSION, UTIL

pytestmark = pytest.mark.usefixtures("servers")


def test_a_referenced_python_function_is_not_removed_by_a_text_edit(tmp_path: Path) -> None:
    for name, text in (("util.py", UTIL), ("sessions.py", SESSION), ("adapters.py", ADAPTERS)):
        (tmp_path / name).write_text(text)
    with Gateway(tmp_path) as gateway:
        with pytest.raises(StillReferenced) as by_remove:
            gateway.remove_symbol("get_auth_from_url", "util.py")
        with pytest.raises(StillReferenced) as by_edit:
            gateway.edit("util.py", REMOVED, "", route=True)
    assert str(by_edit.value).split("; nothing removed")[0] == str(by_remove.value).split("; nothing removed")[0]
    assert "sessions.py:5" in str(by_edit.value) and "adapters.py:5" in str(by_edit.value), by_edit.value
    assert (tmp_path / "util.py").read_text() == UTIL


def test_a_go_function_used_in_another_file_is_not_removed_by_a_text_edit(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_UTIL)
    (tmp_path / "use.go").write_text(GO_USER)
    with Gateway(tmp_path) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", "func HasParent() bool {\n\treturn true\n}\n\n", "", route=True)
    assert "command.go: HasParent is still referenced at use.go:4" in str(refused.value), refused.value
    assert (tmp_path / "command.go").read_text() == GO_UTIL


def test_a_go_method_called_in_another_file_is_not_removed_by_a_text_edit(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/cobra\n\ngo 1.21\n")
    (tmp_path / "command.go").write_text(GO_COMMAND)
    (tmp_path / "root.go").write_text(GO_ROOT)
    with Gateway(tmp_path) as gateway, pytest.raises(StillReferenced) as refused:
        gateway.edit("command.go", GO_METHOD, "", route=True)
    assert "command.go: Command/HasParent is still referenced at root.go:4" in str(refused.value), refused.value
    assert (tmp_path / "command.go").read_text() == GO_COMMAND


def test_a_server_rename_renames_the_export_lists_and_says_incomplete(tmp_path: Path) -> None:
    (tmp_path / "req").mkdir()
    (tmp_path / "req" / "api.py").write_text(API)
    (tmp_path / "req" / "__init__.py").write_text(PACKAGE)
    (tmp_path / "hooks.py").write_text(HOOKS)
    with Gateway(tmp_path) as gateway:
        result = gateway.rename_symbol("options", "req/api.py", "opts").to_json()
    assert result["backend"] != "tree-sitter", result
    assert "'options'" not in (tmp_path / "req" / "api.py").read_text() and '"options"' not in (tmp_path / "req" / "__init__.py").read_text()
    assert not result["complete"] and result["mentioned_in"] == ["hooks.py:3"], result


def test_a_module_constant_renamed_through_the_server_takes_its_export_list_entry(tmp_path: Path) -> None:
    (tmp_path / "models.py").write_text('__all__ = ["DEFAULT_REDIRECT_LIMIT"]\n\nDEFAULT_REDIRECT_LIMIT = 30\n')
    (tmp_path / "sessions.py").write_text("from models import *\n\nprint(DEFAULT_REDIRECT_LIMIT)\n")
    with Gateway(tmp_path) as gateway:
        result = gateway.rename_symbol("DEFAULT_REDIRECT_LIMIT", "models.py", "MAX_REDIRECTS").to_json()
    assert (tmp_path / "models.py").read_text() == '__all__ = ["MAX_REDIRECTS"]\n\nMAX_REDIRECTS = 30\n'
    assert (tmp_path / "sessions.py").read_text() == "from models import *\n\nprint(MAX_REDIRECTS)\n" and result["complete"], result
