"""A watched check's cost follows the paths with events (issue 36): the listing is compared with
the last record through gateway.snapshot_delta, not whole, and finds what the whole comparison
finds; the shell check's record is split into bodies by path, so a changed file rewrites the one
body holding it, and a record read back by another process is the one saved; a few second
copies are written without asking git, and are copies git reads. The workspace's git is run
(the listing, the mirror), nothing of the workspace's own."""

from __future__ import annotations

import json
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from gateway import shell_record_bodies, shell_record_files, snapshot_store
from gateway.shell_record_bodies import Seen
from gateway.shell_record_files import Record, load, save
from gateway.snapshot import FileState, Scope, Snapshot, differences, scan
from gateway.snapshot_delta import apart, made_from, touched_since
from gateway.statcache import StatCache
from gateway.typed import arming

pytestmark = pytest.mark.usefixtures("processes")


def _seen(number: int) -> Seen:
    return Seen(FileState(0o644, f"{number:064x}"), (number, number, number, number))


def test_apart_carried_through_made_records_is_the_whole_comparison() -> None:
    listing = frozenset(f"p/{n}.py" for n in range(300))
    files: dict[str, object] = {f"p/{n}.py": n for n in range(5, 300)}
    files["gone.py"] = 1
    first = apart(listing, files)
    assert first.unheld == {f"p/{n}.py" for n in range(5)} and first.unlisted == {"gone.py"}
    chain = files
    for step, (add, drop) in enumerate([({"p/0.py", "new.py"}, {"p/7.py"}), ({"p/7.py"}, {"gone.py", "p/1.py"}), (set(), {"p/2.py"})]):
        made = {p: v for p, v in chain.items() if p not in drop} | {p: step for p in add}
        made_from(made, chain, add | drop)
        assert touched_since(made, chain) == add | drop
        found = apart(listing, made)
        assert found.unheld == listing - made.keys() and found.unlisted == made.keys() - listing
        chain = made
    assert touched_since(chain, files) is None  # only what made_from said


def test_a_watched_scan_not_keeping_the_known_paths_drops_those_no_longer_listed(tmp_path: Path) -> None:
    root, objects = tmp_path / "ws", tmp_path / "objects"
    (root / "pkg").mkdir(parents=True)
    for name in "abc":
        (root / "pkg" / f"{name}.py").write_text(f"def {name}():\n    return 1\n")
    before = Snapshot(scan(root, objects), 0.0)
    listing = {"pkg/a.py", "pkg/b.py"}
    now = scan(root, objects, known=before, listing=listing, changed=set())
    assert set(now) == {"pkg/a.py", "pkg/b.py"}
    kept = scan(root, objects, known=before, listing=listing, changed=set(), keep_known=True)
    assert set(kept) == {"pkg/a.py", "pkg/b.py", "pkg/c.py"}
    again = touched_since(now, before.files)
    assert again == {"pkg/c.py"}
    assert [(c.path, c.what) for c in differences(before.files, now, root, listing, again)] == [("pkg/c.py", "deleted")]
    assert Scope(listing).holds("pkg/a.py", before.files) and not Scope(listing).holds("pkg/c.py", before.files)


@pytest.fixture
def fresh_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process's view: nothing of the records kept in memory."""
    monkeypatch.setattr(shell_record_files, "_records", StatCache())
    monkeypatch.setattr(shell_record_files, "_bodies", StatCache(64))
    monkeypatch.setattr(shell_record_bodies, "_last", {})


def test_a_changed_file_rewrites_only_the_body_that_holds_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"pkg/m{n}.py": _seen(n) for n in range(2000)}
    index = tmp_path / shell_record_files.INDEX
    save(Record(files, 1), index)
    bodies = {p.name: p.stat().st_ino for p in tmp_path.glob("files-*.json")}
    assert len(bodies) == shell_record_bodies.buckets(2000) > 1
    changed = dict(files)
    changed["pkg/m5.py"] = _seen(99_999)
    made_from(changed, files, {"pkg/m5.py"})
    save(Record(changed, 2), index)
    after = {p.name: p.stat().st_ino for p in tmp_path.glob("files-*.json")}
    assert len(after.keys() - bodies.keys()) == 1 and len(bodies.keys() - after.keys()) == 1  # the old body, named by none, removed
    monkeypatch.setattr(shell_record_files, "_records", StatCache())
    monkeypatch.setattr(shell_record_files, "_bodies", StatCache(64))
    assert load(index) == Record(changed, 2)  # read back whole by a process that kept nothing


def test_a_split_made_from_the_last_is_the_split_made_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    files = {f"d/f{n}.py": _seen(n) for n in range(1000)}
    shell_record_bodies.split(files)
    made = {p: s for p, s in files.items() if p != "d/f3.py"} | {"d/new.py": _seen(5000)}
    made_from(made, files, {"d/f3.py", "d/new.py"})
    carried = shell_record_bodies.split(made)
    monkeypatch.setattr(shell_record_bodies, "_last", {})
    whole = shell_record_bodies.split(made)
    assert carried.names == whole.names and carried.data == whole.data and carried.members == whole.members


def test_a_body_removed_or_of_an_earlier_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_caches: None) -> None:
    files = {"a.py": _seen(1), "b.py": _seen(2)}
    body = tmp_path / "files-{}.json".format("0" * 64)
    body.write_text(json.dumps({p: s.to_json() for p, s in files.items()}))
    head = tmp_path / "old.json"
    head.write_text(json.dumps({"key": "k", "taken_ns": 5, "setting": "report", "body": body.name}))
    assert load(head) == Record(files, 5, "report")  # an earlier version's head: one body
    save(Record(files, 6), tmp_path / "new.json")
    named = json.loads((tmp_path / "new.json").read_text())["bodies"]
    os.unlink(tmp_path / named[0])
    monkeypatch.setattr(shell_record_files, "_records", StatCache())
    monkeypatch.setattr(shell_record_files, "_bodies", StatCache(64))
    assert load(tmp_path / "new.json") is None  # unreadable: every file is read again


def test_a_few_second_copies_are_loose_blobs_git_reads_written_without_asking_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    asked: list[tuple[str, ...]] = []
    monkeypatch.setattr(snapshot_store, "git", lambda where, *words, **kw: asked.append(words))
    data = b"def f():\n    return 1\n"
    blob = subprocess.run(["git", "hash-object", "--stdin"], input=data, capture_output=True, check=True).stdout.decode().strip()
    snapshot_store.mirror_blobs(root, snapshot_store.mirror_dir(root), {blob: data})
    assert asked == []
    shown = subprocess.run(["git", "cat-file", "-p", blob], cwd=root, capture_output=True, check=True).stdout
    assert shown == data and snapshot_store.from_mirror(snapshot_store.mirror_dir(root), blob) == data
    assert zlib.decompress((root / ".git" / "objects" / blob[:2] / blob[2:]).read_bytes()).startswith(b"blob ")


def test_a_copy_removed_after_others_were_added_is_still_missed(tmp_path: Path) -> None:
    objects = tmp_path / "objects"
    objects.mkdir()
    files = {f"f{n}.py": FileState(0o644, f"{n:064x}") for n in range(3)}
    for state in files.values():
        (objects / state.sha256).write_text("x")
    assert arming.missing_copies(objects, files) == []
    (objects / ("f" * 64)).write_text("added")  # another copy kept: only added to
    assert arming.missing_copies(objects, files) == []
    os.unlink(objects / files["f1.py"].sha256)
    assert arming.missing_copies(objects, files) == ["f1.py"]
