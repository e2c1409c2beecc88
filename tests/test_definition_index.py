"""Workspace-wide find-symbol from the definition index (gateway.symbols.index): the same answers
as a fresh parse of every file, kept current across changes the stat check sees and ones it
cannot, one index per workspace, a damaged or foreign index rebuilt, links and unreadable files
left out, progress while it builds. In process, tree-sitter only: nothing is started."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from gateway import progress
from gateway.api import Gateway
from gateway.errors import UsageError
from gateway.langs import default_registry
from gateway.namepath import NamePath
from gateway.symbols.model import nearest_name_paths
from gateway.symbols.structure import structure
from gateway.workspace import Workspace

FILES = {
    "shapes.py": "class Shape:\n    def area(self):\n        return 0\n\n    def scale(self, k):\n        return self\n\n\ndef area(w, h):\n    return w * h\n",
    "pkg/__init__.py": "",
    "pkg/geometry.py": "def area(r):\n    return 3 * r * r\n\n\nclass Circle:\n    def area(self):\n        return 1\n",
    "pkg/sub/deep.py": "def helper():\n    return 1\n\n\nclass Shape:\n    pass\n",
    "web/app.js": "export function area(w, h) {\n  return w * h;\n}\n\nclass Widget {\n  area() {\n    return 0;\n  }\n}\n",
    "cmd/main.go": "package main\n\nfunc area(w int) int {\n\treturn w\n}\n\ntype Shape struct{}\n\nfunc (s Shape) Area() int {\n\treturn 0\n}\n",
    "notes.txt": "def area(): not code\n",
}
NAMES = ["area", "Shape/area", "/Shape", "area[2]", "area[99]", "Shape", "helpr", "Circle/area", "Widget/area", "Area"]


def _workspace(root: Path, files: dict[str, str] = FILES) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root.resolve()


def _fresh_parse(root: Path, name: str) -> tuple[list[tuple[str, str, int, int]], list[str]]:
    """What `name` finds by parsing every regular source file now, in the walk's order."""
    registry = default_registry()
    workspace = Workspace(root, registry)
    files = []
    for directory, subdirs, entries in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for entry in sorted(entries):
            path = Path(directory) / entry
            lang = registry.for_path(entry)
            if lang is not None and lang.symbol_backend and not path.is_symlink() and path.is_file():
                source = workspace.read(path)
                files.append((source.display, structure(lang, source.text)))
    pattern = NamePath.parse(name)
    found = [(display, s) for display, symbols in files for s in symbols if pattern.matches(s.name_path)]
    if pattern.index is not None:
        found = found[pattern.index : pattern.index + 1]
    nearest = [] if found else nearest_name_paths([s for _, symbols in files for s in symbols], pattern)
    return [(display, s.name_path, s.start_line, s.end_line) for display, s in found], nearest


def _found(root: Path, name: str, body: bool = False) -> tuple[list[tuple[str, str, int, int]], list[str]]:
    with Gateway(root, use_servers=False) as gateway:
        result = gateway.find_symbol(name, body=body).to_json()
    return [(m["path"], m["name_path"], m["start_line"], m["end_line"]) for m in result["matches"]], result["nearest"]


def _trust_every_stat(monkeypatch: pytest.MonkeyPatch) -> None:
    """No racy window: only the stat check decides whether a file is read again."""
    monkeypatch.setattr("gateway.symbols.index.RACY_NS", -(10**18))


def index_path(root: Path) -> Path:
    from gateway.symbols.index_store import index_path

    return index_path(root)


def IndexStore(root: Path):  # type: ignore[no-untyped-def]  # noqa: N802 - the store, imported when used
    from gateway.symbols.index_store import IndexStore

    return IndexStore(root)


