"""The audit log's hash chain checked line by line against its signed head."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from gateway.atomic import sha256

GENESIS = "0" * 64


@dataclass(frozen=True)
class ChainCheck:
    """The audit log's chain checked: whole (`ok`), or where it was cut (`line`, `seq` of the
    first entry missing or altered, when known); `legacy`: unchained entries before the chain."""

    ok: bool
    entries: int
    message: str
    line: int | None = None
    seq: int | None = None
    legacy: int | None = None

    def to_json(self) -> dict[str, Any]:
        cut = {"line": self.line, "seq": self.seq} if self.line is not None else None
        legacy = {"legacy": self.legacy} if self.legacy is not None else {}
        return {"ok": self.ok, "entries": self.entries, "cut_at": cut, **legacy, "message": self.message}


def _broken(entries: int, line: int | None, seq: int | None, message: str) -> ChainCheck:
    return ChainCheck(False, entries, message, line, seq)


def check_chain(lines: list[bytes], head: tuple[int, str] | None, name: str) -> ChainCheck:
    """Whether the log's non-blank lines chain up to the signed head, and where they were cut if not."""
    seq, previous, legacy, chained = 0, GENESIS, 0, 0
    for number, raw in enumerate(lines, 1):
        try:
            entry = json.loads(raw)
        except ValueError:
            continue  # a torn line (a crash mid-write); the next entry chains past it
        if not isinstance(entry, dict) or "seq" not in entry:
            if chained:
                return _broken(chained, number, None, f"{name}: line {number} is not chained (inserted after entry {seq})")
            legacy += 1
            continue
        if entry.get("seq") != seq + 1 or entry.get("prev") != previous:
            what = f"entries {seq + 1} to {entry.get('seq', 0) - 1} are missing" if isinstance(entry.get("seq"), int) and entry["seq"] > seq + 1 else "the entry does not follow the one before (altered, reordered or inserted)"
            return _broken(chained, number, seq + 1, f"{name}: cut at line {number} (entry {seq + 1}): {what}")
        seq, previous, chained = seq + 1, sha256(raw), chained + 1
    if head is None:
        if chained:
            return _broken(chained, None, None, f"{name}: {chained} chained entries but no signed head (the head was removed)")
        return ChainCheck(True, 0, f"{name}: empty", legacy=legacy)
    head_seq, head_hash = head
    if seq < head_seq:
        line = len(lines) + 1
        return _broken(chained, line, seq + 1, f"{name}: cut after entry {seq} (line {line - 1}): the signed head records {head_seq} entries; {seq + 1} to {head_seq} are missing")
    if seq > head_seq or previous != head_hash:
        return _broken(chained, None, head_seq, f"{name}: entry {head_seq} is not the one the signed head records (altered or appended by hand)")
    return ChainCheck(True, chained, f"{name}: {chained} entries, chain whole", legacy=legacy)
