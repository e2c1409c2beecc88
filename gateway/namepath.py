"""Name paths: `Outer/inner` (matches as a suffix), `/Top/exact` (absolute), `name[i]` (i-th match, 0-based)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gateway.errors import UsageError

_INDEX = re.compile(r"^(?P<name>.*?)\[(?P<index>\d+)\]$")


@dataclass(frozen=True)
class NamePath:
    segments: tuple[str, ...]
    absolute: bool
    index: int | None

    @classmethod
    def parse(cls, text: str) -> NamePath:
        raw = text.strip()
        if not raw:
            raise UsageError("empty name path")
        absolute = raw.startswith("/")
        segments = [part for part in raw.strip("/").split("/") if part]
        index = None
        if segments:
            match = _INDEX.match(segments[-1])
            if match:
                segments[-1], index = match.group("name"), int(match.group("index"))
        if not segments and not absolute:
            raise UsageError(f"bad name path {text!r}")
        return cls(tuple(segments), absolute, index)

    @property
    def is_file(self) -> bool:
        """`/` addresses the file itself (its start or end, for insertions)."""
        return not self.segments

    def matches(self, name_path: str) -> bool:
        parts = tuple(name_path.split("/"))
        if self.absolute:
            return parts == self.segments
        return parts[-len(self.segments) :] == self.segments


def address_for(name_paths: Sequence[str], position: int, named: Sequence[tuple[int, str]] | None = None) -> str:
    """The shortest name path that resolves to `name_paths[position]` among `name_paths` (in file
    order); `named`: those (with their positions) that end with its last segment, if known."""
    target = name_paths[position]
    # A path can match only if it ends with the pattern's last segment: the others are passed
    # over without being split (a long file has thousands).
    if named is None:
        last = NamePath.parse(target).segments[-1:] or ("",)
        named = [(i, path) for i, path in enumerate(name_paths) if path.endswith(last[0])]
    for candidate in (target, "/" + target):
        pattern = NamePath.parse(candidate)
        matching = [i for i, path in named if pattern.matches(path)]
        if matching == [position]:
            return candidate
    exact = NamePath.parse("/" + target)
    suffix = [i for i, path in named if NamePath.parse(target).matches(path)]
    same = [i for i, path in named if exact.matches(path)]
    if position in same:
        return f"{target}[{same.index(position)}]" if suffix == same else f"/{target}[{same.index(position)}]"
    # A name holding the separator itself (a C++ `operator/`): count the exact spellings.
    equal = [i for i, path in enumerate(name_paths) if path == target]
    return f"/{target}[{equal.index(position)}]"