def test_the_index_answers_as_a_fresh_parse_cold_and_from_disk(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    for name in NAMES:
        assert _found(root, name) == _fresh_parse(root, name), name
    assert index_path(root).is_file()
    for name in NAMES:  # a new process's view: the index read from disk
        assert _found(root, name) == _fresh_parse(root, name), name
    assert _found(root, "area")[0][0] == ("shapes.py", "Shape/area", 2, 3)


def test_the_body_is_the_files_text(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    with Gateway(root, use_servers=False) as gateway:
        found = gateway.find_symbol("Circle/area", body=True).to_json()["matches"]
    assert [(m["path"], m["body"]) for m in found] == [("pkg/geometry.py", "    def area(self):\n        return 1")]


def test_a_change_keeping_size_and_mtime_is_seen_by_ctime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trust_every_stat(monkeypatch)
    root = _workspace(tmp_path)
    assert _found(root, "helper")[0] == [("pkg/sub/deep.py", "helper", 1, 2)]
    deep = root / "pkg" / "sub" / "deep.py"
    before = deep.stat()
    deep.write_text(deep.read_text().replace("def helper(", "def helpex("))
    os.utime(deep, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (deep.stat().st_size, deep.stat().st_mtime_ns, deep.stat().st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    assert _found(root, "helpex")[0] == [("pkg/sub/deep.py", "helpex", 1, 2)]
    assert _found(root, "helper") == _fresh_parse(root, "helper")


def test_a_file_changed_within_the_racy_window_is_hashed_again_until_it_is_older(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A change in the same clock tick as the check would leave the stat as recorded: a file
    that recent is not trusted on its stat, only once it is older than the window."""
    root = _workspace(tmp_path)
    _found(root, "area")  # every file written just now
    assert {entry.stat for entry in IndexStore(root).files().values()} == {None}
    later = time.time_ns() + 3 * 10**9
    monkeypatch.setattr("gateway.symbols.index.time", SimpleNamespace(time_ns=lambda: later))
    _found(root, "area")  # hashed again, and now older than the window
    assert None not in {entry.stat for entry in IndexStore(root).files().values()}


def test_an_entry_whose_content_is_not_the_files_is_never_served_with_its_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The content key is the safety net: an entry claiming other bytes than the file holds
    (what a change the stat could not see would leave) is caught when the file's text is read."""
    _trust_every_stat(monkeypatch)
    root = _workspace(tmp_path)
    _found(root, "area")
    store = IndexStore(root)
    geometry = store.files()["pkg/geometry.py"]
    store.connection.execute("UPDATE files SET digest = ? WHERE path = 'shapes.py'", (geometry.digest,))  # shapes.py said to hold geometry.py
    with Gateway(root, use_servers=False) as gateway:
        found = gateway.find_symbol("area", body=True).to_json()["matches"]
    assert [(m["path"], m["name_path"]) for m in found] == [(p, n) for p, n, _, _ in _fresh_parse(root, "area")[0]]
    assert found[0]["body"] == "    def area(self):\n        return 0"


def test_deleted_and_added_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _trust_every_stat(monkeypatch)
    root = _workspace(tmp_path)
    _found(root, "area")
    (root / "pkg" / "geometry.py").unlink()
    (root / "pkg" / "extra.py").write_text("class Circle:\n    def area(self):\n        return 2\n")
    (root / "pkg" / "sub" / "deep.py").rename(root / "pkg" / "sub" / "moved.py")
    for name in ("area", "Circle/area", "helper", "Shape"):
        assert _found(root, name) == _fresh_parse(root, name), name
    store = IndexStore(root)
    assert set(store.files()) == {"shapes.py", "pkg/__init__.py", "pkg/extra.py", "pkg/sub/moved.py", "web/app.js", "cmd/main.go"}
    assert store.contents() == {entry.content for entry in store.files().values()}  # geometry.py's content dropped with it
    (root / "pkg" / "twin.py").write_text(FILES["shapes.py"])
    (root / "shapes.py").unlink()
    assert _found(root, "Shape/scale")[0] == [("pkg/twin.py", "Shape/scale", 5, 6)]
    assert store.contents() == {entry.content for entry in store.files().values()}  # still held by twin.py


def test_a_corrupt_index_is_rebuilt_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _workspace(tmp_path)
    _found(root, "area")
    for suffix in ("-wal", "-shm"):
        Path(f"{index_path(root)}{suffix}").unlink(missing_ok=True)
    index_path(root).write_bytes(b"this is not a database, it was overwritten" * 100)
    capsys.readouterr()
    assert _found(root, "area") == _fresh_parse(root, "area")
    warning = capsys.readouterr().err.strip().splitlines()
    assert len(warning) == 1 and "definition index" in warning[0] and "rebuilding it" in warning[0]
    assert sqlite3.connect(index_path(root)).execute("SELECT value FROM meta WHERE key = 'root'").fetchone() == (str(root),)


def test_two_workspaces_do_not_share_entries_and_a_foreign_index_is_not_trusted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first = _workspace(tmp_path / "a", {"m.py": "def alpha():\n    pass\n"})
    second = _workspace(tmp_path / "b", {"m.py": "def beta():\n    pass\n"})
    assert _found(first, "alpha")[0] == [("m.py", "alpha", 1, 2)]
    assert _found(second, "alpha")[0] == []
    assert index_path(first) != index_path(second)
    for suffix in ("", "-wal", "-shm"):  # a's index copied over b's: it names the other workspace
        Path(f"{index_path(second)}{suffix}").unlink(missing_ok=True)
    sqlite3.connect(index_path(first)).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    index_path(second).write_bytes(index_path(first).read_bytes())
    capsys.readouterr()
    assert _found(second, "alpha")[0] == [] and _found(second, "beta")[0] == [("m.py", "beta", 1, 2)]
    assert "belongs to another workspace" in capsys.readouterr().err


def test_links_and_files_outside_are_not_indexed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.py").write_text("def far_away():\n    pass\n")
    (tmp_path / "ws").mkdir()
    root = _workspace(tmp_path / "ws")
    (root / "far.py").symlink_to(outside / "far.py")
    (root / "again.py").symlink_to(root / "shapes.py")
    (root / "linked_dir").symlink_to(outside)
    os.mkfifo(root / "pipe.py")
    assert _found(root, "far_away") == _fresh_parse(root, "far_away") == ([], ["area"])
    assert [path for path, *_ in _found(root, "Shape/scale")[0]] == ["shapes.py"]
    assert not {"far.py", "again.py", "pipe.py", "linked_dir/far.py"} & set(IndexStore(root).files())


def test_a_file_too_large_to_read_is_left_out_not_fatal(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text("[gate]\nmax_file_bytes = 1000\n")
    (root / "big.py").write_text("def big():\n    pass\n" + "# padding\n" * 200)
    assert _found(root, "Circle")[0] == [("pkg/geometry.py", "Circle", 5, 7)]
    assert _found(root, "big")[0] == []


def test_a_cold_build_says_files_done_of_total(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.symbols import index

    root = _workspace(tmp_path)
    said: list[str] = []
    read = index.read_file

    def read_and_listen(*args):  # type: ignore[no-untyped-def]
        said.append(reporter.message())
        return read(*args)

    monkeypatch.setattr(index, "read_file", read_and_listen)
    with Gateway(root, use_servers=False) as gateway, progress.reporting(lambda update: None, "find_symbol", after=3600) as reporter:
        gateway.find_symbol("area")
    assert said == [f"find_symbol: indexing definitions: {n}/6 files" for n in range(6)]


def test_a_bad_config_is_said_not_taken_for_unreadable_files(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text("[gate]\nmax_file_bytes = -1\n")
    with Gateway(root, use_servers=False) as gateway, pytest.raises(UsageError, match="max_file_bytes must be a positive integer"):
        gateway.find_symbol("area")


def _many(root: Path, copies: int) -> Path:
    """FILES, and `copies` more files of each source file's text with a line of their own."""
    files = dict(FILES)
    for n in range(copies):
        for name, text in FILES.items():
            if name.endswith((".py", ".js", ".go")) and text:
                stem, dot, ext = name.rpartition(".")
                comment = "//" if ext in ("js", "go") else "#"
                files[f"more{n}/{stem}{n}{dot}{ext}"] = f"{text}{comment} copy {n}\n"
    return _workspace(root, files)


@pytest.mark.usefixtures("processes")
def test_a_large_build_shared_among_workers_answers_as_a_fresh_parse(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.symbols import index_workers

    monkeypatch.setattr(index_workers, "PARALLEL_FROM", 10)
    monkeypatch.setattr("gateway.symbols.index.workers_for", lambda files: 2 if files else 0)
    started = []
    popen = subprocess.Popen

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        started.append(args[0])
        return popen(*args, **kwargs)

    monkeypatch.setattr(index_workers.subprocess, "Popen", counted)
    root = _many(tmp_path, 8)
    for name in NAMES:
        assert _found(root, name) == _fresh_parse(root, name), name
    assert len(started) == 2 and all(command[-1] == "gateway.symbols.index_workers" for command in started)


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("worker", ["/nonexistent/python", "/bin/false"])
def test_files_a_worker_fails_are_read_in_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, worker: str) -> None:
    from gateway.symbols import index_workers

    monkeypatch.setattr("gateway.symbols.index.workers_for", lambda files: 2 if files else 0)
    monkeypatch.setattr(index_workers.sys, "executable", worker)
    root = _many(tmp_path, 3)
    for name in ("area", "Shape", "helper"):
        assert _found(root, name) == _fresh_parse(root, name), name
