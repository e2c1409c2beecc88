"""Symbols as the operations see them, and resolving a name path to one of them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gateway.errors import Ambiguous, NotFound, UsageError
from gateway.namepath import NamePath

if TYPE_CHECKING:
    from pathlib import Path

    from gateway.langs import Language


@dataclass(frozen=True)
class Symbol:
    """A symbol with its normalised extent, as character offsets into the file's text.

    `start` covers decorators, attributes and annotations; `doc_start` also covers the
    leading doc comment; `header_start` is where the definition proper begins once
    decorator lines that a replacement may keep are left out. `end` is the end of the
    definition's last character. Lines are 1-based. `has_definition`: tree-sitter found
    the definition too, so its presence can be checked after an edit.
    """

    name: str
    name_path: str
    kind: str
    start: int
    end: int
    name_start: int
    doc_start: int
    header_start: int
    start_line: int
    end_line: int
    depth: int
    indent: str
    has_definition: bool

    @property
    def parent_path(self) -> str:
        return self.name_path.rpartition("/")[0]

    def contains(self, other: Symbol) -> bool:
        return self is not other and self.start <= other.start and other.end <= self.end

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "name_path": self.name_path,
            "kind": self.kind,
            "start_line": self.start_line,
            "end_line": self.end_line,
        }


@dataclass(frozen=True)
class FoundSymbol:
    """A definition a name path matched (`find-symbol`): where, found by which backend, and
    (when asked for) the text of its file as it was read."""

    display: str
    backend: str
    symbol: Symbol
    text: str | None = None


def _describe(symbols: list[Symbol]) -> str:
    return ", ".join(f"{s.name_path} ({s.kind}, line {s.start_line})" for s in symbols)


def resolve_name_path(symbols: list[Symbol], name_path: str, where: str) -> Symbol:
    """The one symbol `name_path` addresses in a file, or a NotFound/Ambiguous error saying why."""
    pattern = NamePath.parse(name_path)
    if pattern.is_file:
        raise UsageError("'/' addresses the file, not a symbol: name one")
    found = sorted((s for s in symbols if pattern.matches(s.name_path)), key=lambda s: s.start)
    if pattern.index is not None:
        if pattern.index < len(found):
            return found[pattern.index]
        raise NotFound(
            f"{name_path}: {where} has {len(found)} symbol(s) matching {'/'.join(pattern.segments)}"
            + (f": {_describe(found)}" if found else "")
        )
    if len(found) == 1:
        return found[0]
    if found:
        raise Ambiguous(
            f"{name_path} matches {len(found)} symbols in {where}: {_describe(found)}; "
            f"add the enclosing name or an index such as {name_path}[0]"
        )
    close = nearest_name_paths(symbols, pattern)
    hint = f"; closest: {', '.join(close)}" if close else ""
    raise NotFound(f"no symbol {name_path} in {where}{hint}")


def nearest_name_paths(symbols: list[Symbol], pattern: NamePath, count: int = 5) -> list[str]:
    """Name paths (or bare names) of `symbols` spelt closest to `pattern`, best first."""
    return closest_names({s.name_path for s in symbols} | {s.name for s in symbols}, pattern, count)


def closest_names(names: set[str], pattern: NamePath, count: int = 5) -> list[str]:
    """Of `names`, those spelt closest to `pattern`, best first."""
    return difflib.get_close_matches("/".join(pattern.segments), sorted(names), n=count, cutoff=0.5)


@dataclass(frozen=True)
class Target:
    """The symbol whose name is looked for, and what it hangs from."""

    symbol: Symbol
    path: Path
    lang: Language
    name_byte: int  # where its name starts, in UTF-8 bytes of its file
    parent_name: str | None = None  # the enclosing type's name for a member, None at the top
    parent_byte: int = 0  # where the enclosing type starts

    @property
    def name(self) -> str:
        return self.symbol.name
