"""What a symbol operation must never do: break the syntax, lose a definition, trust a stale
server copy, half-write a multi-file rename, or change line endings."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import SyntaxBroken, WriteFailed
from tests.faults import fail_nth_write

pytestmark = pytest.mark.usefixtures("servers")

FIXTURES = Path(__file__).parent / "fixtures"
CLASS = "class A:\n    def only(self):\n        return 1\n\n\ndef f():\n    return 2\n"


@pytest.mark.parametrize("use_servers", [False, True], ids=["tree-sitter", "server"])
@pytest.mark.parametrize(
    ("operation", "args", "reason"),
    [
        ("replace_symbol", ("f", "m.py", "def f(:\n    return 3"), "syntax error"),
        ("replace_symbol", ("f", "m.py", "x = 3"), "holds no definition"),
        ("remove_symbol", ("A/only", "m.py"), "syntax error"),
        ("insert_code", ("f", "m.py", "def g(\n", "after"), "syntax error"),
    ],
    ids=["broken-replacement", "definition-lost", "empty-class-body", "broken-insert"],
)
def test_refused_results_leave_file_identical(tmp_path: Path, use_servers: bool, operation: str, args: tuple[str, ...], reason: str) -> None:
    (tmp_path / "m.py").write_text(CLASS)
    with Gateway(tmp_path, use_servers=use_servers) as gateway:
        with pytest.raises(SyntaxBroken, match=reason):
            getattr(gateway, operation)(*args)
    assert (tmp_path / "m.py").read_text() == CLASS


def test_file_changed_behind_the_server_is_re_read(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    path = tmp_path / "pkg" / "shapes.py"
    with Gateway(tmp_path) as gateway:
        assert gateway.symbols("pkg/shapes.py").to_json()["backend"] == "lsp:zuban"
        original = path.read_text()
        shifted = original.replace("import functools\n", "import functools\nimport os\n\n\ndef helper():\n    return os.sep\n")
        path.write_text(shifted)  # another editor, behind the server's back
        gateway.replace_symbol("area", "pkg/shapes.py", "def area(width, height):\n    return abs(width * height)\n")
    assert path.read_text() == shifted.replace("    return width * height", "    return abs(width * height)")


def test_rename_is_all_files_or_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.py")}
    writes = fail_nth_write(monkeypatch, 2)
    with Gateway(tmp_path) as gateway, pytest.raises(WriteFailed):
        gateway.rename_symbol("area", "pkg/shapes.py", "surface")
    assert len(writes) == 2, "the first file was written before the failure"
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.py")} == before


@pytest.mark.parametrize("use_servers", [False, True], ids=["tree-sitter", "server"])
def test_crlf_and_mode_kept(tmp_path: Path, use_servers: bool) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(CLASS.replace("\n", "\r\n").encode())
    path.chmod(0o755)
    with Gateway(tmp_path, use_servers=use_servers) as gateway:
        gateway.replace_symbol("f", "m.py", "def f():\n    return 20\n")
    assert path.read_bytes() == CLASS.replace("return 2", "return 20").replace("\n", "\r\n").encode()
    assert path.stat().st_mode & 0o777 == 0o755
