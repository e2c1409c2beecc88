"""The baseline of the last check, stored so that a check that changed nothing writes little.

`baseline.json` is a small signed head: which body holds the files (`baseline-<sha256>.json`,
named by its own digest), that digest, and `taken_at` (the time grants count from). The head's
signature covers the body through the digest: a body altered, cut or removed is refused. A
check that leaves the files as they were writes the head alone; one that changed them writes a
new body first, then the head naming it, then removes the bodies nothing names: a crash leaves
the old head and body or the new ones, never a mix. The witness (a signed copy of the files,
outside the state directory) is written when the files change. A head with `files` in it is the
single signed record of earlier versions, read as it is.

"As they were" is by content: each file's mode, digest and blob id. A file touched, or rewritten
with its own bytes (a file put back), has a new stat but the same content: the head alone is
written, and the new stats are kept in this process's memory only. The stats a body holds are
hints, never trusted against the files: one that differs from a file's stat now only makes
that file read and hashed again, so a process that reads the body back (another process, or
after a crash) reads those files once more and finds them as they were. Their content, and
`taken_at`, are what the signature must cover, and it does.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

from gateway.atomic import sha256, write_new_text
from gateway.config import STATE_DIR
from gateway.errors import Forged
from gateway.snapshot import FileState, Snapshot
from gateway.statcache import StatCache, read_stated
from gateway.userstate import key_file_id, sign, signed_json, signed_records, user_key, verified

if TYPE_CHECKING:
    from gateway.typed.stateful import TypedState

BASELINE = "baseline.json"
SIGNED_AS = "baseline"
BODY = "baseline-{}.json"
SHELL_RECORDS = "shell"
WITNESS = "gateway-armed.json"
WITNESS_SIGNED_AS = "armed-witness"
KEEP_PENDING_SECONDS = 24 * 3600
MAX_REMEMBERED = 64


@dataclass(frozen=True)
class BodyRef:
    """Which body holds a baseline's files, its digest, and the time grants count from."""

    body: str
    sha256: str
    taken_at: float

    def to_json(self) -> dict[str, Any]:
        return {"body": self.body, "sha256": self.sha256, "taken_at": self.taken_at}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BodyRef:
        body, digest = str(data["body"]), str(data["sha256"])
        if body != BODY.format(digest) or "/" in body:
            raise ValueError(f"a body named {body!r} is not the one its digest names")
        return cls(body, digest, float(data["taken_at"]))


@dataclass(frozen=True)
class Baseline:
    snapshot: Snapshot
    ref: BodyRef | None  # None: a record of an earlier version, files and all
    pending: dict[str, BodyRef] = field(default_factory=dict)
    """The shell commands recorded and not checked yet (gateway.typed.shell names them): the
    baseline each started from."""


_heads: StatCache[Baseline] = StatCache()
_bodies: StatCache[dict[str, FileState]] = StatCache()


def body_files(state: Path, ref: BodyRef, where: str) -> dict[str, FileState]:
    """The files of the body `ref` names, if its bytes are the ones `ref` records; else Forged."""
    path = state / ref.body
    cached = _bodies.get(path, ref.sha256)
    if cached is not None:
        return cached
    try:
        raw, info = read_stated(path)
    except FileNotFoundError:
        raise Forged(f"{where}: the record of the files it names ({ref.body}) was removed") from None
    if sha256(raw) != ref.sha256:
        raise Forged(f"{where}: {ref.body} is not the record its signature covers (altered or cut)")
    files = Snapshot.from_json(json.loads(raw)).files
    _bodies.put(path, files, ref.sha256, info)
    return files


def current_baseline(typed: TypedState) -> Baseline | None:
    """The last check's baseline; None before the first. Forged if not the user's."""
    path = typed.state / BASELINE
    cached = _heads.get(path, user_key())
    if cached is not None and (cached.ref is None or _bodies.get(typed.state / cached.ref.body, cached.ref.sha256) is not None):
        return cached
    try:
        raw, info = read_stated(path)
        head = verified(json.loads(raw), SIGNED_AS, BASELINE)
        if "files" in head:
            baseline = Baseline(Snapshot.from_json(head), None)
        else:
            ref = BodyRef.from_json(head)
            pending = {str(name): BodyRef.from_json(value) for name, value in head.get("pending", {}).items()}
            baseline = Baseline(Snapshot(body_files(typed.state, ref, BASELINE), ref.taken_at), ref, pending)
        _heads.put(path, baseline, user_key(), info)
        return baseline
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError, IndexError) as error:
        raise Forged(f"{BASELINE}: unreadable ({error})") from None


def load_baseline(typed: TypedState) -> Snapshot | None:
    """The workspace as the last check left it; None before the first. Forged if not the user's."""
    baseline = current_baseline(typed)
    return baseline.snapshot if baseline is not None else None


def witness_path(root: Path) -> Path:
    """The witness of the state directory: in the workspace's `.git/`, or `.gateway/state/` outside git."""
    git_dir = root / ".git"
    return (git_dir if git_dir.is_dir() and not git_dir.is_symlink() else root / STATE_DIR) / WITNESS


@dataclass(frozen=True)
class Looked:
    """What a watched check looked at again (`paths`, its `reconsidered`): every other file's
    state it holds is `of`'s own object."""

    of: dict[str, FileState]
    paths: AbstractSet[str]


