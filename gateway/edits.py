"""Exact-match string edits: the only edit the gate ever lets through as text."""

from __future__ import annotations

from dataclasses import dataclass

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
        raise NotFound(f"old_string not found in {where}")
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
