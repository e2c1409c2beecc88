"""The tables a routed write names its definitions by (the shortest name path that resolves to
each), made once per list of symbols and kept with it: a long file's thousands of symbols are
not gone over again for every write to it."""

from __future__ import annotations

import operator
import threading
from collections.abc import Sequence

from gateway.namepath import NamePath, address_for
from gateway.symbols.model import Symbol

_KEPT = 2  # a write names by two lists: the backend's symbols of B and tree-sitter's


class Addresses:
    """A list of symbols (in file order), by extent and by name path."""

    def __init__(self, symbols: Sequence[Symbol]) -> None:
        self.symbols = list(symbols)
        self.by_extent = {(s.doc_start, s.end): i for i, s in enumerate(self.symbols)}  # the last of equal extents
        self.paths = [s.name_path for s in self.symbols]
        self._ending: dict[str, list[tuple[int, str]]] = {}

    def address(self, position: int) -> str:
        """`address_for` the symbol at `position`."""
        target = self.paths[position]
        last = (NamePath.parse(target).segments[-1:] or ("",))[0]
        named = self._ending.get(last)
        if named is None:
            named = self._ending[last] = [(i, path) for i, path in enumerate(self.paths) if path.endswith(last)]
        return address_for(self.paths, position, named)


_kept: list[Addresses] = []
_lock = threading.Lock()


def addresses(symbols: Sequence[Symbol]) -> Addresses:
    """The tables of `symbols`: those made for a list of the very same symbols (a file's symbols
    as kept for its text, listed again for each operation) if any, else new ones."""
    with _lock:
        for kept in _kept:
            if len(kept.symbols) == len(symbols) and all(map(operator.is_, kept.symbols, symbols)):
                return kept
    made = Addresses(symbols)
    with _lock:
        _kept.insert(0, made)
        del _kept[_KEPT:]
    return made
