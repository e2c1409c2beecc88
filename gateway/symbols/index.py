"""The workspace's definitions, indexed: what workspace-wide `find-symbol` reads instead of
parsing every source file on each call.

Each call walks the workspace's source files (as `SymbolService.source_files` lists them) and
stats each one without following links: a link, or anything that is not a regular file, is not
indexed (a link may lead out of the workspace, or to a file indexed under its own name). A file
whose stat (mtime_ns, ctime_ns, size, inode) is the one recorded is taken as holding the content
recorded; any other is read and hashed, and only a content (SHA-256 of its bytes, and language)
not indexed yet is parsed. Definitions are stored by content (`gateway.symbols.index_store`), so
a file's entry is only ever the definitions of the bytes it was hashed with.

What the stat check sees: any write through the file system changes ctime, which no program can
set back (restoring mtime with `touch`/`utime` moves ctime too), and a new file or an atomic
replace changes the inode. What it cannot see: a change made within the timestamps' granularity
of the moment the file was stat'ed (a write that lands in the same clock tick as the check).
So a file changed less than `RACY_NS` before it was checked is not trusted on its stat: it is
read and hashed again on the next call until it is older (git's "racily clean" rule). A clock
set backwards, or a file system that keeps no ctime, is outside what a stat can tell.

The index lives in the process that uses it: the daemon keeps its file table in memory between
calls; a CLI process without a daemon reads it from disk.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import threading
import time
from collections.abc import Container, Iterator, Mapping
from dataclasses import dataclass

from gateway import progress
from gateway.errors import GatewayError
from gateway.langs import LanguageRegistry, default_registry
from gateway.namepath import NamePath
from gateway.symbols.index_store import IndexedFile, IndexStore, Stat
from gateway.symbols.model import FoundSymbol, Symbol, closest_names
from gateway.symbols.index_workers import Read, read_file, read_in_workers, workers_for
from gateway.workspace import Workspace

RACY_NS = 2_000_000_000  # a file changed this recently before its check is hashed again next time
BATCH = 500  # files parsed per transaction on a long build: an interrupted build keeps what it did
BACKEND = "tree-sitter"


@dataclass(frozen=True)
class _Listed:
    display: str
    path: str
    stat: Stat


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


class DefinitionIndex:
    """One workspace's definitions by content (see the module docstring)."""

    def __init__(self, workspace: Workspace, registry: LanguageRegistry, skipped: set[str], store: IndexStore | None = None) -> None:
        self.workspace = workspace
        self.registry = registry
        self.skipped = skipped  # directories not walked (besides hidden ones)
        self._sources: dict[str, bool] = {}  # by file name: whether a language with symbols claims it
        self._store = store
        self._files: dict[str, IndexedFile] | None = None
        self._lock = threading.Lock()

    @property
    def store(self) -> IndexStore:
        if self._store is None:
            self._store = IndexStore(self.workspace.root)
        return self._store

    def find(self, pattern: NamePath, with_text: bool = False) -> tuple[list[FoundSymbol], list[str]]:
        """The definitions `pattern` matches, in the order of the files' walk and then of each
        file; when there are none, the nearest name paths (as `SymbolService.find` says them)."""
        with self._lock:
            for attempt in range(3):
                try:
                    return self._find(pattern, with_text)
                except sqlite3.DatabaseError as error:
                    self.store.rebuild(error)
                    self._files = None
                except _ChangedMeanwhile:
                    if attempt == 2:
                        raise GatewayError("the workspace's files kept changing while find-symbol read them; try again") from None
            raise AssertionError("unreachable")

    def _find(self, pattern: NamePath, with_text: bool) -> tuple[list[FoundSymbol], list[str]]:
        current = self.refresh()
        by_content = self.store.named(pattern.segments[-1]) if pattern.segments else {}
        found: list[tuple[_Listed, IndexedFile, Symbol]] = []
        for listed, entry in current:
            found += [(listed, entry, s) for s in by_content.get(entry.content, ()) if pattern.matches(s.name_path)]
        if pattern.index is not None:
            found = found[pattern.index : pattern.index + 1]
        if found:
            texts = self._texts([(listed, entry) for listed, entry, _ in found]) if with_text else {}
            return [FoundSymbol(listed.display, BACKEND, symbol, texts.get(listed.display)) for listed, _, symbol in found], []
        names = self.store.names({entry.content for _, entry in current})
        return [], closest_names(names, pattern)

    def refresh(self) -> list[tuple[_Listed, IndexedFile]]:
        """Every indexed file in walk order with what it holds now: files whose stat changed
        read again, new contents parsed (files done / total said as progress), files gone dropped."""
        self.workspace.max_bytes()  # a bad [gate] in the config is the caller's error, not each file's
        store = self.store
        known = store.files() if self._files is None else dict(self._files)
        recorded = dict(known)
        contents = store.contents()
        checked = time.time_ns()
        listing = self._listing()
        todo = [f for f in listing if (e := known.get(f.display)) is None or e.stat != f.stat or e.content not in contents]
        changed: dict[str, IndexedFile] = {}
        parsed: dict[tuple[str, str], list[Symbol]] = {}
        done = 0
        with progress.doing(lambda: f"indexing definitions: {done}/{len(todo)} files"):
            for listed, read in self._reads(todo, recorded, contents, parsed):
                entry = _entry(listed, read, contents, parsed, checked)
                if entry is None:
                    known.pop(listed.display, None)
                else:
                    changed[listed.display] = known[listed.display] = entry
                done += 1
                if len(parsed) >= BATCH:
                    store.save(changed, (), parsed, _released(recorded, changed))
                    contents |= parsed.keys()
                    changed, parsed = {}, {}
        present = {f.display for f in listing}
        gone = [display for display in recorded if display not in known or display not in present]
        if changed or parsed or gone:
            store.save(changed, gone, parsed, _released(recorded, {**changed, **dict.fromkeys(gone)}))
        self._files = {display: entry for display, entry in known.items() if display in present}
        return [(f, self._files[f.display]) for f in listing if f.display in self._files]

    def _listing(self) -> list[_Listed]:
        return list(self._walk(str(self.workspace.root), ""))

    def _walk(self, directory: str, prefix: str) -> Iterator[_Listed]:
        """The source files under `directory` in `SymbolService.source_files`'s order (a
        directory's files by name, then its subdirectories by name), links and anything but
        regular files left out; unreadable directories are passed over, as `os.walk` does."""
        try:
            with os.scandir(directory) as scan:
                entries = list(scan)
        except OSError:
            return
        subdirs, files = [], []
        for entry in entries:
            try:
                (subdirs if entry.is_dir() else files).append(entry)
            except OSError:
                files.append(entry)
        for entry in sorted(files, key=_name):
            if not self._is_source(entry.name) or entry.is_symlink():
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):  # not a FIFO or a device
                yield _Listed(prefix + entry.name, entry.path, (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino))
        for entry in sorted(subdirs, key=_name):
            if not entry.name.startswith(".") and entry.name not in self.skipped and not entry.is_symlink():
                yield from self._walk(entry.path, f"{prefix}{entry.name}/")

    def _is_source(self, name: str) -> bool:
        known = self._sources.get(name)
        if known is None:
            lang = self.registry.for_path(name)
            known = self._sources[name] = lang is not None and lang.symbol_backend
        return known

    def _reads(self, todo: list[_Listed], known: dict[str, IndexedFile], contents: set[tuple[str, str]],
               parsed: dict[tuple[str, str], list[Symbol]]) -> Iterator[tuple[_Listed, Read]]:
        """`read_file` of each file to do: the files new to the index shared among worker
        processes when there are many (with the default languages, which a worker loads), the
        rest (mostly read again only to find the content unchanged) one after another here."""
        new = [listed for listed in todo if listed.display not in known]
        workers = workers_for(len(new)) if self.registry is default_registry() else 0
        if workers:
            by_path = {listed.path: listed for listed in new}
            for path, read in read_in_workers(self.workspace.root, list(by_path), contents, workers):
                yield by_path[path], read
            todo = [listed for listed in todo if listed.display in known]
        either = _Either(contents, parsed)
        for listed in todo:
            yield listed, read_file(self.workspace, self.registry, listed.path, either)

    def _texts(self, files: list[tuple[_Listed, IndexedFile]]) -> dict[str, str]:
        """The text of each file, read now; one no longer holding the content its entry says
        was changed after the walk (the call starts again)."""
        texts = {}
        for listed, entry in files:
            if listed.display in texts:
                continue
            try:
                source = self.workspace.read(listed.path)
            except GatewayError:
                raise _ChangedMeanwhile from None
            if source.digest != entry.digest:
                assert self._files is not None
                self._files[listed.display] = IndexedFile(None, entry.digest, entry.lang)
                raise _ChangedMeanwhile
            texts[listed.display] = source.text
        return texts


