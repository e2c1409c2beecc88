"""`edit --route`: blocked edits performed as symbol operations when the mapping is unambiguous."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Blocked
from tests.gate_cases import PYTHON, TYPESCRIPT
from tests.test_cli import gateway as run_cli

CLASSIFY = '    def classify(self):\n        classify = "def"\n        return classify\n'
OUTER = "def outer():\n    def inner():\n        return 1\n    return inner()\n"

ROUTED = [
    ("replace_decorated", PYTHON, "account.py",
     "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100",
     "    @staticmethod\n    def fee(amount):\n        return amount // 50",
     [{"operation": "replace_symbol", "name_path": "Account/fee"}], None),
    ("replace_two_in_order", PYTHON, "account.py", CLASSIFY + "\n\n" + OUTER,
     "    def classify(self):\n        return 'x'\n\n\ndef outer():\n    return 0\n",
     [{"operation": "replace_symbol", "name_path": "Account/classify"}, {"operation": "replace_symbol", "name_path": "outer"}], None),
    ("remove", PYTHON, "account.py", CLASSIFY, "",
     [{"operation": "remove_symbol", "name_path": "Account/classify"}],
     PYTHON.source.replace("\n" + CLASSIFY, "")),
    ("insert_after_kept_text", PYTHON, "account.py", "    return inner()\n", "    return inner()\n\n\ndef added():\n    return 2\n",
     [{"operation": "insert_code", "name_path": "outer", "position": "after"}], None),
    ("splice_method_into_class", PYTHON, "account.py", "        self.balance = 0",
     "        self.balance = 0\n\n    def deposit(self, amount):\n        self.balance += amount",
     [{"operation": "insert_code", "name_path": "Account/__init__", "position": "after"}], None),
    ("typescript_arrow", TYPESCRIPT, "shapes.ts",
     "export const double = async (x: number): Promise<number> => {\n  return x * 2;\n};",
     "export const double = async (x: number, y = 2): Promise<number> => {\n  return x * y;\n};",
     [{"operation": "replace_symbol", "name_path": "double"}], None),
]


@pytest.mark.parametrize("use_servers", [False, True], ids=["tree-sitter", "server"])
@pytest.mark.parametrize(("case", "sample", "name", "old", "new", "routed", "expected"), ROUTED, ids=[c[0] for c in ROUTED])
def test_routed(tmp_path: Path, use_servers: bool, case: str, sample: object, name: str, old: str, new: str,
                routed: list[dict[str, str]], expected: str | None) -> None:
    source = sample.source  # type: ignore[attr-defined]
    (tmp_path / name).write_text(source)
    with Gateway(tmp_path, use_servers=use_servers) as gateway:
        result = gateway.edit(name, old, new, route=True)
    assert list(result.routed) == routed
    assert result.to_json()["applied"] is True and result.to_json()["routed"] == routed
    assert (tmp_path / name).read_text() == (expected if expected is not None else source.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("    async def refresh(self):\n        # class Foo: a comment mentioning class and def",
         "    async def refresh(self, force=False):\n        # refreshed"),
        ("    def __init__(self, owner):\n        self.owner = owner", "    def __init__(self, owner):\n        self.owner = owner\n\n    def extra(self):\n        pass"),
        (CLASSIFY, "    def classify(self, strict):\n        return 1\n    x = 2\n"),
    ],
    ids=["header-and-half-a-body", "insert-after-partial-definition", "replacement-with-extra-statement"],
)
def test_partial_mappings_are_refused(tmp_path: Path, old: str, new: str) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked):
        gateway.edit("account.py", old, new, route=True)
    assert (tmp_path / "account.py").read_text() == PYTHON.source


def test_without_route_the_gate_refuses(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(Blocked):
        gateway.edit("account.py", CLASSIFY, "")


def test_cli_route_json(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    done = run_cli("edit", "account.py", "--old", CLASSIFY, "--new", "", "--route", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["applied"] is True and result["decision"] == "block"
    assert result["routed"] == [{"operation": "remove_symbol", "name_path": "Account/classify"}]
    assert result["backend"] == "lsp:jedi-language-server"
    assert result["message"].startswith("Routed: remove_symbol Account/classify in account.py")


def test_route_drops_a_decorator_old_string_covered(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    old = "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100"
    new = "    def fee(amount):\n        return amount // 50"
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.edit("account.py", old, new, route=True)
    assert (tmp_path / "account.py").read_text() == PYTHON.source.replace(old, new)


def test_route_keeps_a_decorator_old_string_left_out(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    old = "    def fee(amount):\n        return amount // 100"
    new = "    def fee(amount, rate=100):\n        return amount // rate"
    with Gateway(tmp_path, use_servers=False) as gateway:
        result = gateway.edit("account.py", old, new, route=True)
    assert result.routed == ({"operation": "replace_symbol", "name_path": "Account/fee"},)
    assert (tmp_path / "account.py").read_text() == PYTHON.source.replace(old, new)


def test_route_old_string_without_leading_indentation(tmp_path: Path) -> None:
    (tmp_path / "account.py").write_text(PYTHON.source)
    old = "@functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100"
    new = "@staticmethod\n    def fee(amount):\n        return amount // 50"
    with Gateway(tmp_path, use_servers=False) as gateway:
        gateway.edit("account.py", old, new, route=True)
    assert (tmp_path / "account.py").read_text() == PYTHON.source.replace(old, new)
