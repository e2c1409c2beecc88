"""Edits cut without the gateway: where each one starts and ends owes nothing to `gateway.*`.

The polyglot and replay benchmarks' own cuts (one edit per definition, found by the
gateway's tree-sitter definitions; git's hunks) are joined here by cuts that ignore
definitions altogether, seeded so that a run is repeatable:

- `hunk_cuts`: difflib's line hunks, each given a random number of context lines above and
  below (0-4) and merged with the next hunk at random, the way `git diff -U<n>` or an agent
  copying a few lines around a change would;
- `middle_cuts`: the same changes, but every old_string starts and ends at a random column
  of a line (mid-statement, mid-definition), and a change of more than a few lines is split
  in two at a random line on each side, so that one edit leaves a definition half rewritten
  and the next one finishes it;
- `formatted`: the whole file after the language's own formatter (ruff format, gofmt,
  rustfmt, TypeScript's formatDocument for JavaScript), where one is installed, to be sent
  as one write.

Each cut's old_string occurs exactly once in the text it applies to (widened until it does)
and is not blank; applied in order as plain string replacements, the cuts give the after-text
byte for byte. This module imports nothing from the gateway, on purpose.
"""

from __future__ import annotations

import difflib
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import zlib
from dataclasses import dataclass
from pathlib import Path

SEED = 20261128
MOST_CONTEXT = 4  # lines of context above and below a hunk, drawn from 0..MOST_CONTEXT
MOST_COLUMNS = 60  # characters a mid-line cut reaches beyond the change, drawn from 1..MOST_COLUMNS
SPLIT_FROM = 4  # a change of at least this many lines on one side is split in two by middle_cuts


@dataclass(frozen=True)
class Cut:
    """One old_string → new_string replacement; `label` says which lines of the text it applies to."""

    kind: str
    label: str
    old: str
    new: str


@dataclass(frozen=True)
class _Change:
    """Lines [i1, i2) of the before-text become lines [j1, j2) of the after-text."""

    i1: int
    i2: int
    j1: int
    j2: int


def seeded(*parts: str) -> random.Random:
    """A generator seeded by SEED and the parts (an exercise and a path, say): the same cuts every run."""
    return random.Random(zlib.crc32("\0".join((str(SEED), *parts)).encode()))


def lines_of(text: str) -> list[str]:
    """Lines split after each LF, endings kept (a last line without one kept as it is)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _changes(before: list[str], after: list[str], rng: random.Random) -> list[_Change]:
    """difflib's differing line ranges, each merged with the next one at random when few lines part them."""
    found: list[_Change] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if found and i1 - found[-1].i2 <= rng.randint(0, 2 * MOST_CONTEXT):
            found[-1] = _Change(found[-1].i1, i2, found[-1].j1, j2)
        else:
            found.append(_Change(i1, i2, j1, j2))
    return found


def occurs_once(text: str, part: str) -> bool:
    """`part` occurs exactly once in `text`, overlapping occurrences counted."""
    first = text.find(part)
    return first != -1 and text.find(part, first + 1) == -1


def _unique(text: str, low: int, high: int, widen: tuple[int, int], rng: random.Random) -> tuple[int, int]:
    """[low, high) of `text` widened (a random step in `widen` characters, above then below
    by turns) until it is not blank and occurs once; the whole text at most."""
    upward = True
    while not (text[low:high].strip() and occurs_once(text, text[low:high])) and (low > 0 or high < len(text)):
        step = rng.randint(*widen)
        if (upward and low > 0) or high >= len(text):
            low = max(0, low - step)
        else:
            high = min(len(text), high + step)
        upward = not upward
    return low, high


def _line_widen(text: str, low: int, high: int) -> tuple[int, int]:
    """[low, high) grown by one whole line above and one below."""
    low = text.rfind("\n", 0, max(low - 1, 0)) + 1 if low > 0 else 0
    at = text.find("\n", high)
    return low, len(text) if at == -1 else at + 1


def _label(text: str, low: int, high: int) -> str:
    """Which lines of `text` [low, high) touches, counted from 1."""
    first = text.count("\n", 0, low) + 1
    return f"lines {first}-{max(first, text.count(chr(10), 0, max(high - 1, low)) + 1)}"


def hunk_cuts(before: str, after: str, rng: random.Random) -> list[Cut]:
    """The change as difflib hunks with random context (see the module's docstring), top down."""
    current, target = lines_of(before), lines_of(after)
    cuts, shift = [], 0
    for change in _changes(current, target, rng):
        i1, i2 = change.i1 + shift, change.i2 + shift
        low, high = max(0, i1 - rng.randint(0, MOST_CONTEXT)), min(len(current), i2 + rng.randint(0, MOST_CONTEXT))
        text = "".join(current)
        start, end = sum(map(len, current[:low])), sum(map(len, current[:high]))
        while not (text[start:end].strip() and occurs_once(text, text[start:end])) and (start > 0 or end < len(text)):
            start, end = _line_widen(text, start, end)
        head, tail = text[start : sum(map(len, current[:i1]))], text[sum(map(len, current[:i2])) : end]
        new = head + "".join(target[change.j1 : change.j2]) + tail
        if not text[start:end].strip():
            return []  # a blank file: nothing to anchor an edit on, it takes a write
        cuts.append(Cut("hunk", _label(text, start, end), text[start:end], new))
        current = lines_of(text[:start] + new + text[end:])
        shift += (change.j2 - change.j1) - (change.i2 - change.i1)
    return cuts