def _entry(listed: _Listed, read: Read, contents: set[tuple[str, str]], parsed: dict[tuple[str, str], list[Symbol]],
           checked: int) -> IndexedFile | None:
    """What `listed` holds now, by what was read of it (its definitions kept in `parsed` when its
    content is new); None when it could not be read (left out, and tried again next time)."""
    if read is None:
        return None
    digest, lang, symbols = read
    if symbols is not None and (digest, lang) not in contents:
        parsed.setdefault((digest, lang), symbols)
    trusted = listed.stat if max(listed.stat[0], listed.stat[1]) < checked - RACY_NS else None
    return IndexedFile(trusted, digest, lang)


class _Either:
    """Contents indexed before this build or during it."""

    def __init__(self, *known: Container[object]) -> None:
        self.known = known

    def __contains__(self, content: object) -> bool:
        return any(content in known for known in self.known)


def _released(recorded: Mapping[str, IndexedFile], now: Mapping[str, IndexedFile | None]) -> list[tuple[str, str]]:
    """The contents files held before that they (changed, or gone: None) no longer hold."""
    return [recorded[display].content for display, entry in now.items()
            if display in recorded and (entry is None or entry.content != recorded[display].content)]


class _ChangedMeanwhile(Exception):
    """A file matched changed between the walk and its reading."""
