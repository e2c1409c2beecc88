"""Routing: a structural edit performed as verified symbol operations whose result is the edit's own.

The API and the CLI route on request (`route=True`, `--route`); every result is compared with
the text edit's result A, and a route that cannot be sound is refused with its reason.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Blocked
from gateway.surfaces import render
from tests.conftest import enforce_typed_edits
from tests.gate_cases import PYTHON, TYPESCRIPT
from tests.test_cli import gateway as run_cli
from tests.test_typed_grants import declare

CLASSIFY = '    def classify(self):\n        classify = "def"\n        return classify\n'
OUTER = "def outer():\n    def inner():\n        return 1\n    return inner()\n"
FEE = "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100"

# (id, sample, old, new, [(tool, name_path)...])
ROUTED = [
    ("replace_decorated", PYTHON, FEE, "    @staticmethod\n    def fee(amount):\n        return amount // 50",
     [("replace_symbol", "Account/fee")]),
    ("replace_two", PYTHON, CLASSIFY + "\n\n" + OUTER, "    def classify(self):\n        return 'x'\n\n\ndef outer():\n    return 0\n",
     [("replace_symbol", "Account/classify"), ("replace_symbol", "outer")]),
    ("remove", PYTHON, "\n" + CLASSIFY, "", [("remove_symbol", "Account/classify")]),
    ("insert_after_kept_text", PYTHON, "    return inner()\n", "    return inner()\n\n\ndef added():\n    return 2\n",
     [("insert_code", "outer")]),
    ("insert_method", PYTHON, "        self.balance = 0",
     "        self.balance = 0\n\n    def deposit(self, amount):\n        self.balance += amount", [("insert_code", "Account/__init__")]),
    ("header_and_half_a_body", PYTHON, "    async def refresh(self):\n        # class Foo: a comment mentioning class and def",
     "    async def refresh(self, force=False):\n        # refreshed", [("replace_symbol", "Account/refresh")]),
    ("class_statement_and_header", PYTHON, CLASSIFY, "    def classify(self, strict):\n        return 1\n    x = 2\n",
     [("replace_symbol", "Account")]),
    ("import_and_function", PYTHON, "import functools\n", "import functools\nimport os\n\n\ndef helper():\n    return os.sep\n",
     [("insert_code", "Account"), ("text", "/")]),
    ("typescript_arrow", TYPESCRIPT, "export const double = async (x: number): Promise<number> => {\n  return x * 2;\n};",
     "export const double = async (x: number, y = 2): Promise<number> => {\n  return x * y;\n};", [("replace_symbol", "double")]),
]


def _performed(result: dict[str, object]) -> list[tuple[str, str]]:
    return [(o["tool"], o["name_path"]) for o in result["operations"]]  # type: ignore[index,union-attr]


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("use_servers", [False, True], ids=["tree-sitter", "server"])
@pytest.mark.parametrize(("case", "sample", "old", "new", "operations"), ROUTED, ids=[c[0] for c in ROUTED])
def test_routed_result_is_the_edit(tmp_path: Path, use_servers: bool, case: str, sample: object, old: str, new: str,
                                   operations: list[tuple[str, str]]) -> None:
    source, name = sample.source, sample.filename  # type: ignore[attr-defined]
    (tmp_path / name).write_text(source)
    with Gateway(tmp_path, use_servers=use_servers) as gateway:
        result = gateway.edit(name, old, new, route=True).to_json()
    assert (result["decision"], result["applied"], result["exact"]) == ("routed", True, True)
    assert _performed(result) == operations
    assert result["backend"].startswith("lsp:" if use_servers else "tree-sitter")
    assert (tmp_path / name).read_text() == source.replace(old, new)


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("use_servers", [False, True], ids=["tree-sitter", "server"])
def test_rename_by_text_is_refused_with_the_rename_symbol_command(tmp_path: Path, use_servers: bool) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    (tmp_path / "use.py").write_text("from account import outer\n\nouter()\n")  # what a rename by text leaves behind
    old, new = "def outer():\n    def inner", "def outermost():\n    def inner"
    with Gateway(tmp_path, use_servers=use_servers) as gateway, pytest.raises(Blocked) as refused:
        gateway.edit("account.py", old, new, route=True)
    assert "Not routed: it renames `outer` to `outermost` by text, which leaves the references to the old name at use.py:1, use.py:3" in str(refused.value)
    assert render.message(refused.value).count("gateway rename-symbol outer account.py outermost") == 1  # said once
    assert (tmp_path / "account.py").read_text() == PYTHON.source


def test_broken_result_is_refused_as_a_syntax_error_not_routed(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked) as refused:
        gateway.edit("account.py", CLASSIFY, "    def classify(self:\n        return (\n", route=True)
    assert refused.value.classification.reason == "syntax_error" and "Not routed" not in str(refused.value)
    assert (tmp_path / "account.py").read_text() == PYTHON.source


def test_without_route_the_gate_refuses(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked):
        gateway.edit("account.py", CLASSIFY, "")


@pytest.mark.usefixtures("processes")
def test_cli_route_json(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    done = run_cli("edit", "account.py", "--old", CLASSIFY, "--new", "", "--route", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["decision"], result["applied"], result["exact"]) == ("routed", True, True)
    assert result["operations"] == [
        {"tool": "remove_symbol", "name_path": "Account/classify", "path": "account.py", "start_line": 26, "end_line": 28,
         "backend": "lsp:zuban"}
    ]
    assert result["message"].startswith("The gateway performed this write on account.py as remove_symbol `Account/classify`")


def test_routed_write_is_audited_with_its_operations(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    enforce_typed_edits(tmp_path)
    with Gateway(tmp_path, use_servers=False) as gateway:
        grant = declare(gateway, "account.py", kind="edit_cosmetic", test_files=[])
        gateway.edit("account.py", CLASSIFY, "", route=True, token=grant["token"])  # type: ignore[arg-type]
        consumed = [e for e in gateway.audit_log().to_json()["entries"] if e["phase"] == "consumed"]
    assert [o["tool"] for o in consumed[-1]["operations"]] == ["remove_symbol"]
    assert (tmp_path / "account.py").read_text() == PYTHON.source.replace(CLASSIFY, "")


@pytest.mark.usefixtures("servers")
def test_a_file_just_written_is_read_ahead_to_its_normalised_symbols(workspace: Path) -> None:
    """The daemon asks its server about a file a host has just written (`SymbolService.ahead`):
    the answer is read and normalised then too, so the next edit of that file finds its symbols."""
    from gateway.symbols import service as service_module, structure
    from gateway.syntax import parse, utf8

    path = (workspace / "pkg" / "shapes.py").resolve()
    text = path.read_text() + "\n\ndef added_later():\n    return 2\n"
    path.write_text(text)
    with Gateway(workspace) as gateway:
        gateway.symbol_service.asks_ahead = True
        gateway.symbol_service.ahead(path, text)
        for thread in threading.enumerate():
            if thread.name == "gateway-ask-ahead":
                thread.join(60)
        kept = [symbols for _, seen, symbols in list(service_module._normalized.values()) if seen == text]
        assert kept and "added_later" in [s.name_path for s in kept[-1]]
        lang = gateway.registry.for_path(path)
        assert lang is not None and structure._recall(lang, parse(lang, utf8(text))) is not None  # tree-sitter's, which a write is lifted on
        listing = gateway.symbols("pkg/shapes.py").to_json()
        assert listing["backend"].startswith("lsp:") and "added_later" in [s["name_path"] for s in listing["symbols"]]
