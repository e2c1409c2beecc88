"""Contract run journals: each run's previous bytes, on disk before its first write.

One journal per run (`.gateway/state/contract-runs/<run>.json`), signed with the user's key
and naming the process that writes it. A run that ends leaves `<run>.done` (its files and
when it ended) for a day, so that a run validating meanwhile can tell its neighbour's writes
from its validations' own. A run whose process is gone left its journal behind:
the next apply undoes it. A journal is acted on only if it is signed, its process is dead, and
every entry is a regular file inside the workspace reached without a symlink, with plain
permission bits; otherwise it is refused whole.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.config import STATE_DIR
from gateway.errors import Forged, Stale, UsageError
from gateway.typed.audit import ensure_state_dir
from gateway.userstate import sign, verified
from gateway.atomic import file_digest, replace_atomically, sha256, write_new_text

RUNS = "contract-runs"
SIGNED_AS = "contract-journal"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_PROTECTED_TOPS = (".git", ".gateway")
KEEP_DONE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class JournalEntry:
    path: str
    original: bytes | None
    mode: int | None
    written_sha256: str

    def to_json(self) -> dict[str, Any]:
        original = base64.b64encode(self.original).decode() if self.original is not None else None
        return {"path": self.path, "original": original, "mode": self.mode, "written_sha256": self.written_sha256}


@dataclass(frozen=True)
class Journal:
    run_id: str
    contract: str
    pid: int
    started: str
    entries: tuple[JournalEntry, ...]


def _process_start(pid: int) -> str:
    """The kernel's start time of `pid` (empty when unknown): a pid alone can be reused."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return ""


