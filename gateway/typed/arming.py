"""Whether a workspace's enforcement state can be trusted: armed, tampered with, or not armed yet.

Enforcement keeps, in the workspace's user state (gateway.typed.state): a signed record that it
is armed (`armed.json`, with the signing key's fingerprint), the baseline of the last check, the
kept bytes, the audit log and its signed head. A witness outside that directory (in the
workspace's `.git/`, or `.gateway/state/` outside git) holds a signed copy of the baseline, so
that removing the whole state directory is seen, and the files can still be put back.

Any of it missing, altered or failing its signature is tampering: the workspace stays tampered
(every write refused, the audit says why) until the user runs `gateway enforce rearm`. Nothing
here stops a process of the same user from removing all of it, witness and key included: only
a sandbox around the agent's shell does (gateway.surfaces.hooks.sandboxes).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from gateway.atomic import sha256, write_new_text
from gateway.errors import Forged
from gateway.snapshot import RACY_NS, FileState, Snapshot, scan
from gateway.typed.audit import locked
from gateway.typed.state import objects_dir
from gateway.typed.baseline import BASELINE, WITNESS_SIGNED_AS, load_baseline, save_baseline, witness_path
from gateway.typed.watch import Outcome, lock, verify
from gateway.statcache import read_stated
from gateway.userstate import KEY_NAME, key_file_id, sign, signed_records, state_home, user_key, verified

if TYPE_CHECKING:
    from gateway.typed.stateful import TypedState

ARMED = "armed.json"
SIGNED_AS = "armed"
REARM = "gateway enforce rearm"
TAIL_BYTES = 1 << 18


@dataclass(frozen=True)
class Armed:
    """The workspace's enforcement state: "fresh" (never armed), "armed" or "tampered" (`reason`:
    what was found; `new`: found now, not recorded yet); `baseline`: the last check's record of
    the workspace, from the state directory or else from the witness."""

    state: Literal["fresh", "armed", "tampered"]
    reason: str = ""
    new: bool = False
    baseline: Snapshot | None = None


def refusal(reason: str) -> str:
    return (f"Enforcement state was tampered with: {reason}. Every write is refused until the user re-arms "
            f"enforcement from a terminal (`{REARM}`, after checking what changed; `gateway audit log` lists it).")


def _signed(path: Path, purpose: str) -> tuple[dict[str, Any] | None, str]:
    """(the record, "") if the user's key signed it; (None, "") if absent; (None, what is wrong)."""
    tag = (purpose, user_key())
    cached = signed_records.get(path, tag)
    if cached is not None:
        return cached, ""
    try:
        raw, info = read_stated(path)
        record = verified(json.loads(raw), purpose, path.name)
        signed_records.put(path, record, tag, info)
        return record, ""
    except FileNotFoundError:
        return None, ""
    except (OSError, ValueError, Forged) as error:
        return None, f"{path} fails its signature or cannot be read ({error})"


def _last_line(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            handle.seek(max(0, size - TAIL_BYTES))
            data = handle.read()
    except FileNotFoundError:
        return None
    lines = [line for line in data.split(b"\n") if line.strip()]
    if lines and len(lines) == 1 and size > TAIL_BYTES:
        lines = [line for line in path.read_bytes().split(b"\n") if line.strip()]
    return lines[-1] if lines else None


def _audit_problem(typed: TypedState) -> str | None:
    """What is wrong with the audit log's end and its signed head, if anything."""
    with locked(typed.log.path.with_suffix(".lock")):
        try:
            head = typed.log.head()
        except Forged:
            return f"the audit log's signed head ({typed.log.head_path}) fails its signature"
        last = _last_line(typed.log.path)
    if head is None:
        return f"the audit log's signed head ({typed.log.head_path}) was removed"
    if last is None:
        return f"the audit log ({typed.log.path}) was removed or emptied"
    if sha256(last) != head[1]:
        return "the audit log's last entry is not the one its signed head records (cut or altered; `gateway audit verify` says where)"
    return None


def _baseline(typed: TypedState, witness: dict[str, Any] | None, problems: list[str]) -> Snapshot | None:
    """The last check's record: the state directory's, else the witness's copy."""
    try:
        baseline = load_baseline(typed)
    except Forged as error:
        problems.append(f"the baseline of the last check fails its signature ({error})")
        baseline = None
    else:
        if baseline is None:
            problems.append(f"the baseline of the last check ({typed.state / BASELINE}) was removed")
    if baseline is not None or witness is None:
        return baseline
    with contextlib.suppress(KeyError, TypeError, ValueError, IndexError):
        return Snapshot.from_json(witness["baseline"])
    return None


def _armed_before(typed: TypedState) -> bool:
    """Whether the audit log says enforcement was armed here before."""
    return any(e.get("phase") in ("watch", "rearmed") for e in typed.log.read().entries)


def check(typed: TypedState) -> Armed:
    """What the enforcement state says now (call under `lock`)."""
    root = typed.workspace.root
    record, record_problem = _signed(typed.state / ARMED, SIGNED_AS)
    witness, witness_problem = _signed(witness_path(root), WITNESS_SIGNED_AS)
    if record is None and not record_problem and witness is None and not witness_problem:
        if not (typed.state / BASELINE).exists() and (not typed.config().enforce or not _armed_before(typed)):
            return Armed("fresh")  # the audit log is read only when enforcement is on
    problems = [p for p in (record_problem, witness_problem) if p]
    key = key_file_id()
    if key is None:
        problems.insert(0, f"the signing key ({state_home() / KEY_NAME}) was removed or damaged")
    if record is None and not record_problem:
        problems.append(f"the record that enforcement is armed ({typed.state / ARMED}) was removed")
    if record is not None and record.get("state") == "tampered":
        return Armed("tampered", str(record.get("reason")), False, _baseline(typed, witness, []))
    if key is not None and _recorded_key(typed, record) not in (None, key):
        problems.insert(0, f"the signing key ({state_home() / KEY_NAME}) was replaced")
    if witness is None and not witness_problem:
        problems.append(f"its witness ({witness_path(root)}) was removed")
    baseline = _baseline(typed, witness, problems)
    if baseline is not None:
        lost = missing_copies(objects_dir(root), baseline.files)
        if lost:
            shown = ", ".join(lost[:5]) + (f" and {len(lost) - 5} more" if len(lost) > 5 else "")
            problems.append(f"the saved copies of {len(lost)} file(s) were removed from {objects_dir(root)} ({shown})")
    audit = _audit_problem(typed)
    if audit:
        problems.append(audit)
    if problems:
        return Armed("tampered", "; ".join(dict.fromkeys(problems)), True, baseline)
    return Armed("armed", baseline=baseline)


def missing_copies(objects: Path, files: dict[str, FileState]) -> list[str]:
    """The paths whose bytes `objects` no longer holds (removed or altered since kept). The
    directory is listed again unless its stat is the one it had when last listed and was then
    already RACY_NS old (removing a file changes its ctime, which no user process can set back;
    a removal in the clock tick of the listing would leave it as it was)."""
    try:
        info = os.stat(objects)
    except OSError:
        return sorted(files)
    key, now = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns), time.time_ns()
    before = _listed_objects.get(str(objects))
    if before is not None and before[0] == key and key[3] < before[1] - RACY_NS:
        kept = before[2]
    else:
        try:
            kept = set(os.listdir(objects))
        except OSError:
            kept = set()
        _listed_objects[str(objects)] = (key, now, kept)  # the stat from before listing: a change meanwhile lists it again
    last = _missing.get(str(objects))
    if last is None or last[0] is not files or last[1] is not kept:
        if last is not None and last[0] is files and last[1] <= kept:  # only added to since: a copy found then is there still
            missing = [p for p in last[2] if files[p].sha256 not in kept]
        else:
            missing = sorted(p for p, s in files.items() if s.sha256 not in kept)
        last = _missing[str(objects)] = (files, kept, missing)
    return last[2]


