"""Proof of a rename, judged by a language's own resolver, not the gateway.

A reference oracle resolves every identifier of a text to the declaration it denotes (a key
that is equal for two identifiers exactly when they denote the same thing) and counts the
text's errors. A rename of the definition whose name is at `name_start` from `old` to `new` is
proven when, in the text before:
- every identifier resolved to that definition (its references, the name itself included) is
  spelled `new` after;
- every identifier spelled `old` that resolves to something else (a namesake: a local, a
  member of another class) is still `old` after;
- nothing else changed but identifiers spelled `old` (occurrences the resolver cannot place,
  in comments, strings or unresolved member accesses, may go either way);
and the text after still parses and has no more errors than before (where the resolver's
error count depends on the text alone).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class Resolution:
    """Character offset of each resolved identifier -> the key of what it denotes, and the
    number of errors the resolver found in the text (parse, name or type errors). Errors are
    not comparable where they depend on more than the text (a JDK class compiled alone
    resolves its own name to the JDK's copy, a renamed one to itself)."""

    names: dict[int, str]
    errors: int
    errors_comparable: bool = True


class ReferenceOracle(Protocol):
    name: str

    def resolve(self, path: Path, text: str) -> Resolution | None:
        """The text's resolved identifiers, or None when it does not parse."""
        ...


def _occurrences(text: str, word: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<![\w$])" + re.escape(word) + r"(?![\w$])", text)]


def renamed_occurrences(before: str, after: str, old: str, new: str) -> set[int] | None:
    """Offsets (in `before`) of the identifiers spelled `old` that are spelled `new` in `after`;
    None when `after` differs from `before` by anything else."""
    renamed: set[int] = set()
    at_before = at_after = 0
    for occurrence in _occurrences(before, old):
        between = before[at_before:occurrence]
        if not after.startswith(between, at_after):
            return None
        at_after += len(between)
        following = after[at_after + len(new) : at_after + len(new) + 1]
        if after.startswith(new, at_after) and not re.match(r"[\w$]", following):
            renamed.add(occurrence)
            at_after += len(new)
        elif after.startswith(old, at_after):
            at_after += len(old)
        else:
            return None
        at_before = occurrence + len(old)
    return renamed if after[at_after:] == before[at_before:] else None


def judge_rename(oracle: ReferenceOracle, path: Path, before: str, after: str, name_start: int, old: str, new: str) -> str | None:
    """None when the oracle proves the rename of the definition named at `name_start`; else why not."""
    first = oracle.resolve(path, before)
    if first is None:
        return f"{oracle.name} does not parse the file before the rename"
    target = first.names.get(name_start)
    if target is None:
        return f"{oracle.name} resolves no declaration at offset {name_start}"
    renamed = renamed_occurrences(before, after, old, new)
    if renamed is None:
        return f"the rename changed more than identifiers spelled {old}"
    spelled = set(_occurrences(before, old))
    references = {at for at, key in first.names.items() if key == target and at in spelled}
    namesakes = {at for at, key in first.names.items() if key != target and at in spelled}
    left, wrong = sorted(references - renamed), sorted(namesakes & renamed)
    if left:
        return f"{len(left)} of {len(references)} references to {old} left unrenamed (first at line {before.count(chr(10), 0, left[0]) + 1})"
    if wrong:
        return f"{len(wrong)} unrelated {old} renamed too (first at line {before.count(chr(10), 0, wrong[0]) + 1})"
    second = oracle.resolve(path, after)
    if second is None:
        return f"{oracle.name} does not parse the file after the rename"
    if first.errors_comparable and second.errors > first.errors:
        return f"{oracle.name} finds {second.errors} errors after the rename, {first.errors} before"
    return None


def char_offsets(text: str, unit: str) -> list[int]:
    """For each offset in `unit`s ("utf-8" bytes or "utf-16" code units) the character offset
    (the index has one entry per unit, and one past the end)."""
    table: list[int] = []
    for index, char in enumerate(text):
        width = len(char.encode("utf-16-le")) // 2 if unit == "utf-16" else len(char.encode())
        table += [index] * width
    table.append(len(text))
    return table