def _same_files(typed: TypedState, snapshot: Snapshot, looked: Looked | None) -> Baseline | None:
    """The current baseline when `snapshot` holds its files as they were, stats aside (the head
    alone is written)."""
    with contextlib.suppress(Forged):
        current = current_baseline(typed)
        if current is not None and current.ref is not None:
            paths = looked.paths if looked is not None and looked.of is current.snapshot.files else None
            if _same_content(current.snapshot.files, snapshot.files, paths):
                return current
    return None


def _same_content(current: dict[str, FileState], files: dict[str, FileState], looked: AbstractSet[str] | None) -> bool:
    """Whether `files` are `current`'s files with the same modes, digests and blob ids (a stat
    alone may differ: a file touched, or rewritten with its own bytes)."""
    if files is current:
        return True
    if len(files) != len(current):
        return False
    if looked is None and files == current:
        return True
    for path in files.keys() if looked is None else looked:
        old, new = current.get(path), files.get(path)
        if old is not new and (old is None or new is None or (old.mode, old.sha256, old.blob) != (new.mode, new.sha256, new.blob)):
            return False
    return looked is not None or files.keys() == current.keys()


def save_baseline(typed: TypedState, snapshot: Snapshot, looked: Looked | None = None, record: str | None = None,
                  done: str | None = None) -> None:
    """`snapshot` as the baseline: its body (unless the current one holds its files) and the
    witness with it, then the head; bodies neither it nor a pending command names are removed.
    `looked`: what the check that made `snapshot` looked at, when it knows. `record`: a shell
    command to record as pending, starting from `snapshot`, in the same head (one write for the
    check and the record); `done`: the pending command this check closes. Call under the
    watch's lock."""
    same = _same_files(typed, snapshot, looked)
    if same is None:
        text = snapshot.canonical()  # once for the body and the witness (a large workspace's is megabytes)
        ref = BodyRef(BODY.format(sha256(text)), sha256(text), snapshot.taken_at)
        write_new_text(typed.state / ref.body, text.decode())
        _bodies.put(typed.state / ref.body, snapshot.files, ref.sha256)
    else:
        assert same.ref is not None
        ref = BodyRef(same.ref.body, same.ref.sha256, snapshot.taken_at)
        if looked is not None or snapshot.files == same.snapshot.files:
            # The same object: what is made once per baseline (the blob ids, the copies' check) is
            # not made again. Where only stats differ, a watched check keeps the old ones too: the
            # watch says when those files change again, and its periodic stat walk takes the new ones.
            snapshot = Snapshot(same.snapshot.files, snapshot.taken_at, snapshot.mark)
        else:  # only stats differ: kept in memory, the body's are hints (see the module)
            _bodies.put(typed.state / ref.body, snapshot.files, ref.sha256)
    pending = _pending(typed, record, done, ref)
    if record is not None:
        _started_from[(typed.state, record)] = snapshot
        while len(_started_from) > MAX_REMEMBERED:
            _started_from.pop(next(iter(_started_from)))
    _started_from.pop((typed.state, done or ""), None)
    head = {**ref.to_json(), **({"pending": {name: value.to_json() for name, value in pending.items()}} if pending else {})}
    write_new_text(typed.state / BASELINE, json.dumps(sign(head, SIGNED_AS)))
    _heads.put(typed.state / BASELINE, Baseline(snapshot, ref, pending), user_key())
    if same is None:
        _write_witness(typed, snapshot, text)
        kept = {ref.body} | {value.body for value in pending.values()} | _pending_bodies(typed.state)
        for entry in os.scandir(typed.state):
            if entry.name.startswith(BODY.format("")[:-5]) and entry.name not in kept:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(entry.path)


def started_from(typed: TypedState, name: str, ref: BodyRef, where: str) -> Snapshot:
    """The baseline the pending command `name` started from (`ref`, as its head records it): the
    snapshot this process saved, with the watch's mark it holds at (so that the check after the
    command looks only at the paths with events), else read from its body."""
    saved = _started_from.get((typed.state, name))
    if saved is not None and saved.taken_at == ref.taken_at and _bodies.get(typed.state / ref.body, ref.sha256) is saved.files:
        return saved
    return Snapshot(body_files(typed.state, ref, where), ref.taken_at)


_started_from: dict[tuple[Path, str], Snapshot] = {}  # (state directory, pending name) -> the snapshot it started from


def _pending(typed: TypedState, record: str | None, done: str | None, ref: BodyRef) -> dict[str, BodyRef]:
    """The pending commands after this check: the current head's, but `done` and those a day old
    (a command whose PostToolUse never came: the host refused it), and `record`."""
    pending: dict[str, BodyRef] = {}
    with contextlib.suppress(Forged):
        current = current_baseline(typed)
        if current is not None:
            pending = current.pending
    oldest = ref.taken_at - KEEP_PENDING_SECONDS
    pending = {name: value for name, value in pending.items() if name != done and value.taken_at >= oldest}
    if record is not None:
        pending[record] = ref
    return pending


def _pending_bodies(state: Path) -> set[str]:
    """The bodies the records of commands not checked yet name (gateway.typed.shell)."""
    names: set[str] = set()
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(state / SHELL_RECORDS):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
                names.add(str(json.loads(Path(entry.path).read_bytes())["baseline"]["body"]))
    return names


def _write_witness(typed: TypedState, snapshot: Snapshot, text: bytes) -> None:
    witness = witness_path(typed.workspace.root)
    witness.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    record = {"workspace": os.path.realpath(typed.workspace.root), "key_id": key_file_id(), "baseline": snapshot.to_json()}
    write_new_text(witness, signed_json(record, WITNESS_SIGNED_AS, {"baseline": text}))
    signed_records.put(witness, record, (WITNESS_SIGNED_AS, user_key()))
