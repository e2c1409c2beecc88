"""The audit log's hash chain checked line by line against its signed head."""

from __future__ import annotations

import json
from typing import Any

from gateway.atomic import sha256

GENESIS = "0" * 64


def _broken(entries: int, line: int | None, seq: int | None, message: str) -> dict[str, Any]:
    cut = {"line": line, "seq": seq} if line is not None else None
    return {"ok": False, "entries": entries, "cut_at": cut, "message": message}


def check_chain(lines: list[bytes], head: tuple[int, str] | None, name: str) -> dict[str, Any]:
    """`{ok, entries, cut_at: {line, seq} | None, legacy, message}` for the log's non-blank lines."""
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
        return {"ok": True, "entries": 0, "cut_at": None, "legacy": legacy, "message": f"{name}: empty"}
    head_seq, head_hash = head
    if seq < head_seq:
        line = len(lines) + 1
        return _broken(chained, line, seq + 1, f"{name}: cut after entry {seq} (line {line - 1}): the signed head records {head_seq} entries; {seq + 1} to {head_seq} are missing")
    if seq > head_seq or previous != head_hash:
        return _broken(chained, None, head_seq, f"{name}: entry {head_seq} is not the one the signed head records (altered or appended by hand)")
    return {"ok": True, "entries": chained, "cut_at": None, "legacy": legacy, "message": f"{name}: {chained} entries, chain whole"}
