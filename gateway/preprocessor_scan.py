"""Pure: what a few of the preprocessor's patterns find in a C or C++ text, found from where they
can match (a `#`, a macro's name) instead of trying every line start or word: the same matches,
in the same order, as the patterns' own `finditer` over the whole text."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

Span = tuple[int, int]

_WORD = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")  # `\w` of a bytes pattern
_DECLARED = re.compile(rb"[ \t]+[A-Za-z_]")


def hash_lines(pattern: re.Pattern[bytes], source: bytes) -> Iterator[re.Match[bytes]]:
    """`pattern.finditer(source)`, for a MULTILINE pattern that starts `^[ \\t]*#`: tried at the
    start of each line whose first text is a `#`, not at every byte."""
    at, end = source.find(b"#"), 0
    while at >= 0:
        start = source.rfind(b"\n", 0, at) + 1
        if start >= end and not source[start:at].strip(b" \t"):
            found = pattern.match(source, start)
            if found is not None:
                yield found
                end = found.end()
        line_end = source.find(b"\n", at)
        at = source.find(b"#", line_end + 1) if line_end >= 0 else -1


def whole_words(source: bytes, names: Sequence[bytes]) -> list[Span]:
    """Where one of `names` (identifiers) stands as a whole word: `\\b(?:names)\\b`."""
    found = []
    for name in names:
        at = source.find(name)
        while at >= 0:
            end = at + len(name)
            if (at == 0 or source[at - 1] not in _WORD) and (end == len(source) or source[end] not in _WORD):
                found.append((at, end))
            at = source.find(name, at + 1)
    return sorted(found)


def first_words(source: bytes, names: Sequence[bytes]) -> list[Span]:
    """Where a line starts (after blanks) with one of `names` (identifiers) followed by blanks and
    a letter: `^[ \\t]*(names)(?=[ \\t]+[A-Za-z_])`, the name's span."""
    found = []
    for name in names:
        at = source.find(name)
        while at >= 0:
            if not source[source.rfind(b"\n", 0, at) + 1 : at].strip(b" \t") and _DECLARED.match(source, at + len(name)):
                found.append((at, at + len(name)))
            at = source.find(name, at + 1)
    return sorted(found)