def _alive(journal: Journal) -> bool:
    try:
        os.kill(journal.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return _process_start(journal.pid) == journal.started


def _runs(root: Path) -> Path:
    return root / STATE_DIR / RUNS


def write_journal(root: Path, run_id: str, contract: str, entries: list[JournalEntry]) -> Path:
    ensure_state_dir(root / STATE_DIR)
    _runs(root).mkdir(exist_ok=True)
    path = _runs(root) / f"{run_id}.json"
    record = {"run": run_id, "contract": contract, "pid": os.getpid(), "started": _process_start(os.getpid()),
              "started_at": time.time(), "files": [e.to_json() for e in entries]}
    write_new_text(path, json.dumps(sign(record, SIGNED_AS)))
    return path


def _entry(root: Path, raw: Any, where: str) -> JournalEntry:
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: an entry is not an object")
    path, original, mode, written = raw.get("path"), raw.get("original"), raw.get("mode"), raw.get("written_sha256")
    if not isinstance(path, str) or not path or path.startswith("/") or "\x00" in path:
        raise UsageError(f"{where}: {path!r} is not a workspace-relative path")
    parts = path.split("/")
    if ".." in parts or "." in parts or "" in parts or parts[0] in _PROTECTED_TOPS:
        raise UsageError(f"{where}: {path!r} leaves the workspace or names its state")
    probe = root
    for part in parts:
        probe = probe / part
        if probe.is_symlink():
            raise UsageError(f"{where}: {path!r} goes through a symlink ({probe.relative_to(root)})")
    if probe.exists() and not stat.S_ISREG(os.lstat(probe).st_mode):
        raise UsageError(f"{where}: {path!r} is not a regular file")
    if mode is not None and (not isinstance(mode, int) or isinstance(mode, bool) or mode & ~0o777):
        raise UsageError(f"{where}: {path!r} has mode {mode!r}; only permission bits (no setuid, setgid or sticky)")
    if not isinstance(written, str) or not _HEX64.fullmatch(written):
        raise UsageError(f"{where}: {path!r} has no valid written_sha256")
    try:
        data = base64.b64decode(original, validate=True) if original is not None else None
    except (binascii.Error, TypeError, ValueError):
        raise UsageError(f"{where}: {path!r} has undecodable original bytes") from None
    if (data is None) != (mode is None):
        raise UsageError(f"{where}: {path!r} has original bytes without a mode, or a mode without bytes")
    return JournalEntry(path, data, mode, written)


def read_journal(root: Path, path: Path) -> Journal:
    """A journal, signed and confined; Forged or UsageError (never partly acted on) otherwise."""
    where = f"contract journal {path.name}"
    try:
        data = verified(json.loads(path.read_text("utf-8")), SIGNED_AS, where)
    except (ValueError, UnicodeDecodeError):
        raise Forged(f"{where}: not a journal (refused)") from None
    files = data.get("files")
    if not isinstance(files, list) or not isinstance(data.get("pid"), int) or not isinstance(data.get("run"), str):
        raise UsageError(f"{where}: malformed (refused)")
    entries = tuple(_entry(root, raw, where) for raw in files)
    return Journal(data["run"], str(data.get("contract")), data["pid"], str(data.get("started", "")), entries)


def interrupted(root: Path) -> list[Journal]:
    """The journals of runs whose process is gone (each checked; a bad one refuses them all)."""
    directory = _runs(root)
    if not directory.is_dir():
        return []
    journals = [read_journal(root, path) for path in sorted(directory.glob("*.json"))]
    return [j for j in journals if not _alive(j)]


def _original_digest(entry: JournalEntry) -> str | None:
    return sha256(entry.original) if entry.original is not None else None


def undo(root: Path, journal: Journal) -> list[str]:
    """Put a dead run's files back; Stale (nothing written) if any changed since the run wrote it."""
    foreign = [e.path for e in journal.entries if file_digest(root / e.path) not in (e.written_sha256, _original_digest(e))]
    if foreign:
        raise Stale(
            f"an interrupted contract run ({journal.contract}) left {RUNS}/{journal.run_id}.json, but {', '.join(foreign)} "
            "changed since; restore by hand from the journal, then delete it"
        )
    restored = []
    for entry in journal.entries:
        target = root / entry.path
        if file_digest(target) == _original_digest(entry):
            continue
        if entry.original is None:
            target.unlink(missing_ok=True)
        else:
            replace_atomically(target, entry.original, entry.mode or 0o644)
        restored.append(entry.path)
    (_runs(root) / f"{journal.run_id}.json").unlink(missing_ok=True)
    return restored


def finish_journal(root: Path, run_id: str) -> None:
    """The run ended (applied or put back): its journal gives way to a record of what it wrote."""
    journal = _runs(root) / f"{run_id}.json"
    try:
        files = [e["path"] for e in json.loads(journal.read_text("utf-8"))["files"]]
    except (OSError, ValueError, KeyError, TypeError):
        files = []
    done = {"run": run_id, "files": files, "finished_at": time.time()}
    write_new_text(_runs(root) / f"{run_id}.done", json.dumps(sign(done, SIGNED_AS)))
    journal.unlink(missing_ok=True)


def _read_record(path: Path) -> str:
    """A run's record; for a running one that ended since the folder was listed (its journal
    gone, its `.done` written under a name the listing did not have yet), the `.done`."""
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        if path.suffix != ".json":
            raise
        return path.with_suffix(".done").read_text("utf-8")


def written_by_others(root: Path, run_id: str, since: float) -> set[str]:
    """The files other contract runs were writing at any time since `since` (running, or ended since)."""
    directory, found = _runs(root), set()
    if not directory.is_dir():
        return found
    for path in directory.iterdir():
        if path.stem == run_id:
            continue
        try:
            text = _read_record(path)
            record = verified(json.loads(text), SIGNED_AS, path.name)
        except (Forged, OSError, ValueError):
            continue
        if path.suffix == ".done" and time.time() - record.get("finished_at", 0) > KEEP_DONE_SECONDS:
            path.unlink(missing_ok=True)
        elif path.suffix == ".json" or record.get("finished_at", 0) >= since:
            found |= {f if isinstance(f, str) else f.get("path") for f in record.get("files", [])}
    return found
