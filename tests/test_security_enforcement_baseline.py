"""The baseline's storage under enforcement: a check that changed nothing writes its small signed
head alone (not the files again, nor the witness); the head's signature still covers the whole
state through the digest of the body that holds the files, so a body altered, cut or removed is
refused; a crash between writing a body and the head naming it leaves the old state, trusted."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gateway.statcache import StatCache
from gateway.typed import baseline
from gateway.typed.baseline import BODY, witness_path
from gateway.typed.state import state_dir
from gateway.userstate import sign
from tests.test_security_enforcement import SHAPES, _stop
from tests.test_security_shell import ENFORCED_GIT_WORKSPACE, bash_call, files, run_through_hooks

pytestmark = [pytest.mark.usefixtures("processes"), ENFORCED_GIT_WORKSPACE]


def _head(root: Path) -> dict[str, object]:
    head = json.loads((state_dir(root) / "baseline.json").read_text())
    assert isinstance(head, dict)
    return head


def _body(root: Path) -> Path:
    return state_dir(root) / str(_head(root)["body"])


def _bodies(root: Path) -> set[str]:
    return {p.name for p in state_dir(root).glob(BODY.format("*"))}


def test_a_check_that_changes_nothing_writes_neither_the_files_nor_the_witness(workspace: Path) -> None:
    assert run_through_hooks(workspace, "true") == ("ran", None)
    witness, body, taken_at = witness_path(workspace).stat(), _body(workspace).stat(), _head(workspace)["taken_at"]
    assert run_through_hooks(workspace, "git status --porcelain") == ("ran", None)
    assert witness_path(workspace).stat().st_ino == witness.st_ino and _body(workspace).stat().st_ino == body.st_ino
    later = _head(workspace)["taken_at"]
    assert isinstance(later, float) and isinstance(taken_at, float) and later > taken_at  # grants count from the last check
    assert _bodies(workspace) == {_body(workspace).name}


def test_a_command_put_back_leaves_one_body(workspace: Path) -> None:
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"echo evil > {SHAPES}")
    assert how == "ran" and answer is not None and f"{SHAPES} (changed)" in answer["reason"]
    assert files(workspace) == before and _bodies(workspace) == {_body(workspace).name}


@pytest.mark.parametrize(("damage", "said"), [("altered", "altered"), ("cut", "cut"), ("removed", "removed")])
def test_a_damaged_body_is_tampering(workspace: Path, damage: str, said: str) -> None:
    assert run_through_hooks(workspace, "true") == ("ran", None)
    body = _body(workspace)
    if damage == "altered":
        data = json.loads(body.read_text())
        data["files"].pop(SHAPES)
        body.write_text(json.dumps(data))
    elif damage == "cut":
        body.write_bytes(body.read_bytes()[: body.stat().st_size // 2])
    else:
        body.unlink()
    answer = _stop(workspace)
    assert answer is not None and said in answer["reason"] and "re-arm" in answer["reason"]


def test_a_body_altered_while_a_command_runs_is_tampering(workspace: Path) -> None:
    assert bash_call(workspace, "true", "PreToolUse") is None
    body = _body(workspace)
    body.write_text(body.read_text().replace(SHAPES, "pkg/other.py"))
    answer = bash_call(workspace, "true", "PostToolUse")
    assert answer is not None and "altered" in answer["reason"] and "re-arm" in answer["reason"]


def test_a_head_naming_another_body_is_tampering(workspace: Path) -> None:
    assert run_through_hooks(workspace, "true") == ("ran", None)
    head = _head(workspace)
    head["taken_at"] = float(str(head["taken_at"])) - 3600  # grants counted from an hour earlier
    (state_dir(workspace) / "baseline.json").write_text(json.dumps(head))
    answer = _stop(workspace)
    assert answer is not None and "fails its signature" in answer["reason"]


def test_a_crash_between_a_new_body_and_its_head_leaves_the_old_state_trusted(workspace: Path) -> None:
    """A body written whose head never was (the writer killed between the two) is not tampering:
    the head names the old body, whole (the stray one goes when a new body is written)."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    stray = state_dir(workspace) / BODY.format("0" * 64)
    stray.write_text(_body(workspace).read_text().replace(SHAPES, "pkg/other.py"))
    assert _stop(workspace) is None
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"echo evil > {SHAPES}")
    assert how == "ran" and answer is not None and f"{SHAPES} (changed)" in answer["reason"] and "tampered" not in answer["reason"]
    assert files(workspace) == before