_listed_objects: dict[str, tuple[tuple[int, int, int, int], int, set[str]]] = {}
_missing: dict[str, tuple[dict[str, FileState], set[str], list[str]]] = {}  # (files, listing, the result): callers change neither


def _recorded_key(typed: TypedState, record: dict[str, Any] | None) -> str | None:
    """The key fingerprint the armed record names (read unverified when its signature fails:
    to say why it fails, never to trust it)."""
    if record is None:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            record = json.loads((typed.state / ARMED).read_text("utf-8"))
    value = record.get("key_id") if isinstance(record, dict) else None
    return value if isinstance(value, str) else None


def _write_record(typed: TypedState, state: str, reason: str = "") -> None:
    record = {"workspace": os.path.realpath(typed.workspace.root), "state": state, "reason": reason,
              "key_id": key_file_id(), "at": time.time()}
    write_new_text(typed.state / ARMED, json.dumps(sign(record, SIGNED_AS)))


def mark_tampered(typed: TypedState, armed: Armed, operation: str) -> None:
    """Record what was found (once): the workspace stays tampered until re-armed."""
    if not armed.new:
        return
    _write_record(typed, "tampered", armed.reason)
    typed.record("tampered", operation, [], audit_error={"code": "state_tampered", "message": refusal(armed.reason)})


def arm(typed: TypedState, operation: str, phase: str = "watch", **fields: Any) -> None:
    """Enforcement armed on the workspace as it is now (call under `lock`)."""
    typed.record(phase, operation, [], **fields)  # first: the audit's head must exist when the check runs
    started = time.time()  # before the scan: a file written while it reads is read again at the next check
    save_baseline(typed, Snapshot(scan(typed.workspace.root, objects_dir(typed.workspace.root), mirrored=set()), started))
    _write_record(typed, "armed")


def refused(typed: TypedState) -> str | None:
    """Why every write is refused now (the state was tampered with); None when it is trusted."""
    with lock(typed):
        armed = check(typed)
        if armed.state != "tampered":
            return None
        mark_tampered(typed, armed, "check")
    return refusal(armed.reason)


def sweep(typed: TypedState, event: str, record: str | None = None) -> Outcome:
    """At a hook call: what changed since the last check, put back unless a gated write did it;
    a tampered state refuses the call (and the ones after it, until re-armed). `record`: the
    shell command about to run, recorded in the same write when the call is not refused."""
    with lock(typed):
        armed = check(typed)
        if armed.state == "fresh":
            if typed.config().enforce:
                arm(typed, f"watch:{event}")
            return Outcome()
        outcome = Outcome()
        if armed.baseline is not None:
            outcome = verify(typed, armed.baseline, f"Something outside the gate (noticed at {event})", f"watch:{event}", False,
                             record=record if armed.state == "armed" else None)
        if armed.state == "tampered":
            mark_tampered(typed, armed, f"watch:{event}")
            return Outcome(outcome.kept, outcome.restored, outcome.unrestored, outcome.problems, refusal(armed.reason))
        return outcome


def rearm(typed: TypedState, by: str) -> Armed:
    """The user's re-arming: the workspace as it is now becomes the baseline, the record is
    signed again (with the key as it is now), and the audit says what had been found."""
    with lock(typed):
        found = check(typed)
        arm(typed, "enforce rearm", "rearmed", by=by, audit_error={"code": "rearmed", "message": found.reason or found.state})
    return found
