"""The definition index's file on disk: one SQLite database per workspace under the user state
directory (`index/<hash of the workspace's path>.sqlite`).

`files` holds each indexed file's stat (None while it is too recent to be trusted, see
`gateway.symbols.index`) and the SHA-256 of its bytes; `definitions` holds the symbols of each
content (digest and language), so a file's definitions are found by what it holds, never by its
name alone. Every change is one transaction (atomic). A database that cannot be read, or that
belongs to another workspace or to another layout, is replaced with a one-line warning on
stderr and built again, never trusted; one that cannot be written at all (a read-only state
directory) gives way to a database in memory, with a warning too.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from gateway.callerenv import state_base
from gateway.langs import data_dir
from gateway.symbols.model import Symbol
from gateway.userstate import state_home

SCHEMA = "gateway-definitions-2"
_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, mtime_ns INTEGER, ctime_ns INTEGER, size INTEGER, inode INTEGER,
                                  digest TEXT NOT NULL, lang TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS contents (digest TEXT NOT NULL, lang TEXT NOT NULL, PRIMARY KEY (digest, lang));
CREATE TABLE IF NOT EXISTS definitions (digest TEXT NOT NULL, lang TEXT NOT NULL, seq INTEGER NOT NULL, leaf TEXT NOT NULL,
    name TEXT NOT NULL, name_path TEXT NOT NULL, kind TEXT NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL,
    name_start INTEGER NOT NULL, doc_start INTEGER NOT NULL, header_start INTEGER NOT NULL, start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL, depth INTEGER NOT NULL, indent TEXT NOT NULL, has_definition INTEGER NOT NULL,
    PRIMARY KEY (digest, lang, seq));
CREATE INDEX IF NOT EXISTS definitions_by_leaf ON definitions (leaf);
CREATE INDEX IF NOT EXISTS files_by_content ON files (digest, lang);
"""
_SYMBOL_COLUMNS = ("name, name_path, kind, start, end, name_start, doc_start, header_start, start_line, end_line, depth, indent, "
                   "has_definition")
_PARSER_SOURCES = ("symbols/structure.py", "symbols/text.py", "symbols/normalize.py", "syntax")

Stat = tuple[int, int, int, int]  # mtime_ns, ctime_ns, size, inode


@dataclass(frozen=True)
class IndexedFile:
    """What the index knows of one file: its stat when last checked (None: re-hash it next
    time) and the content (digest, language) its definitions are kept under."""

    stat: Stat | None
    digest: str
    lang: str

    @property
    def content(self) -> tuple[str, str]:
        return (self.digest, self.lang)


def index_path(root: Path) -> Path:
    """The workspace's index file: the state directory's, named by the workspace's real path."""
    return state_home() / "index" / f"{_workspace_key(root)}.sqlite"


def _workspace_key(root: Path) -> str:
    return hashlib.sha256(str(root).encode()).hexdigest()[:32]


def parser_fingerprint() -> str:
    """What the definitions were derived with (the languages' data and queries, the code that
    reads definitions off a syntax tree): a change to any of them invalidates every content."""
    package = Path(__file__).resolve().parent.parent
    places = [data_dir("langs"), data_dir("queries"), *(package / name for name in _PARSER_SOURCES)]
    seen = []
    for place in places:
        paths = sorted(p for p in place.rglob("*") if p.is_file()) if place.is_dir() else [place]
        for path in paths:
            info = path.stat()
            seen.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
    return hashlib.sha256("\n".join(seen).encode()).hexdigest()[:32]


def _warn(message: str) -> None:
    print(f"gateway: {message}", file=sys.stderr, flush=True)


