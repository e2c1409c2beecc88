"""B → A: the file before and after a write, exactly as the write produces it, and where they differ.

The gate judges these two texts, never what old_string happens to mention. An Edit's A
is computed by the very function that performs the edit, on the same text, so the gate
and the write can never look at different occurrences.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gateway.edits import apply_string_edit, common_ends, common_prefix, common_suffix
from gateway.errors import UsageError

# What counts as a line break when deciding whether a write is multi-line.
LINE_BREAK = re.compile("\r\n|[\r\n\u2028\u2029]")
_BREAKS = "\r\n\u2028\u2029"
# Envelopes longer than this are diffed as one region (difflib is quadratic at worst).
MAX_DIFF_LINES = 4000


def spans_lines(text: str) -> bool:
    """Two or more lines, not counting line breaks at either end."""
    return LINE_BREAK.search(text.strip(_BREAKS)) is not None


def line_breaks(text: str, start: int = 0, end: int | None = None) -> int:
    """How many line breaks (as LINE_BREAK counts them) text[start:end] holds."""
    end = len(text) if end is None else end
    count = text.count("\n", start, end)
    # str.find of one character runs as memchr; counting a character that is absent costs more.
    if text.find("\r", start, end) >= 0:
        count += text.count("\r", start, end) - text.count("\r\n", start, end)
    for separator in ("\u2028", "\u2029"):
        if text.find(separator, start, end) >= 0:
            count += text.count(separator, start, end)
    return count


def check_text(value: str, field: str) -> str:
    """An agent's string, refused when it cannot be written as text (a lone surrogate)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        raise UsageError(f"{field} holds {error.reason} at character {error.start}; it cannot be written as text") from None
    return value


@dataclass(frozen=True)
class Region:
    """One changed span: characters [before) of B became characters [after) of A."""

    before: tuple[int, int]
    after: tuple[int, int]


@dataclass(frozen=True)
class Effect:
    """A write's net effect on one file. `before` is None when the write creates the file."""

    path: str
    before: str | None
    after: str
    regions: tuple[Region, ...]
    multi_line: bool
    replacements: int = 1
    lines: tuple[int, ...] = ()

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _trimmed(before: str, after: str, b: tuple[int, int], a: tuple[int, int]) -> Region:
    """A region shrunk to where the two sides really differ."""
    head = common_prefix(before[b[0] : b[1]], after[a[0] : a[1]])
    b0, a0 = b[0] + head, a[0] + head
    tail = common_suffix(before[b0 : b[1]], after[a0 : a[1]], min(b[1] - b0, a[1] - a0))
    return Region((b0, b[1] - tail), (a0, a[1] - tail))


def _line_starts(lines: Sequence[str], origin: int) -> list[int]:
    starts = [origin]
    for line in lines:
        starts.append(starts[-1] + len(line))
    return starts


def diff(before: str, after: str) -> tuple[tuple[Region, ...], int]:
    """The changed regions from B to A and how many lines the change touches (on the larger side)."""
    if before == after:
        return (), 0
    head, tail = common_ends(before, after)
    # Whole lines around the change, so the line diff sees lines as the file has them.
    start = max(before.rfind(ch, 0, head) for ch in _BREAKS) + 1
    b_lines = before[start : len(before) - tail].splitlines(keepends=True)
    a_lines = after[start : len(after) - tail].splitlines(keepends=True)
    if max(len(b_lines), len(a_lines)) > MAX_DIFF_LINES:
        region = Region((head, len(before) - tail), (head, len(after) - tail))
        return (region,), max(len(b_lines), len(a_lines))
    b_starts, a_starts = _line_starts(b_lines, start), _line_starts(a_lines, start)
    regions, touched = [], 0
    matcher = difflib.SequenceMatcher(None, b_lines, a_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        touched += max(i2 - i1, j2 - j1)
        regions.append(_trimmed(before, after, (b_starts[i1], b_starts[i2]), (a_starts[j1], a_starts[j2])))
    return tuple(regions), touched


def edit_effect(path: str, text: str, old: str, new: str, replace_all: bool = False) -> Effect:
    """Replacing old with new in `text`, as `gateway edit` and the host's Edit perform it."""
    check_text(old, "old_string")
    check_text(new, "new_string")
    edit = apply_string_edit(text, old, new, replace_all, path)
    regions, touched = diff(text, edit.text)
    multi = spans_lines(old) or spans_lines(new) or touched > 1
    return Effect(path, text, edit.text, regions, multi, edit.replacements, edit.lines)


def span_effect(path: str, text: str, start: int, end: int, new: str) -> Effect:
    """Characters [start, end) of `text` replaced by `new` (a contract's anchored step)."""
    check_text(new, "text")
    after = text[:start] + new + text[end:]
    regions, touched = diff(text, after)
    multi = spans_lines(text[start:end]) or spans_lines(new) or touched > 1
    line = line_breaks(text, 0, start) + 1
    return Effect(path, text, after, regions, multi, 1, (line,))


def multi_edit_effect(path: str, text: str, edits: Sequence[tuple[str, str, bool]]) -> Effect:
    """Each (old, new, replace_all) applied to what the earlier ones leave, judged on the net change."""
    if not edits:
        raise UsageError("edits: at least one edit is required")
    current, multi, lines = text, False, []
    for number, (old, new, replace_all) in enumerate(edits):
        check_text(old, f"edits[{number}].old_string")
        check_text(new, f"edits[{number}].new_string")
        edit = apply_string_edit(current, old, new, replace_all, f"{path} (edit {number + 1})")
        multi = multi or spans_lines(old) or spans_lines(new)
        lines.extend(edit.lines)
        current = edit.text
    regions, touched = diff(text, current)
    return Effect(path, text, current, regions, multi or touched > 1, len(edits), tuple(lines))


def write_effect(path: str, text: str | None, content: str) -> Effect:
    """A whole-file write of `content` over `text` (None: the file is created)."""
    check_text(content, "content")
    if text is None:
        return Effect(path, None, content, (Region((0, 0), (0, len(content))),), spans_lines(content))
    regions, touched = diff(text, content)
    return Effect(path, text, content, regions, touched > 1)
