"""Pure: the errors a write introduced into one file — those the server reports for the text after
the write and not for the text before it, each error before carried to its line after the write
(a line diff), compared on (line, message)."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from typing import Protocol

from gateway.results import NewError


class Reported(Protocol):
    """One error the server reported (`gateway.lsp.diagnostics.ServerDiagnostic`), 1-based."""

    @property
    def line(self) -> int: ...
    @property
    def column(self) -> int: ...
    @property
    def message(self) -> str: ...
    @property
    def source(self) -> str: ...


def line_ranges(before: str, after: str) -> list[tuple[int, int]]:
    """For each line of `before` (index 0 is line 1), the 1-based lines of `after` it became:
    (n, n) for a line the write kept, the span of the lines that replaced it for one it changed
    ((n, n - 1), empty, for one it deleted)."""
    old, new = before.splitlines(), after.splitlines()
    # The lines both texts begin and end with are kept as they are; only what lies between is
    # diffed (a whole-file diff of a 2,630-line file took ~25 ms per write).
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    ranges: list[tuple[int, int]] = [(i + 1, i + 1) for i in range(head)] + [(0, -1)] * (len(old) - head - tail)
    matcher = difflib.SequenceMatcher(None, old[head : len(old) - tail], new[head : len(new) - tail], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            ranges[head + i] = (head + j1 + (i - i1) + 1, head + j1 + (i - i1) + 1) if tag == "equal" else (head + j1 + 1, head + j2)
    shift = len(new) - len(old)
    return ranges + [(i + shift + 1, i + shift + 1) for i in range(len(old) - tail, len(old))]


def renamed_in(message: str, renames: Mapping[str, str]) -> str:
    """`message` with each name the write renamed spelled as it is after the write (an error
    about `helper` before a rename is the same error about `helper2` after it)."""
    for old, new in renames.items():
        message = re.sub(rf"(?<![\w$]){re.escape(old)}(?![\w$])", lambda _: new, message)
    return message


def introduced(display: str, before: str, after: str, errors_before: Sequence[Reported],
               errors_after: Sequence[Reported], renames: Mapping[str, str] | None = None) -> tuple[NewError, ...]:
    """The errors after the write that no error before it accounts for: same message (names the
    write renamed, `renames`, read as renamed), at the line the earlier one's line became (or
    within the lines that replaced it). Each earlier error accounts for one later one."""
    ranges = line_ranges(before, after) if before != after and errors_before else None
    unmatched: dict[str, list[tuple[int, int]]] = {}
    for error in errors_before:
        if ranges is None:
            span = (error.line, error.line)
        elif 1 <= error.line <= len(ranges):
            span = ranges[error.line - 1]
        else:  # past the last line (an error at the end of the file): it stays at the end
            end = len(after.splitlines()) + 1
            span = (end - 1, end)
        unmatched.setdefault(renamed_in(error.message, renames or {}), []).append(span)
    new = []
    for error in sorted(errors_after, key=lambda e: (e.line, e.column)):
        spans = unmatched.get(error.message, [])
        match = next((s for s in spans if s[0] <= error.line <= s[1]), None)
        if match is not None:
            spans.remove(match)
            continue
        new.append(NewError(display, error.line, error.column, error.message, error.source))
    return tuple(new)
