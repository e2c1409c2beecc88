"""Exact-match string edits: the only edit the gate ever lets through as text."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import AnyStr

from gateway.bounded import Bounded
from gateway.errors import Ambiguous, NotFound, UsageError


@dataclass(frozen=True)
class StringEdit:
    text: str
    replacements: int
    lines: tuple[int, ...]


def occurrences(text: str, old: str) -> list[int]:
    """Offsets of the non-overlapping occurrences of `old`, as str.replace would see them."""
    found: list[int] = []
    start = text.find(old)
    while start != -1 and old:
        found.append(start)
        start = text.find(old, start + len(old))
    return found


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def apply_string_edit(text: str, old: str, new: str, replace_all: bool, where: str) -> StringEdit:
    if not old:
        raise UsageError("old_string is empty: nothing to match")
    if old == new:
        raise UsageError("old_string and new_string are identical: nothing to change")
    found = occurrences(text, old)
    lines = tuple(line_of(text, offset) for offset in found)
    if not found:
        raise NotFound(f"old_string not found in {where}{nearest_lines(text, old)}")
    if len(found) > 1 and not replace_all:
        shown = ", ".join(map(str, lines[:10])) + (", ..." if len(lines) > 10 else "")
        raise Ambiguous(
            f"old_string occurs {len(found)} times in {where} (lines {shown}); "
            "add surrounding context to make it unique or use replace_all"
        )
    if replace_all:
        return StringEdit(text.replace(old, new), len(found), lines)
    start = found[0]
    return StringEdit(text[:start] + new + text[start + len(old) :], 1, lines)


def nearest_lines(text: str, old: str, limit: int = 50_000) -> str:
    """Where the file has lines like old_string's first one, as "; nearest: line N: ..." (or "")."""
    wanted = next((line.strip() for line in old.splitlines() if line.strip()), "")
    lines = text.splitlines()
    if not wanted or len(lines) > limit:
        return ""
    stripped = [line.strip() for line in lines]
    close = set(difflib.get_close_matches(wanted, stripped, n=3, cutoff=0.6))
    numbers = [number for number, line in enumerate(stripped, 1) if line in close][:3]
    if not numbers:
        return ""
    return "; nearest: " + ", ".join(f"line {n} {stripped[n - 1][:60]!r}" for n in numbers)


_STEP = 4096


def common_prefix(a: AnyStr, b: AnyStr) -> int:
    """The length of the longest prefix they share (texts or bytes): in steps that double (a
    long text's shared part is passed in a few slices), then by halving within the step that
    differs."""
    limit, at, step = min(len(a), len(b)), 0, _STEP
    while at < limit and a[at : at + step] == b[at : at + step]:
        at, step = min(at + step, limit), step * 2
    low, high = at, min(at + step, limit)
    while low < high:  # a[:low] == b[:low]; they differ before `high` (or it is the limit)
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def common_suffix(a: AnyStr, b: AnyStr, limit: int) -> int:
    """The length of the longest suffix they share, at most `limit` (as `common_prefix`, from the end)."""
    at, step = 0, _STEP
    while at < limit and a[len(a) - min(at + step, limit) : len(a) - at] == b[len(b) - min(at + step, limit) : len(b) - at]:
        at, step = min(at + step, limit), step * 2
    low, high = at, min(at + step, limit)
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle : len(a) - low] == b[len(b) - middle : len(b) - low]:
            low = middle
        else:
            high = middle - 1
    return low


# Where the last few pairs of texts differ, by their kind and lengths: one write's B and A are
# compared by its effect, its line index, its incremental parse and its verification's mapping,
# each a pass over what the two share. A pair found is checked to hold the same texts (the same
# objects, or copies: a file read twice), which costs less than comparing them again piecewise.
_ENDS: Bounded[tuple[type, int, int], tuple[object, object, int, int]] = Bounded(4)


def common_ends(a: AnyStr, b: AnyStr) -> tuple[int, int]:
    """(the longest prefix they share, the longest suffix they share after it): `common_prefix`
    and `common_suffix` within what the prefix leaves, worked out once per pair of texts."""
    key = (type(a), len(a), len(b))
    kept = _ENDS.get(key)
    if kept is not None and (kept[0] is a or kept[0] == a) and (kept[1] is b or kept[1] == b):
        return kept[2], kept[3]
    prefix = common_prefix(a, b)
    suffix = common_suffix(a, b, min(len(a), len(b)) - prefix)
    _ENDS.put(key, (a, b, prefix, suffix), len(a) + len(b))
    return prefix, suffix