def test_a_baseline_of_the_earlier_single_record_form_is_read_and_stored_anew(workspace: Path) -> None:
    """A workspace armed by an earlier version (the whole baseline in one signed `baseline.json`)
    is not tampered with: its next command is checked against it, and it is stored as head and body."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    body = _body(workspace)
    old = {**json.loads(body.read_text()), "taken_at": _head(workspace)["taken_at"]}
    (state_dir(workspace) / "baseline.json").write_text(json.dumps(sign(old, "baseline")))
    body.unlink()
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"echo evil > {SHAPES}")
    assert how == "ran" and answer is not None and f"{SHAPES} (changed)" in answer["reason"] and "tampered" not in answer["reason"]
    assert files(workspace) == before and _bodies(workspace) == {_body(workspace).name}
    assert _stop(workspace) is None



@pytest.mark.parametrize("command", [f"touch {SHAPES}", f"cp {SHAPES} /tmp/gw-same && cat /tmp/gw-same > {SHAPES}"])
def test_a_file_with_a_new_stat_but_the_same_bytes_writes_neither_the_files_nor_the_witness(workspace: Path, command: str) -> None:
    """The touch case: the file is hashed again, found as it was, and only the head is written;
    the stats the body holds are hints (a reader from disk reads that file again, once)."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    witness, body = witness_path(workspace).stat(), _body(workspace).stat()
    assert run_through_hooks(workspace, command) == ("ran", None)
    assert run_through_hooks(workspace, "true") == ("ran", None)
    assert witness_path(workspace).stat().st_ino == witness.st_ino and _body(workspace).stat().st_ino == body.st_ino
    assert _bodies(workspace) == {_body(workspace).name}


def test_state_read_back_from_disk_after_a_touch_still_puts_back_and_refuses_damage(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A process without this one's memory (another process, or after a crash) reads the body with
    the older stat of a touched file: it reads the file again, finds it unchanged, and still puts
    back a real change and refuses a body cut."""
    assert run_through_hooks(workspace, f"touch {SHAPES}") == ("ran", None)
    monkeypatch.setattr(baseline, "_heads", StatCache())
    monkeypatch.setattr(baseline, "_bodies", StatCache())
    assert run_through_hooks(workspace, "true") == ("ran", None)
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"echo evil > {SHAPES}")
    assert how == "ran" and answer is not None and f"{SHAPES} (changed)" in answer["reason"] and "tampered" not in answer["reason"]
    assert files(workspace) == before
    body = _body(workspace)
    body.write_bytes(body.read_bytes()[:-10])
    answer = _stop(workspace)
    assert answer is not None and "cut" in answer["reason"]


def test_a_command_costs_one_durable_write_before_it_and_one_after(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check at PreToolUse and the command's record are one signed head, fsynced once; the
    check at PostToolUse closes it with one more (a command that changes nothing)."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    synced: list[str] = []
    fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(os.readlink(f"/proc/self/fd/{fd}")), fsync(fd))[1])
    assert bash_call(workspace, "git status --porcelain", "PreToolUse") is None
    assert len(synced) == 1 and "pending" in _head(workspace)
    assert bash_call(workspace, "git status --porcelain", "PostToolUse") is None
    assert len(synced) == 2 and "pending" not in _head(workspace)


def test_a_crash_while_closing_a_command_leaves_it_pending_and_trusted(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Killed before the head that closes the command is renamed in: the old head (the command
    pending) stays whole and trusted, and the PostToolUse run again checks the command."""
    assert bash_call(workspace, f"echo evil > {SHAPES}", "PreToolUse") is None
    before, head = files(workspace), (state_dir(workspace) / "baseline.json").read_bytes()
    (workspace / SHAPES).write_text("evil\n")

    replace = os.replace

    def killed(source: str, target: str) -> None:
        if str(target).endswith("baseline.json"):
            raise KeyboardInterrupt  # as if killed between writing the new head aside and renaming it
        replace(source, target)

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        bash_call(workspace, f"echo evil > {SHAPES}", "PostToolUse")
    monkeypatch.undo()
    assert (state_dir(workspace) / "baseline.json").read_bytes() == head and files(workspace) == before  # put back before the crash
    assert bash_call(workspace, f"echo evil > {SHAPES}", "PostToolUse") is None  # checked again: nothing left to put back
    assert files(workspace) == before and "pending" not in _head(workspace)
    assert _stop(workspace) is None  # trusted
