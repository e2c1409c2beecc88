"""Shell commands under enforcement: the workspace recorded before (the baseline the check at
PreToolUse left), compared after, and every change no live grant covers put back and logged
as a bypass. The records live in the workspace's user state, out of the command's reach."""

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
from gateway.typed.baseline import BODY, SHELL_RECORDS, BodyRef, body_files, current_baseline, save_baseline
from gateway.typed.watch import Outcome, lock, verify
from gateway.statcache import StatCache, read_stated
from gateway.userstate import sign, user_key, verified
from gateway.atomic import write_new_text

SNAPSHOTS = SHELL_RECORDS
SIGNED_AS = "shell-snapshot"
KEEP_SNAPSHOT_SECONDS = 24 * 3600
PRUNE_EVERY_SECONDS = 3600
PRUNED = "shell.pruned"


def _snapshot_file(typed: TypedEdits, key: str) -> Path:
    return typed.state / SNAPSHOTS / f"{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


def recorded(typed: TypedEdits, key: str) -> bool:
    """Whether the workspace was recorded before the command `key`."""
    return _snapshot_file(typed, key).exists()


def before_command(typed: TypedEdits, key: str, command: str) -> None:
    """Record the workspace before the command `key` runs: the baseline the check just left,
    named by its body's digest and its time (the body is kept while a record names it)."""
    path = _snapshot_file(typed, key)
    path.parent.mkdir(exist_ok=True, mode=0o700)
    with lock(typed):
        _prune(typed)
        baseline = current_baseline(typed)
        if baseline is None:
            raise GatewayError("no baseline of the workspace to record the command against")
        if baseline.ref is None:  # a baseline of an earlier version: stored as bodies from now on
            save_baseline(typed, baseline.snapshot)
            baseline = current_baseline(typed)
            assert baseline is not None and baseline.ref is not None
        write_new_text(path, json.dumps(sign({"key": key, "command": command, "baseline": baseline.ref.to_json()}, SIGNED_AS)))
        _records.put(path, baseline.snapshot, (key, user_key()))


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
    for entry in os.scandir(directory):
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
    path = _snapshot_file(typed, key)
    cached = _records.get(path, (key, user_key()))
    if cached is not None:
        return cached
    try:
        raw, info = read_stated(path)
        data = verified(json.loads(raw), SIGNED_AS, f"shell snapshot {path.name}")
        if data.get("key") != key:
            raise Forged(f"shell snapshot {path.name}: recorded for another command (forged)")
        if "snapshot" in data:  # recorded by an earlier version, files and all
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
            outcome = verify(typed, snapshot, f"The command `{command[:200]}`", "hook:Bash", True, command)
        _snapshot_file(typed, key).unlink(missing_ok=True)
        if armed.state == "tampered":
            mark_tampered(typed, armed, "hook:Bash")
            return replace(outcome, tampered=refusal(armed.reason))
    return outcome
