"""The append-only audit log `edits.jsonl` (in the workspace's user state, gateway.typed.state)
and what can be read from it.

The log is a hash chain: every entry carries `seq` (1, 2, ...) and `prev`, the SHA-256 of
the previous entry's line. A head file (`edits.head`), signed with the user's key, holds the
last entry's number and hash, so that a log cut at its end, emptied or removed is told apart
from a short one: `verify` says where it was cut.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.atomic import sha256
from gateway.errors import Forged
from gateway.userstate import sign, verified
from gateway.workspace import exclusive

if TYPE_CHECKING:
    from gateway.typed.chain import ChainCheck

LOG_NAME = "edits.jsonl"
HEAD_NAME = "edits.head"
HEAD_SIGNED_AS = "audit-head"
GENESIS = "0" * 64


def timestamp(moment: float) -> str:
    return datetime.fromtimestamp(moment, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_timestamp(text: str) -> datetime:
    """An ISO 8601 time; one without an offset is taken as UTC."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def ensure_state_dir(directory: Path) -> Path:
    """The state directory, made on first use."""
    if not directory.is_dir():
        directory.mkdir(parents=True, exist_ok=True)
        # The state is the machine's, not the project's: keep it out of commits and `git status`.
        (directory / ".gitignore").write_text("*\n")
    return directory


def locked(path: Path) -> contextlib.AbstractContextManager[None]:
    """An exclusive lock on a lock file next to the state it guards."""
    ensure_state_dir(path.parent)
    return exclusive(path)


@dataclass(frozen=True)
class LogRead:
    entries: list[dict[str, Any]]
    warnings: list[str]


class AuditLog:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOG_NAME
        self.head_path = state_dir / HEAD_NAME

    def head(self) -> tuple[int, str] | None:
        """(number, hash) of the last entry appended, as the signed head says; None before the first.
        Forged when the head is not the user's."""
        try:
            data = verified(json.loads(self.head_path.read_text("utf-8")), HEAD_SIGNED_AS, HEAD_NAME)
            return int(data["seq"]), str(data["hash"])
        except FileNotFoundError:
            return None
        except (ValueError, KeyError, TypeError):
            raise Forged(f"{HEAD_NAME}: unreadable (forged or altered)") from None

    def _last_chained(self) -> tuple[int, str]:
        """The chain's end as the log itself shows it (when the head cannot be trusted)."""
        last = (0, GENESIS)
        for raw in self._lines():
            with contextlib.suppress(ValueError, TypeError, KeyError):
                last = (int(json.loads(raw)["seq"]), sha256(raw))
        return last

    def append(self, entry: dict[str, Any]) -> None:
        """One JSON line chained to the last, written with a single write under the lock; a torn
        last line is closed first; the signed head then names it."""
        with locked(self.path.with_suffix(".lock")):
            try:
                seq, previous = self.head() or (0, GENESIS)
            except Forged:
                seq, previous = self._last_chained()
            body = json.dumps({**entry, "seq": seq + 1, "prev": previous}, ensure_ascii=False, sort_keys=False)
            line = body + "\n"
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = "\n" + line
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
            head = sign({"seq": seq + 1, "hash": sha256(body.encode("utf-8"))}, HEAD_SIGNED_AS)
            temp = self.head_path.with_name(f".{HEAD_NAME}.{os.getpid()}")
            temp.write_text(json.dumps(head))
            os.replace(temp, self.head_path)

    def _lines(self) -> list[bytes]:
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        return [line for line in data.split(b"\n") if line.strip()]

    def verify(self) -> ChainCheck:
        """Whether the chain is whole from its first entry to the head; where it was cut if not."""
        from gateway.typed.chain import ChainCheck, check_chain

        try:
            head = self.head()
        except Forged as error:
            return ChainCheck(False, len(self._lines()), str(error))
        return check_chain(self._lines(), head, self.path.name)

    def read(self) -> LogRead:
        if not self.path.exists():
            return LogRead([], [])
        entries, warnings = [], []
        with open(self.path, encoding="utf-8", errors="replace") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    warnings.append(f"{self.path.name}:{number}: torn or corrupt line skipped")
                    continue
                if isinstance(entry, dict):
                    entries.append(entry)
        return LogRead(entries, warnings)


def select(entries: list[dict[str, Any]], since: str | None = None, kind: str | None = None) -> list[dict[str, Any]]:
    start = parse_timestamp(since) if since else None
    chosen = []
    for entry in entries:
        if kind and entry.get("kind") != kind:
            continue
        if start and parse_timestamp(entry.get("timestamp", "1970-01-01T00:00:00Z")) < start:
            continue
        chosen.append(entry)
    return chosen


def summarize(entries: list[dict[str, Any]], top: int = 10) -> dict[str, Any]:
    issued = [e for e in entries if e.get("phase") == "issued"]
    consumed = [e for e in entries if e.get("phase") == "consumed"]
    rejected = [e for e in entries if e.get("phase") == "rejected"]
    by_kind: dict[str, Counter[str]] = {}
    for entry in issued:
        by_kind.setdefault(entry.get("kind") or "?", Counter())[entry.get("target") or "none"] += 1
    consumed_ids = {e.get("edit_id") for e in consumed}
    edited: Counter[str] = Counter(f["path"] for e in consumed for f in e.get("files", []))
    return {
        "ok": True,
        "entries": len(entries),
        "phases": {"issued": len(issued), "consumed": len(consumed), "rejected": len(rejected)},
        "by_kind": {
            kind: {"total": sum(c.values()), "prod": c["prod"], "test": c["test"], "none": c["none"]}
            for kind, c in sorted(by_kind.items())
        },
        "by_provenance": dict(Counter(e.get("provenance") for e in issued if e.get("provenance")).most_common()),
        "by_execution_state": dict(Counter(e.get("execution_state") for e in issued if e.get("execution_state")).most_common()),
        "warnings": dict(Counter(w["code"] for e in issued for w in e.get("audit_warnings", [])).most_common()),
        "rejections": dict(Counter((e.get("audit_error") or {}).get("code", "?") for e in rejected).most_common()),
        "never_consumed": [
            {"edit_id": e.get("edit_id"), "kind": e.get("kind"), "timestamp": e.get("timestamp"), "files": [f["path"] for f in e.get("files", [])]}
            for e in issued
            if e.get("edit_id") not in consumed_ids
        ],
        "most_edited": [{"path": path, "edits": count} for path, count in edited.most_common(top)],
    }