def _halves(change: _Change, rng: random.Random) -> list[_Change]:
    """A change of SPLIT_FROM lines or more on a side split at a random line of each side. The
    first half never takes a side's last line: the file's last line may have no newline to end it."""
    if max(change.i2 - change.i1, change.j2 - change.j1) < SPLIT_FROM:
        return [change]
    cut_i = rng.randint(change.i1, max(change.i1, change.i2 - 1))
    cut_j = rng.randint(change.j1, max(change.j1, change.j2 - 1))
    halves = [_Change(change.i1, cut_i, change.j1, cut_j), _Change(cut_i, change.i2, cut_j, change.j2)]
    return [half for half in halves if (half.i1, half.j1) != (half.i2, half.j2)]


def middle_cuts(before: str, after: str, rng: random.Random) -> list[Cut]:
    """The change as edits that start and end at random columns (see the module's docstring), top down."""
    current, target = lines_of(before), lines_of(after)
    cuts, shift = [], 0
    for change in [half for whole in _changes(current, target, rng) for half in _halves(whole, rng)]:
        i1, i2 = change.i1 + shift, change.i2 + shift
        text = "".join(current)
        at, to = sum(map(len, current[:i1])), sum(map(len, current[:i2]))
        low, high = max(0, at - rng.randint(1, MOST_COLUMNS)), min(len(text), to + rng.randint(1, MOST_COLUMNS))
        low, high = _unique(text, low, high, (1, MOST_COLUMNS), rng)
        if not text[low:high].strip():
            return []
        new = text[low:at] + "".join(target[change.j1 : change.j2]) + text[to:high]
        if new != text[low:high]:  # a half can leave its lines as they were
            cuts.append(Cut("middle", _label(text, low, high), text[low:high], new))
        current = lines_of(text[:low] + new + text[high:])
        shift += (change.j2 - change.j1) - (change.i2 - change.i1)
    return cuts


def plain(text: str, cuts: list[Cut]) -> str:
    """The cuts applied in order as plain string replacements (each old_string once)."""
    for cut in cuts:
        text = text.replace(cut.old, cut.new, 1)
    return text


# The formatter of each language, run on stdin: (program, arguments); JavaScript's is
# TypeScript's own (polyglot_format.js); none for C++ or Java here (clang-format and
# google-java-format do not install).
TYPESCRIPT = Path(__file__).resolve().parent.parent / ".tools" / "node" / "node_modules" / "typescript"
FORMATTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "python": ("ruff", ("format", "--isolated", "--quiet", "-")),
    "go": ("gofmt", ()),
    "rust": ("rustfmt", ("--edition", "2021", "--emit", "stdout")),
    "javascript": ("node", (str(Path(__file__).with_name("polyglot_format.js")), str(TYPESCRIPT))),
}


@dataclass(frozen=True)
class Formatted:
    formatter: str  # what ran, with its version
    text: str


def _program(name: str) -> str | None:
    """A program on PATH, or beside this Python (ruff in the project's virtual environment)."""
    return shutil.which(name) or shutil.which(name, path=os.path.dirname(sys.executable))


@functools.cache
def formatter_name(language: str) -> str | None:
    """The formatter `formatted` runs for the language, with its version; None where none is installed."""
    entry = FORMATTERS.get(language)
    program = _program(entry[0]) if entry else None
    if entry is None or program is None:
        return None
    if language == "go":
        return "gofmt"  # gofmt has no version flag; it is the Go toolchain's
    if language == "javascript":
        manifest = TYPESCRIPT / "package.json"
        return f"typescript {json.loads(manifest.read_text())['version']} formatDocument" if manifest.is_file() else None
    done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60, check=False)
    return done.stdout.strip().splitlines()[0] if done.returncode == 0 and done.stdout.strip() else entry[0]


def formatted(language: str, text: str) -> Formatted | None:
    """`text` through the language's formatter; None where there is none, or it refuses the text."""
    entry = FORMATTERS.get(language)
    program = _program(entry[0]) if entry else None
    name = formatter_name(language)
    if entry is None or program is None or name is None:
        return None
    done = subprocess.run([program, *entry[1]], input=text, capture_output=True, text=True, timeout=120, check=False)
    return Formatted(name, done.stdout) if done.returncode == 0 and done.stdout.strip() else None
