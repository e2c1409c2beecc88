"""Offsets, lines and indentation in a file's text (str offsets; LSP columns are UTF-16)."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

from gateway.bounded import Bounded
from gateway.syntax import common_prefix, common_suffix


# A piece of a text's line starts: `seq[lo:hi]`, each moved by `shift`.
_Piece = tuple[tuple[int, ...], int, int, int]
_MOST_PIECES = 24  # an index read through more pieces than this is written out again (one pass)


class LineIndex:
    """A text's line starts, as pieces: the whole tuple for a text indexed afresh; for a text
    that is an edit of an indexed one, that one's pieces before the edit, the edit's own lines,
    and its pieces after the edit moved by the edit's shift. An edit costs its own lines and
    the pieces, not a pass over the lines of the file."""

    __slots__ = ("text", "_pieces", "_firsts", "_counts", "line_count")

    def __init__(self, text: str, pieces: list[_Piece]) -> None:
        self.text, self._pieces = text, [p for p in pieces if p[1] < p[2]]
        self._firsts = [seq[lo] + shift for seq, lo, _, shift in self._pieces]
        self._counts = list(itertools.accumulate((hi - lo for _, lo, hi, _ in self._pieces), initial=0))
        self.line_count = self._counts[-1]

    @classmethod
    def of(cls, text: str) -> LineIndex:
        return _line_index(text)

    @property
    def starts(self) -> tuple[int, ...]:
        """Every line's start, written out."""
        if len(self._pieces) == 1 and self._pieces[0][3] == 0 and self._pieces[0][1] == 0 and self._pieces[0][2] == len(self._pieces[0][0]):
            return self._pieces[0][0]
        return tuple(itertools.chain.from_iterable(seq[lo:hi] if not shift else map(shift.__add__, seq[lo:hi]) for seq, lo, hi, shift in self._pieces))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineIndex) and self.text == other.text and self.starts == other.starts

    __hash__ = None  # type: ignore[assignment]

    def _after(self, offset: int) -> int:
        """How many lines start at or before `offset` (bisect_right over the starts)."""
        k = bisect.bisect_right(self._firsts, offset) - 1
        if k < 0:
            return 0
        seq, lo, hi, shift = self._pieces[k]
        return self._counts[k] + bisect.bisect_right(seq, offset - shift, lo, hi) - lo

    def _start(self, line: int) -> int:
        if line < 0:
            line += self.line_count
        k = bisect.bisect_right(self._counts, line) - 1
        seq, lo, _, shift = self._pieces[k]
        return seq[lo + line - self._counts[k]] + shift

    def _cut(self, low: int, high: int, shift: int) -> list[_Piece]:
        """The pieces of lines [low, high), moved by `shift`."""
        cut = []
        for (seq, lo, hi, moved), first in zip(self._pieces, self._counts, strict=False):
            a, b = max(lo, lo + low - first), min(hi, lo + high - first)
            if a < b:
                cut.append((seq, a, b, moved + shift))
        return cut

    def line_of(self, offset: int) -> int:
        """0-based line of a character offset."""
        return self._after(offset) - 1

    def line_start(self, line: int) -> int:
        return self._start(min(max(line, 0), self.line_count - 1))

    def line_end(self, line: int) -> int:
        """Offset of the line's newline (or of the end of the text)."""
        if line + 1 < self.line_count:
            return self._start(line + 1) - 1
        return len(self.text)

    def from_utf16(self, line: int, column: int) -> int:
        """Character offset of an LSP position (line, UTF-16 code unit column)."""
        if line >= self.line_count:
            return len(self.text)
        start, end = self.line_start(line), self.line_end(line)
        if not _ASTRAL.search(self.text, start, end):  # one unit per character: a server's every symbol, mostly
            return min(start + max(column, 0), end)
        units = 0
        for offset in range(start, end):
            if units >= column:
                return offset
            units += 2 if ord(self.text[offset]) > 0xFFFF else 1
        return end

    def to_utf16(self, offset: int) -> tuple[int, int]:
        line = self.line_of(offset)
        segment = self.text[self.line_start(line) : offset]
        return line, len(segment) + len(_ASTRAL.findall(segment))

    def indentation(self, line: int) -> str:
        start, end = self.line_start(line), self.line_end(line)
        content = self.text[start:end]
        return content[: len(content) - len(content.lstrip(" \t"))]

    def is_blank(self, line: int) -> bool:
        return not self.text[self.line_start(line) : self.line_end(line)].strip()


