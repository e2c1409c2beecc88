"""The snapshot's stat cache (issue 36): a scan compared with an earlier snapshot reads again only
the files whose stat changed, or that were written within RACY_NS of that snapshot; a write that
puts size and mtime back still changes the ctime, so it is still caught. Outside git (no process
of the workspace's is run): the files are walked."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gateway import snapshot
from gateway.statcache import StatCache
from gateway.snapshot import RACY_NS, FileState, Snapshot, compare, scan, take
from gateway.userstate import canonical, sign, signed_canonical, signed_json, verified

pytestmark = pytest.mark.usefixtures("processes")  # the listing asks git (which answers: not a repository)


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (root / "pkg" / f"{name}.py").write_text(f"def {name}():\n    return 1\n")
    return root


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the scans read from now on (each read still done by the real `read_file`)."""
    read, seen = snapshot.read_file, []

    def counted(root: Path, path: str) -> tuple[bytes, os.stat_result] | None:
        seen.append(path)
        return read(root, path)

    monkeypatch.setattr(snapshot, "read_file", counted)
    return seen


def _settled(before: Snapshot) -> Snapshot:
    """`before` as if taken RACY_NS after its files were last written (so that its stats are trusted)."""
    return Snapshot(before.files, before.taken_at + 1.5 * RACY_NS / 1e9)


def test_a_scan_reads_again_only_the_file_whose_stat_changed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, objects = _workspace(tmp_path), tmp_path / "objects"
    before = _settled(take(root, objects))
    (root / "pkg" / "b.py").write_text("def b(x):\n    return x\n")
    reads = _reads(monkeypatch)
    changes = compare(root, before, objects)
    assert [(c.path, c.what) for c in changes] == [("pkg/b.py", "changed")]
    assert reads == ["pkg/b.py"]


def test_a_write_that_puts_size_and_mtime_back_is_still_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, objects = _workspace(tmp_path), tmp_path / "objects"
    target = root / "pkg" / "a.py"
    before = _settled(take(root, objects))
    old = target.stat()
    target.write_text("def z():\n    return 2\n")  # the same size
    os.utime(target, ns=(old.st_atime_ns, old.st_mtime_ns))  # `touch -d` back: only the ctime says it was written
    assert (target.stat().st_size, target.stat().st_mtime_ns) == (old.st_size, old.st_mtime_ns)
    reads = _reads(monkeypatch)
    assert [(c.path, c.what) for c in compare(root, before, objects)] == [("pkg/a.py", "changed")]
    assert reads == ["pkg/a.py"]


def test_a_file_written_within_the_racy_window_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, objects = _workspace(tmp_path), tmp_path / "objects"
    before = take(root, objects)  # its files were written just before it: their stats are not trusted yet
    reads = _reads(monkeypatch)
    assert compare(root, before, objects) == []
    assert sorted(reads) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"]


def test_a_scan_with_a_mirror_reads_a_state_kept_without_its_blob(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, objects = _workspace(tmp_path), tmp_path / "objects"
    before = _settled(Snapshot(scan(root, objects), take(root, objects).taken_at))  # no second copies
    reads = _reads(monkeypatch)
    now = scan(root, objects, mirrored=set(), known=before)
    assert sorted(reads) == ["pkg/a.py", "pkg/b.py", "pkg/c.py"] and all(s.blob for s in now.values())


def test_a_watched_scan_reads_only_what_the_watch_names_and_finds_what_a_full_scan_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the watch's events (`changed`): a file with an event, a new one, a gone one and one
    kept without its stat (read again whatever the watch says) are looked at; nothing else is
    read, and the changes are the ones the full scan finds."""
    root, objects = _workspace(tmp_path), tmp_path / "objects"
    taken = take(root, objects)
    before = _settled(Snapshot({**taken.files, "pkg/c.py": FileState(taken.files["pkg/c.py"].mode, "0" * 64)}, taken.taken_at))
    (root / "pkg" / "a.py").write_text("def a(x):\n    return x\n")
    (root / "pkg" / "b.py").unlink()
    (root / "pkg" / "d.py").write_text("def d():\n    return 4\n")
    listing = {"pkg/a.py", "pkg/c.py", "pkg/d.py"}
    reads = _reads(monkeypatch)
    watched = scan(root, objects, set(before.files), known=before, listing=listing, changed={"pkg/a.py", "pkg/b.py", "pkg/d.py"})
    assert sorted(reads) == ["pkg/a.py", "pkg/b.py", "pkg/c.py", "pkg/d.py"]  # b: tried, found gone
    again = snapshot.reconsidered(before.files, snapshot.Scope(listing, keep_known=True), {"pkg/a.py", "pkg/b.py", "pkg/d.py"}, False)
    full = scan(root, objects, set(before.files), known=before, listing=listing)
    assert watched == full
    expected = [("pkg/a.py", "changed"), ("pkg/b.py", "deleted"), ("pkg/c.py", "changed"), ("pkg/d.py", "created")]
    for seen in (snapshot.differences(before.files, watched, root, listing, again), snapshot.differences(before.files, full, root, listing)):
        assert [(c.path, c.what) for c in seen] == expected


def test_file_states_keep_their_stat_in_json_and_read_the_older_form() -> None:
    state = FileState(0o644, "ab" * 32, "cd" * 20, (10, 2, 3, 4, 0o100644))
    assert FileState.from_json(state.to_json()) == state
    assert FileState.from_json([0o644, "ab" * 32]) == FileState(0o644, "ab" * 32)
    assert FileState.from_json([0o644, "ab" * 32, "cd" * 20]).stat == ()


def test_a_record_signed_as_text_is_the_signed_record_with_a_shared_field_serialized_once() -> None:
    shared = {"files": {"a.py": [0o644, "ab" * 32]}, "taken_at": 1.5}
    record = {"workspace": "/w/ü", "key_id": "k", "baseline": shared}
    text = signed_json(record, "witness", {"baseline": canonical(shared)})
    assert json.loads(text) == sign(record, "witness")
    assert verified(json.loads(text), "witness", "w") == record
    assert json.loads(signed_canonical(canonical(shared), "baseline")) == sign(shared, "baseline")


def test_a_cached_record_is_dropped_once_its_file_is_written_even_with_size_and_mtime_put_back(tmp_path: Path) -> None:
    path, cache = tmp_path / "record.json", StatCache[str]()
    path.write_text('{"a": 1}')
    cache.put(path, "parsed", "key")
    assert cache.get(path, "key") == "parsed" and cache.get(path, "another key") is None
    old = path.stat()
    time.sleep(0.05)  # past the clock tick of the cached stat (a write within it would keep the ctime)
    with open(path, "r+") as handle:  # in place: the same inode
        handle.write('{"a": 2}')
    os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))
    assert cache.get(path, "key") is None
    path.unlink()
    assert cache.get(path, "key") is None
