"""How the paths a record holds stand apart from the paths the workspace lists, kept in step with
each watched check instead of compared whole.

A check after a shell command compares path sets: which listed paths the last record does not
hold (new ones, or gone from the disk) and which it holds that are no longer listed. On 10,000
paths each whole comparison costs about a millisecond, and a check made several. A watched
check makes its files from the last record's by looking again at a few paths (the watch's
events): it says so (`made_from`), and `apart` then answers from the answer for the record it
was made from, looking only at those paths. Any other pair is compared whole. Callers never
change a files mapping once it is made (the answers are kept by identity).
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

KEPT = 8
MAX_DEPTH = 4


@dataclass(frozen=True)
class Apart:
    """`unheld`: paths listed and not held; `unlisted`: paths held and not listed."""

    unheld: frozenset[str]
    unlisted: frozenset[str]


_made: list[tuple[Mapping[str, object], Mapping[str, object], AbstractSet[str]]] = []  # (files, made from, the paths that may differ)
_answers: list[tuple[AbstractSet[str], Mapping[str, object], Apart]] = []  # (listing, files, their Apart), the last few


def made_from(files: Mapping[str, object], base: Mapping[str, object], touched: AbstractSet[str]) -> None:
    """`files` holds `base`'s entries but at `touched` (added, removed or replaced there)."""
    _made.append((files, base, touched))
    del _made[:-KEPT]


def touched_since(files: Mapping[str, object], base: Mapping[str, object]) -> AbstractSet[str] | None:
    """The paths where `files` may differ from `base`, when `made_from` said so; None when not known."""
    return next((touched for made, of, touched in reversed(_made) if made is files and of is base), None)


def apart(listing: AbstractSet[str], files: Mapping[str, object]) -> Apart:
    found = _apart(listing, files, MAX_DEPTH)
    if found is None:
        found = Apart(frozenset(listing - files.keys()), frozenset(files.keys() - listing))
        _remember(listing, files, found)
    return found


def _apart(listing: AbstractSet[str], files: Mapping[str, object], depth: int) -> Apart | None:
    known = next((found for seen, held, found in reversed(_answers) if seen is listing and held is files), None)
    if known is not None or depth == 0:
        return known
    made = next(((of, touched) for made, of, touched in reversed(_made) if made is files), None)
    if made is None:
        return None
    before = _apart(listing, made[0], depth - 1)
    if before is None:
        return None
    found = Apart(frozenset(p for p in (*before.unheld, *made[1]) if p in listing and p not in files),
                  frozenset(p for p in (*before.unlisted, *made[1]) if p not in listing and p in files))
    _remember(listing, files, found)
    return found


def _remember(listing: AbstractSet[str], files: Mapping[str, object], found: Apart) -> None:
    _answers.append((listing, files, found))
    del _answers[:-KEPT]