class IndexStore:
    """The SQLite database of one workspace's definitions (see the module docstring)."""

    def __init__(self, root: Path, path: Path | None = None) -> None:
        self.root = root
        self.path = path or Path(state_base()) / "gateway" / "index" / f"{_workspace_key(root)}.sqlite"
        self.connection = self._open()

    def _open(self) -> sqlite3.Connection:
        try:
            state_home()
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            connection = self._connect(str(self.path))
            problem = self._foreign(connection)
            if problem is None:
                return connection
            connection.close()
            _warn(f"the definition index {self.path} {problem}; rebuilding it")
        except sqlite3.DatabaseError as error:
            _warn(f"the definition index {self.path} is unreadable ({error}); rebuilding it")
        except OSError as error:
            _warn(f"the definition index cannot be kept in {self.path.parent} ({error.strerror or error}); kept in memory")
            return self._fresh(":memory:")
        self._remove()
        try:
            return self._fresh(str(self.path))
        except (sqlite3.DatabaseError, OSError) as error:
            _warn(f"the definition index {self.path} cannot be written ({error}); kept in memory")
            return self._fresh(":memory:")

    @staticmethod
    def _connect(where: str) -> sqlite3.Connection:
        connection = sqlite3.connect(where, timeout=30, check_same_thread=False, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        return connection

    def _foreign(self, connection: sqlite3.Connection) -> str | None:
        """Why the database is not this workspace's index of this layout; None when it is (a new
        database is made so)."""
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            self._create(connection)
            return None
        if "meta" not in tables:
            return "is not a definition index"
        meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("schema") != SCHEMA:
            return f"has another layout ({meta.get('schema')!r}, not {SCHEMA!r})"
        if meta.get("root") != str(self.root):
            return f"belongs to another workspace ({meta.get('root')!r})"
        if meta.get("parser") != parser_fingerprint():  # the definitions were read another way: read them again
            with self.transaction(connection):
                connection.execute("DELETE FROM definitions")
                connection.execute("DELETE FROM contents")
                connection.execute("DELETE FROM files")
                connection.execute("UPDATE meta SET value = ? WHERE key = 'parser'", (parser_fingerprint(),))
        return None

    def _create(self, connection: sqlite3.Connection) -> None:
        with self.transaction(connection):
            for statement in filter(str.strip, _TABLES.split(";")):
                connection.execute(statement)
            connection.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                                   [("schema", SCHEMA), ("root", str(self.root)), ("parser", parser_fingerprint())])

    def _fresh(self, where: str) -> sqlite3.Connection:
        connection = self._connect(where)
        self._create(connection)
        return connection

    def _remove(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass

    def rebuild(self, error: Exception) -> None:
        """The database failed while in use (damaged under us): start it again, saying so."""
        _warn(f"the definition index {self.path} is unreadable ({error}); rebuilding it")
        self.connection.close()
        self._remove()
        self.connection = self._open()

    @staticmethod
    def transaction(connection: sqlite3.Connection) -> _Transaction:
        return _Transaction(connection)

    def files(self) -> dict[str, IndexedFile]:
        rows = self.connection.execute("SELECT path, mtime_ns, ctime_ns, size, inode, digest, lang FROM files")
        return {path: IndexedFile(None if mtime is None else (mtime, ctime, size, inode), digest, lang)
                for path, mtime, ctime, size, inode, digest, lang in rows}

    def contents(self) -> set[tuple[str, str]]:
        return set(self.connection.execute("SELECT digest, lang FROM contents"))

    def save(self, changed: dict[str, IndexedFile], removed: Iterable[str], parsed: dict[tuple[str, str], list[Symbol]],
             released: Iterable[tuple[str, str]] = ()) -> None:
        """Record files as checked, files gone, and the definitions of contents just read, at once;
        of the `released` contents (those files held before), the ones no file holds now are dropped."""
        with self.transaction(self.connection):
            execute = self.connection.executemany
            execute("DELETE FROM files WHERE path = ?", ((path,) for path in removed))
            execute("INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?)",
                    ((path, *(entry.stat or (None,) * 4), entry.digest, entry.lang) for path, entry in changed.items()))
            for (digest, lang), symbols in parsed.items():
                self.connection.execute("DELETE FROM definitions WHERE digest = ? AND lang = ?", (digest, lang))
                execute(f"INSERT INTO definitions (digest, lang, seq, leaf, {_SYMBOL_COLUMNS}) VALUES ({', '.join('?' * 17)})",
                        ((digest, lang, seq, s.name_path.rsplit("/", 1)[-1], s.name, s.name_path, s.kind, s.start, s.end, s.name_start,
                          s.doc_start, s.header_start, s.start_line, s.end_line, s.depth, s.indent, int(s.has_definition))
                         for seq, s in enumerate(symbols)))
                self.connection.execute("INSERT OR REPLACE INTO contents VALUES (?, ?)", (digest, lang))
            unused = [content for content in set(released)
                      if self.connection.execute("SELECT 1 FROM files WHERE digest = ? AND lang = ? LIMIT 1", content).fetchone() is None]
            execute("DELETE FROM contents WHERE digest = ? AND lang = ?", unused)
            execute("DELETE FROM definitions WHERE digest = ? AND lang = ?", unused)

    def named(self, leaf: str) -> dict[tuple[str, str], list[Symbol]]:
        """The definitions whose name path ends in `leaf`, by content, each content's in file order."""
        rows = self.connection.execute(f"SELECT digest, lang, {_SYMBOL_COLUMNS} FROM definitions WHERE leaf = ? ORDER BY digest, lang, seq",
                                       (leaf,))
        return _by_content(rows)

    def names(self, contents: Iterable[tuple[str, str]]) -> set[str]:
        """The names and name paths of the definitions of `contents` (matched and made distinct
        by SQLite: a workspace has far fewer names than definitions)."""
        with self.transaction(self.connection):  # the temporary table is this connection's alone
            self.connection.execute("CREATE TEMP TABLE IF NOT EXISTS asked (digest TEXT NOT NULL, lang TEXT NOT NULL, PRIMARY KEY (digest, lang))")
            self.connection.execute("DELETE FROM asked")
            self.connection.executemany("INSERT OR IGNORE INTO asked VALUES (?, ?)", contents)
            rows = self.connection.execute("SELECT name FROM definitions JOIN asked USING (digest, lang) "
                                           "UNION SELECT name_path FROM definitions JOIN asked USING (digest, lang)").fetchall()
            self.connection.execute("DELETE FROM asked")
        return {name for (name,) in rows}

    def symbols(self, content: tuple[str, str]) -> list[Symbol]:
        rows = self.connection.execute(f"SELECT digest, lang, {_SYMBOL_COLUMNS} FROM definitions WHERE digest = ? AND lang = ? ORDER BY seq",
                                       content)
        return _by_content(rows).get(content, [])


def _by_content(rows: Iterable[tuple]) -> dict[tuple[str, str], list[Symbol]]:  # type: ignore[type-arg]
    found: dict[tuple[str, str], list[Symbol]] = {}
    for digest, lang, *fields in rows:
        fields[-1] = bool(fields[-1])
        found.setdefault((digest, lang), []).append(Symbol(*fields))
    return found


class _Transaction:
    """`BEGIN IMMEDIATE` … `COMMIT` (ROLLBACK on an error): one writer at a time, all or nothing."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    def __enter__(self) -> None:
        self.connection.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self.connection.execute("COMMIT" if kind is None else "ROLLBACK")
