"""Applying allowed edits: exact matching, atomic writes that keep the file's form, refusals."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import (
    Ambiguous,
    BinaryFile,
    Blocked,
    FileMissing,
    GatewayError,
    NotFound,
    OutsideWorkspace,
    Stale,
    UndecodableFile,
    Unencodable,
    UsageError,
)
from gateway.workspace import Workspace

SOURCE = "def f():\n    x = 1\n    y = 2\n    return x + y\n"


def _write(path: Path, data: bytes, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)
    return path


def _state(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), stat.S_IMODE(path.stat().st_mode)


def _no_temp_files(directory: Path) -> bool:
    return not [p for p in directory.rglob("*") if p.name.endswith(".gateway-tmp")]


def test_applies_allowed_edit(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.py", SOURCE.encode())
    result = Gateway(tmp_path).edit("m.py", "    x = 1\n    y = 2", "    x = 10\n    y = 20")
    assert path.read_text() == "def f():\n    x = 10\n    y = 20\n    return x + y\n"
    assert (result.replacements, result.lines, result.path) == (1, (2,), "m.py")
    assert "-    x = 1\n-    y = 2\n+    x = 10\n+    y = 20\n" in result.diff
    assert _no_temp_files(tmp_path)


def test_blocked_edit_leaves_file_identical(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.py", SOURCE.encode())
    before = _state(path)
    with pytest.raises(Blocked) as refused:
        Gateway(tmp_path).edit("m.py", "def f():\n    x = 1", "def g():\n    x = 1")
    assert refused.value.classification.suggested_tool == "rename_symbol"
    assert _state(path) == before


@pytest.mark.parametrize(
    ("data", "old", "new", "expected"),
    [
        (b"\xef\xbb\xbfx = 1\ny = 2\n", "x = 1", "x = 3", b"\xef\xbb\xbfx = 3\ny = 2\n"),
        (b"x = 1\r\ny = 2\r\n", "x = 1\ny = 2", "x = 3\ny = 4", b"x = 3\r\ny = 4\r\n"),
        (b"x = 1\r\ny = 2\r\n", "x = 1\r\ny = 2", "x = 3\r\ny = 4", b"x = 3\r\ny = 4\r\n"),
        (b"x = 1\r\ny = 2\nz = 3\r\n", "y = 2", "y = 5", b"x = 1\r\ny = 5\nz = 3\r\n"),
        (b"# -*- coding: latin-1 -*-\ns = '\xe9t\xe9'\n", "s = '\u00e9t\u00e9'", "s = '\u00e9'",
         b"# -*- coding: latin-1 -*-\ns = '\xe9'\n"),
        (b"name = 'caf\xc3\xa9'\nn = 1", "n = 1", "n = 2", b"name = 'caf\xc3\xa9'\nn = 2"),
    ],
    ids=["utf8-bom", "crlf", "crlf-old-string", "mixed-endings", "latin1-cookie", "no-final-newline"],
)
def test_keeps_encoding_bom_and_line_endings(tmp_path: Path, data: bytes, old: str, new: str, expected: bytes) -> None:
    path = _write(tmp_path / "m.py", data)
    Gateway(tmp_path).edit("m.py", old, new)
    assert path.read_bytes() == expected


def test_keeps_mode(tmp_path: Path) -> None:
    path = _write(tmp_path / "run.py", SOURCE.encode(), mode=0o755)
    Gateway(tmp_path).edit("run.py", "x = 1", "x = 2")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755


def test_replace_all(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.py", b"a = 1\nb = a\nc = a\n")
    result = Gateway(tmp_path).edit("m.py", "= a", "= z", replace_all=True)
    assert path.read_bytes() == b"a = 1\nb = z\nc = z\n"
    assert result.lines == (2, 3)


def test_absolute_path_inside_workspace(tmp_path: Path) -> None:
    path = _write(tmp_path / "pkg" / "m.py", SOURCE.encode())
    result = Gateway(tmp_path).edit(str(path), "x = 1", "x = 2")
    assert result.path == "pkg/m.py"


def test_symlink_inside_workspace_edits_target(tmp_path: Path) -> None:
    target = _write(tmp_path / "real.py", SOURCE.encode())
    (tmp_path / "link.py").symlink_to(target)
    Gateway(tmp_path).edit("link.py", "x = 1", "x = 2")
    assert (tmp_path / "link.py").is_symlink()
    assert "x = 2" in target.read_text()


def _refusals(tmp_path: Path) -> list[tuple[str, str, str, type[GatewayError]]]:
    return [
        ("m.py", "nowhere", "x", NotFound),
        ("m.py", "    ", "\t", Ambiguous),
        ("m.py", "", "x", UsageError),
        ("m.py", "x = 1", "x = 1", UsageError),
        ("missing.py", "x", "y", FileMissing),
        ("../outside.py", "x = 1", "x = 2", OutsideWorkspace),
        (str(tmp_path.parent / "outside.py"), "x = 1", "x = 2", OutsideWorkspace),
        ("escape.py", "x = 1", "x = 2", OutsideWorkspace),
        ("blob.py", "x", "y", BinaryFile),
        ("bad.py", "x", "y", UndecodableFile),
        ("latin.py", "x = 1", "x = '\u20ac'", Unencodable),
    ]


def test_refusals_leave_every_file_identical(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    outside = _write(tmp_path / "outside.py", SOURCE.encode())
    files = [
        _write(workspace / "m.py", SOURCE.encode()),
        _write(workspace / "blob.py", b"x = 1\x00\x01\x02"),
        _write(workspace / "bad.py", b"x = '\xff\xfe'\n"),
        _write(workspace / "latin.py", b"# coding: latin-1\nx = 1\n"),
        outside,
    ]
    (workspace / "escape.py").symlink_to(outside)
    before = [_state(f) for f in files]
    gateway = Gateway(workspace)
    for path, old, new, error in _refusals(tmp_path):
        with pytest.raises(error) as raised:
            gateway.edit(path, old, new)
        assert "\n" not in str(raised.value)
    assert [_state(f) for f in files] == before
    assert _no_temp_files(tmp_path)


def test_ambiguous_message_lists_lines(tmp_path: Path) -> None:
    _write(tmp_path / "m.py", b"a = 1\nb = 2\na = 1\n")
    with pytest.raises(Ambiguous, match=r"occurs 2 times in m.py \(lines 1, 3\)"):
        Gateway(tmp_path).edit("m.py", "a = 1", "a = 2")


def test_stale_file_is_not_overwritten(tmp_path: Path) -> None:
    path = _write(tmp_path / "m.py", SOURCE.encode())
    workspace = Workspace(tmp_path)
    source = workspace.read("m.py")
    path.write_bytes(b"changed by someone else\n")
    with pytest.raises(Stale):
        workspace.write(source, source.text.replace("x = 1", "x = 2"))
    assert path.read_bytes() == b"changed by someone else\n"
    assert _no_temp_files(tmp_path)


def test_concurrent_edits_on_one_file_lose_nothing(tmp_path: Path) -> None:
    lines = [f"v{i} = 0\n" for i in range(24)]
    path = _write(tmp_path / "m.py", "".join(lines).encode())
    gateway = Gateway(tmp_path)
    errors: list[BaseException] = []

    def bump(i: int) -> None:
        try:
            gateway.edit("m.py", f"v{i} = 0\n", f"v{i} = {i + 1}\n")
        except BaseException as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=bump, args=(i,)) for i in range(24)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert path.read_text() == "".join(f"v{i} = {i + 1}\n" for i in range(24))


def test_workspace_must_exist(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        Gateway(tmp_path / "nope")
    assert os.path.exists(tmp_path)


@pytest.mark.usefixtures("servers")
def test_public_api(tmp_path: Path) -> None:
    from gateway import Classification, Gateway, classify_edit

    (tmp_path / "m.py").write_text(SOURCE)
    with Gateway(tmp_path) as gateway:
        verdict = gateway.classify("m.py", "def f():\n    x = 1", "def g():\n    x = 1")
        assert isinstance(verdict, Classification) and verdict.blocked
        assert gateway.replace_symbol("f", "m.py", "def f():\n    return 0").to_json()["backend"] == "lsp:zuban"
    assert classify_edit("m.py", "a", "b", content="a\n").decision == "allow"
