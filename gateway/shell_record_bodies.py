"""The files a shell check's record (gateway.shell_record_files) holds (`Seen`), and the bodies
it holds them in: split by a hash of each path into `buckets(count)` bodies of about
CHUNK_FILES files, each a JSON object of path -> entry (sorted), named by its own digest. A record made from the one last saved by
looking again at a few paths (gateway.snapshot_delta.made_from) makes again only the bodies
those paths fall in; any other record is split whole.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any

from gateway.atomic import sha256
from gateway.snapshot import FileState
from gateway.snapshot_delta import touched_since

BODY = "files-{}.json"
CHUNK_FILES = 256
MAX_BUCKETS = 1024


@dataclass(frozen=True)
class Seen:
    """One file as recorded: its state (mode, SHA-256 of the kept bytes; UNREAD when too large)
    and the stat it had when read: (size, mtime_ns, ctime_ns, inode)."""

    state: FileState
    stat: tuple[int, int, int, int]

    def to_json(self) -> list[Any]:
        return [self.state.mode, self.state.sha256, *self.stat]

    @classmethod
    def from_json(cls, value: list[Any]) -> Seen:
        return cls(FileState(int(value[0]), str(value[1])), (int(value[2]), int(value[3]), int(value[4]), int(value[5])))


def buckets(count: int) -> int:
    """How many bodies hold `count` files: a power of two, so that a path stays in its body
    while the count stays within the same power."""
    found = 1
    while found * CHUNK_FILES < count and found < MAX_BUCKETS:
        found *= 2
    return found


def bucket(path: str, count: int) -> int:
    """The body (of `count`, a power of two) that holds `path`: the same in every process."""
    return zlib.crc32(path.encode("utf-8", "surrogateescape")) & (count - 1)


@dataclass(frozen=True)
class Split:
    """`files` as bodies: each one's paths, name, bytes and files (callers change none of them)."""

    files: dict[str, Seen]
    members: list[frozenset[str]]
    names: list[str]
    data: list[bytes]
    parts: list[dict[str, Seen]]


_entries: dict[str, tuple[Seen, str]] = {}  # path -> (the Seen last saved, its JSON entry)
_last: dict[str, Split] = {}  # "last": the files last split


def _entry(path: str, seen: Seen) -> str:
    found = _entries.get(path)
    if found is None or found[0] is not seen:
        found = _entries[path] = (seen, f"{json.dumps(path)}:{json.dumps(seen.to_json(), separators=(',', ':'))}")
    return found[1]


def split(files: dict[str, Seen]) -> Split:
    """The bodies holding `files`, each file's entry made once while its Seen is the same."""
    last = _last.get("last")
    if last is not None and last.files is files:
        return last
    count = buckets(len(files))
    touched = touched_since(files, last.files) if last is not None and len(last.members) == count else None
    if last is None or touched is None:
        grouped: list[set[str]] = [set() for _ in range(count)]
        for path in files:
            grouped[bucket(path, count)].add(path)
        members, redo = [frozenset(group) for group in grouped], set(range(count))
        names, data, parts = [""] * count, [b""] * count, [{} for _ in range(count)]
        if len(_entries) > 2 * len(files) + 1000:  # paths gone since: kept no longer
            for path in _entries.keys() - files.keys():
                _entries.pop(path, None)
    else:
        members, names, data, parts = list(last.members), list(last.names), list(last.data), list(last.parts)
        redo = {bucket(path, count) for path in touched}
        for number in redo:
            members[number] = frozenset({*(p for p in members[number] if p in files),
                                         *(p for p in touched if p in files and bucket(p, count) == number)})
    for number in redo:
        parts[number] = {path: files[path] for path in sorted(members[number])}
        data[number] = ("{" + ",".join(_entry(path, seen) for path, seen in parts[number].items()) + "}").encode()
        names[number] = BODY.format(sha256(data[number]))
    found = _last["last"] = Split(files, members, names, data, parts)
    return found
