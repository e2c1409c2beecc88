"""Removed definitions, remembered so that inserting the same code back where it was restores
the file's bytes.

A removal takes the blank lines on one side of a definition; nothing left in the file says
that it had one blank line above and two below, or that it stood after a section comment.
The last removals from each file are kept in the user's state directory, keyed by the file's
real path and by its text after the removal. Inserting the same code into the same gap of that
same text puts back exactly what was removed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from gateway.symbols.model import Symbol
from gateway.symbols.operations import siblings, top_level
from gateway.symbols.text import reindent
from gateway.userstate import private_file, state_home

KEPT_PER_FILE = 8


@dataclass(frozen=True)
class Removal:
    digest: str  # of the text the removal left
    offset: int  # where, in that text, the removed characters were
    removed: str
    code: str  # the definition itself, as an insertion would bring it

    def lines(self, text: str) -> tuple[int, int]:
        """The definition's first and last line once put back into `text`."""
        first = text.count("\n", 0, self.offset + len(self.removed) - len(self.removed.lstrip("\n"))) + 1
        return first, first + self.code.count("\n")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _same_code(code: str) -> str:
    return reindent(code.strip("\n"), "").rstrip()


def _store(path: Path) -> Path:
    return state_home() / "removed" / (hashlib.blake2b(str(path).encode(), digest_size=16).hexdigest() + ".json")


def _load(path: Path) -> list[Removal]:
    try:
        return [Removal(**entry) for entry in json.loads(_store(path).read_text("utf-8"))]
    except (OSError, ValueError, TypeError):
        return []


def remember(path: Path, before: str, symbol: Symbol, span: tuple[int, int], after: str) -> None:
    """Record that `span` of `before` (holding `symbol`) was removed, leaving `after`."""
    entry = Removal(_digest(after), span[0], before[span[0] : span[1]], _same_code(before[symbol.doc_start : symbol.end]))
    store = _store(path)
    try:
        store.parent.mkdir(mode=0o700, exist_ok=True)
        kept = [asdict(r) for r in _load(path)[-(KEPT_PER_FILE - 1) :]] + [asdict(entry)]
        private_file(store, json.dumps(kept).encode(), durable=False)
    except OSError:
        pass  # without the record a later insertion is still correct, only not byte-exact


def _gap(symbols: list[Symbol], text: str, anchor: Symbol | None, position: str) -> tuple[int, int]:
    """The characters between `anchor` and its neighbour on the `position` side."""
    if anchor is None:
        top = top_level(symbols)
        return (max((s.end for s in top), default=0), len(text)) if position == "after" else (0, min((s.doc_start for s in top), default=len(text)))
    beside = siblings(symbols, anchor)
    at = beside.index(anchor)
    parents = [s for s in symbols if s.contains(anchor)]
    low, high = (max(p.start for p in parents), min(p.end for p in parents)) if parents else (0, len(text))
    if position == "after":
        return anchor.end, beside[at + 1].doc_start if at + 1 < len(beside) else high
    return beside[at - 1].end if at > 0 else low, anchor.doc_start


def recall(path: Path, text: str, symbols: list[Symbol], anchor: Symbol | None, position: str, code: str) -> Removal | None:
    """The removal that inserting `code` beside `anchor` in `text` would undo, if there is one."""
    digest, wanted = _digest(text), _same_code(code)
    low, high = _gap(symbols, text, anchor, position)
    return next(
        (r for r in reversed(_load(path)) if r.digest == digest and r.code == wanted and low <= r.offset <= high),
        None,
    )
