"""A refusal's advice is true: it suggests only what can succeed, and says each command once
(in process, tree-sitter only: nothing is started)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Blocked, UsageError
from gateway.surfaces import render
from gateway.surfaces.cli import run as cli

SOURCE = "def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n"
RETRY = "Or rerun with --route"


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    (tmp_path / "shapes.py").write_text(SOURCE)
    (tmp_path / "use.py").write_text("from shapes import area\n\nprint(area(1, 2))\n")  # a rename by text leaves it behind
    return tmp_path


def _edit(workspace: Path, old: str, new: str, *flags: str) -> int:
    return cli(["edit", "shapes.py", "--old", old, "--new", new, "--workspace", str(workspace), *flags])


@pytest.mark.parametrize("old, new, refused", [
    ("return width * height", "return width * (height", "would add a syntax error at line 2"),
    ("def area(width", "def surface(width", "gateway rename-symbol area shapes.py surface"),
])
def test_no_rerun_with_route_is_offered_where_route_refuses_too(workspace: Path, capsys: pytest.CaptureFixture[str],
                                                                 old: str, new: str, refused: str) -> None:
    assert _edit(workspace, old, new) == 3
    said = capsys.readouterr().out
    assert refused in said and RETRY not in said
    assert _edit(workspace, old, new, "--route") == 3  # what it would have offered: refused again
    assert refused in capsys.readouterr().out
    assert (workspace / "shapes.py").read_text() == SOURCE


def test_rerun_with_route_is_offered_for_a_change_symbol_operations_make(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _edit(workspace, "def perimeter(width, height):\n    return 2 * (width + height)\n", "") == 3
    assert RETRY in capsys.readouterr().out and (workspace / "shapes.py").read_text() == SOURCE


def test_a_rename_by_text_is_refused_naming_its_command_once(workspace: Path) -> None:
    with Gateway(workspace, use_servers=False) as gateway, pytest.raises(Blocked) as refused:
        gateway.edit("shapes.py", "def area(width", "def surface(width", route=True)
    said = render.message(refused.value)
    assert said.count("gateway rename-symbol area shapes.py surface") == 1, said
    assert "Not routed: it renames `area` to `surface` by text, which leaves the references to the old name at use.py:1, use.py:3 behind" in said
    assert (workspace / "shapes.py").read_text() == SOURCE


READER_TS = ('export class Reader {\n  #isJson(text: string): boolean {\n    return text.startsWith("{");\n  }\n\n'
             '  read(text: string): boolean {\n    return this.#isJson(text);\n  }\n}\n')


@pytest.mark.parametrize("name_path, new_name, said", [
    ("Reader/#isJson", "looksJson", "renaming the private #isJson to looksJson would make it public (a typescript name starting with # is "
     "private to its class); rename it to #looksJson to keep it private; nothing renamed"),
    ("Reader/read", "#read", "renaming read to #read would make it private to its class (a typescript name starting with #), breaking "
     "its uses outside the class; give a name without #; nothing renamed"),
    ("Reader/#isJson", "#1x", "'#1x' is not an identifier"),
])
def test_a_rename_neither_makes_a_private_name_public_nor_the_reverse(tmp_path: Path, name_path: str, new_name: str, said: str) -> None:
    (tmp_path / "reader.ts").write_text(READER_TS)
    with Gateway(tmp_path, use_servers=False) as gateway, pytest.raises(UsageError) as refused:
        gateway.rename_symbol(name_path, "reader.ts", new_name)
    assert str(refused.value) == said
    assert (tmp_path / "reader.ts").read_text() == READER_TS
