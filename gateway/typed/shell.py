"""Shell commands under enforcement: the workspace recorded before (the baseline the check at
PreToolUse left), compared after, and every change no live grant covers put back and logged
as a bypass. The records live in the workspace's user state, out of the command's reach: in
the baseline's signed head, as pending (gateway.typed.baseline), written with the check at
PreToolUse (one fsynced write) and closed by the check at PostToolUse (one more). An earlier
version's records (a signed file each, under `shell/`) are still read."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from pathlib import Path

from dataclasses import replace

from gateway.errors import Forged, GatewayError
from gateway.snapshot import Snapshot
from gateway.snapshot_store import prune_objects
from gateway.typed.arming import Armed, check, mark_tampered, refusal
from gateway.typed.service import TypedEdits
from gateway.typed.state import objects_dir
from gateway.typed.baseline import BODY, SHELL_RECORDS, BodyRef, body_files, current_baseline, save_baseline, started_from
from gateway.typed.watch import Outcome, lock, verify
from gateway.statcache import StatCache, read_stated
from gateway.userstate import user_key, verified

SNAPSHOTS = SHELL_RECORDS
SIGNED_AS = "shell-snapshot"
KEEP_SNAPSHOT_SECONDS = 24 * 3600
PRUNE_EVERY_SECONDS = 3600
PRUNED = "shell.pruned"


def record_name(key: str) -> str:
    """The name the command `key` is recorded under (in the baseline's head, or an earlier version's file)."""
    return hashlib.sha256(key.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _snapshot_file(typed: TypedEdits, key: str) -> Path:
    return typed.state / SNAPSHOTS / f"{record_name(key)}.json"


def _pending(typed: TypedEdits, key: str) -> BodyRef | None:
    """The baseline the command `key` started from, as the head records it; None when it does not."""
    with contextlib.suppress(Forged):
        baseline = current_baseline(typed)
        if baseline is not None:
            return baseline.pending.get(record_name(key))
    return None


def recorded(typed: TypedEdits, key: str) -> bool:
    """Whether the workspace was recorded before the command `key`."""
    return _pending(typed, key) is not None or _snapshot_file(typed, key).exists()


def before_command(typed: TypedEdits, key: str) -> None:
    """Record the workspace before the command `key` runs, where the check before it did not
    (gateway.hostcalls.shells): the baseline the check just left, named in its head as pending
    (its body is kept while named)."""
    with lock(typed):
        _prune(typed)
        baseline = current_baseline(typed)
        if baseline is None:
            raise GatewayError("no baseline of the workspace to record the command against")
        save_baseline(typed, baseline.snapshot, record=record_name(key))


def _hashes(path: Path, inner: bool = True) -> set[str]:
    try:
        data = json.loads(path.read_text("utf-8"))
        return {v[1] for v in (data["snapshot"] if inner else data)["files"].values()}
    except (OSError, ValueError, KeyError, TypeError, IndexError):
        return set()


def _prune(typed: TypedEdits) -> None:
    """Drop records a day old and the kept bytes none needs, at most once an hour (it reads every
    record: megabytes each on a large workspace)."""
    marker = typed.state / PRUNED
    with contextlib.suppress(OSError):
        if time.time() - marker.stat().st_mtime < PRUNE_EVERY_SECONDS:
            return
    limit, directory = time.time() - KEEP_SNAPSHOT_SECONDS, typed.state / SNAPSHOTS
    needed: set[str] = set()
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):  # an earlier version's records
            if entry.stat().st_mtime < limit:
                os.unlink(entry.path)
            else:
                needed |= _hashes(Path(entry.path))
    for entry in os.scandir(typed.state):
        if entry.name.startswith(BODY.format("")[:-5]):
            needed |= _hashes(Path(entry.path), inner=False)
    prune_objects(objects_dir(typed.workspace.root), needed)
    marker.touch()


_records: StatCache[Snapshot] = StatCache()


def _load(typed: TypedEdits, key: str) -> Snapshot:
    ref = _pending(typed, key)
    if ref is not None:
        return started_from(typed, record_name(key), ref, f"the record of the command ({ref.body})")
    path = _snapshot_file(typed, key)
    cached = _records.get(path, (key, user_key()))
    if cached is not None:
        return cached
    try:  # recorded by an earlier version: a signed file of its own
        raw, info = read_stated(path)
        data = verified(json.loads(raw), SIGNED_AS, f"shell snapshot {path.name}")
        if data.get("key") != key:
            raise Forged(f"shell snapshot {path.name}: recorded for another command (forged)")
        if "snapshot" in data:  # files and all
            snapshot = Snapshot.from_json(data["snapshot"])
        else:
            ref = BodyRef.from_json(data["baseline"])
            snapshot = Snapshot(body_files(typed.state, ref, f"shell snapshot {path.name}"), ref.taken_at)
        _records.put(path, snapshot, (key, user_key()), info)
        return snapshot
    except FileNotFoundError:
        raise GatewayError("no record of the workspace before this command (was it removed, or enforcement turned on meanwhile?)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise Forged(f"shell snapshot {path.name}: unreadable ({error})") from None


def after_command(typed: TypedEdits, key: str, command: str) -> Outcome:
    """Compare with the record; put back and log every change no live grant covers. A record
    removed or altered meanwhile, or any other tampering, is said, and refuses every write after."""
    with lock(typed):
        _prune(typed)
        armed = check(typed)
        try:
            snapshot = _load(typed, key)
        except GatewayError as error:
            if armed.state == "armed" or (armed.state == "fresh" and typed.config().enforce):
                armed = Armed("tampered", f"the record of the workspace before this command was removed or altered ({error})", True, armed.baseline)
            snapshot = armed.baseline
        if snapshot is None and armed.state != "tampered":
            raise GatewayError("no record of the workspace before this command (was enforcement turned on meanwhile?)")
        outcome = Outcome()
        if snapshot is not None:
            outcome = verify(typed, snapshot, f"The command `{command[:200]}`", "hook:Bash", True, command, done=record_name(key))
        _snapshot_file(typed, key).unlink(missing_ok=True)
        if armed.state == "tampered":
            mark_tampered(typed, armed, "hook:Bash")
            return replace(outcome, tampered=refusal(armed.reason))
    return outcome
