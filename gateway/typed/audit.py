"""The append-only audit log `.gateway/state/edits.jsonl` and what can be read from it."""

from __future__ import annotations

import contextlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gateway.workspace import exclusive

LOG_NAME = "edits.jsonl"


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

    def append(self, entry: dict[str, Any]) -> None:
        """One JSON line, written with a single write under the lock; a torn last line is closed first."""
        line = json.dumps(entry, ensure_ascii=False, sort_keys=False) + "\n"
        with locked(self.path.with_suffix(".lock")):
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = "\n" + line
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)

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