# The offset tables of the last few texts seen (an operation has two: before and after; a
# daemon judges writes to several files in turn) are kept: one operation asks for them many
# times, and a str keeps its hash, so finding a text again costs no second pass over it.
TEXTS_KEPT = 12
_INDEXES: Bounded[str, LineIndex] = Bounded(TEXTS_KEPT)


def _line_index(text: str) -> LineIndex:
    found = _INDEXES.get(text)
    if found is not None:
        return found
    base = _INDEXES.newest()
    found = (base is not None and _edited_index(base, text)) or _whole_index(text)
    _INDEXES.put(text, found, len(text))
    return found


def _whole_index(text: str) -> LineIndex:
    lines = text.split("\n")
    lines.pop()
    starts = tuple(itertools.accumulate(map((1).__add__, map(len, lines)), initial=0))
    return LineIndex(text, [(starts, 0, len(starts), 0)])


def _edited_index(base: LineIndex, text: str) -> LineIndex | None:
    """`text`'s index from that of a text it is an edit of (the last one indexed: a write's B
    before its A), when they differ only in a small middle: the line starts before the middle
    kept, those after it moved, the middle's own found again. None when they differ more."""
    old = base.text
    prefix = common_prefix(old, text)
    suffix = common_suffix(old, text, min(len(old), len(text)) - prefix)
    end_old, end_new = len(old) - suffix, len(text) - suffix
    if (end_new - prefix) * 8 > len(text):
        return None
    # A line starts after each newline: those before the middle start at or before `prefix`.
    head, tail = base._after(prefix), base._after(end_old)
    middle, at = [], text.find("\n", prefix, end_new)
    while at >= 0:
        middle.append(at + 1)
        at = text.find("\n", at + 1, end_new)
    own = tuple(middle)
    pieces = [*base._cut(0, head, 0), (own, 0, len(own), 0), *base._cut(tail, base.line_count, end_new - end_old)]
    if len(pieces) > _MOST_PIECES:
        starts = LineIndex(text, pieces).starts
        pieces = [(starts, 0, len(starts), 0)]
    return LineIndex(text, pieces)


def _same(offset: int) -> int:
    return offset


# 1 for a byte that starts a UTF-8 character, 0 for a continuation byte (0b10xxxxxx).
_STARTS = bytes(0 if byte & 0xC0 == 0x80 else 1 for byte in range(256))
_NON_ASCII = re.compile("[^\x00-\x7f]")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")  # two UTF-16 code units each
# Texts with more non-ASCII characters than this share of all get a table with an entry per
# character; fewer (source code with a name or a comment in another script) only one per
# non-ASCII character, so one `é` costs nothing like a pass per character in Python.
_SPARSE = 16


@dataclass(frozen=True)
class _Wide:
    """Where a text's non-ASCII characters are: their character offsets, and how many extra
    UTF-8 bytes the ones before each hold (`extra[i]`: before the i-th; the last: all)."""

    chars: list[int]
    extra: list[int]

    @classmethod
    def of(cls, text: str) -> _Wide | None:
        chars: list[int] = []
        if not _non_ascii(text, 0, len(text), chars, len(text) // _SPARSE):
            return None
        sizes = (len(text[c].encode("utf-8", "surrogatepass")) - 1 for c in chars)
        return cls(chars, list(itertools.accumulate(sizes, initial=0)))

    def to_byte(self, offset: int) -> int:
        return offset + self.extra[bisect.bisect_left(self.chars, offset)]

    def to_char(self, offset: int) -> int:
        starts = self.byte_starts
        at = bisect.bisect_right(starts, offset) - 1
        if at < 0:
            return offset
        if offset < starts[at] + self.extra[at + 1] - self.extra[at] + 1:
            return self.chars[at]  # at or inside the character
        return offset - self.extra[at + 1]

    @functools.cached_property
    def byte_starts(self) -> list[int]:
        return [c + e for c, e in zip(self.chars, self.extra)]


def _non_ascii(text: str, start: int, end: int, found: list[int], limit: int) -> bool:
    """The offsets of text[start:end]'s non-ASCII characters added to `found`, halving the
    span while it holds any (str.isascii runs in C; a regex would step through every
    character); False once there are more than `limit`."""
    if text[start:end].isascii():
        return True
    if end - start <= 64:
        found.extend(m.start() + start for m in _NON_ASCII.finditer(text[start:end]))
        return len(found) <= limit
    middle = (start + end) // 2
    return _non_ascii(text, start, middle, found, limit) and _non_ascii(text, middle, end, found, limit)


def char_to_byte(text: str) -> Callable[[int], int]:
    """A function from character offsets of `text` to UTF-8 byte offsets."""
    return _conversion(_TO_BYTE, text, _wide_char_to_byte)


def byte_to_char(text: str) -> Callable[[int], int]:
    """A function from UTF-8 byte offsets of `text` to character offsets (an offset inside a
    character gives that character)."""
    return _conversion(_TO_CHAR, text, _wide_byte_to_char)


def _conversion(kept: Bounded[str, Callable[[int], int]], text: str, make: Callable[[str], Callable[[int], int]]) -> Callable[[int], int]:
    """`make(text)`, kept in `kept`; the identity for an ASCII text, which keeps nothing."""
    if text.isascii():
        return _same
    found = kept.get(text)
    if found is None:
        found = make(text)
        kept.put(text, found, len(text))
    return found


# The conversions of the last few texts with non-ASCII characters, by text (held as the key: an
# ASCII text's needs none, so is not kept); a table per character of a text full of them is large.
_TO_BYTE: Bounded[str, Callable[[int], int]] = Bounded(6)
_TO_CHAR: Bounded[str, Callable[[int], int]] = Bounded(6)


def _wide_char_to_byte(text: str) -> Callable[[int], int]:
    wide = _Wide.of(text)
    if wide is not None:
        return wide.to_byte
    encoded = text.encode("utf-8", "surrogatepass")
    table = list(itertools.compress(range(len(encoded)), encoded.translate(_STARTS)))
    table.append(len(encoded))
    return table.__getitem__


def _wide_byte_to_char(text: str) -> Callable[[int], int]:
    wide = _Wide.of(text)
    if wide is not None:
        return wide.to_char
    encoded = text.encode("utf-8", "surrogatepass")
    table = list(itertools.accumulate(encoded.translate(_STARTS), initial=-1))
    table[0] = len(text)
    table.append(table.pop(0))
    return table.__getitem__


def reindent(code: str, indent: str) -> str:
    """Move `code` to `indent`: the first non-blank line's indentation is replaced by it.

    Lines that do not start with that base indentation (continuations of a string literal
    at column 0, say) and empty lines are left exactly as they are, so literal contents never
    change; nor does a blank at a line's end.
    """
    lines = code.strip("\n").split("\n")
    first = next((line for line in lines if line.strip()), "")
    base = first[: len(first) - len(first.lstrip(" \t"))]
    moved = []
    for line in lines:
        if not line:
            moved.append("")
        elif line.startswith(base):
            moved.append(indent + line[len(base) :])
        else:
            moved.append(line)
    return "\n".join(moved)


_CLOSERS = ("}", "end")


def as_taken_from_column(code: str, indent: str) -> str | None:
    """`code` moved to `indent` when it reads as text cut from its column (an LSP range's text:
    the first line without its indentation, the others as they stood); None when it does not:
    the first line is indented, or the others are not all past the column, or sit exactly at it
    without closing the definition there (`}`, `end`), which is a dedented body of that width."""
    lines = code.strip("\n").split("\n")
    rest = [line for line in lines[1:] if line.strip()]
    if not indent or not rest or lines[0][:1] in (" ", "\t") or not all(line.startswith(indent) for line in rest):
        return None
    deepest_first = min(len(line) - len(line.lstrip(" \t")) for line in rest)
    closes = rest[-1].startswith(indent) and rest[-1][len(indent):].startswith(_CLOSERS)
    if deepest_first <= len(indent) and not closes:
        return None
    return indent + "\n".join(line if line.strip() else "" for line in lines)
