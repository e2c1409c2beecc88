"""Path confinement, decoding, per-file locks and writing a set of files all or nothing."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from gateway.atomic import ReplacedFile, create_exclusively, remove_abandoned_temps, replace_atomically, replace_checked, sha256
from gateway.errors import FileMissing, OutsideWorkspace, Unencodable, UsageError
from gateway.reading import open_regular, read_fd
from gateway.textfile import decode, editing_view, encoding_rule, normalize_fragment, round_trips, unencodable_message

if TYPE_CHECKING:
    from gateway.langs import LanguageRegistry


@dataclass(frozen=True)
class SourceFile:
    """A decoded file and everything needed to write it back the way it was.

    `text` uses "\\n" line endings when the file's endings are uniform; a file that mixes
    CRLF and LF keeps its raw text (`newline` is None) so nothing is rewritten behind it.
    """

    path: Path
    display: str
    text: str
    encoding: str
    newline: str | None
    mode: int
    digest: str
    round_trips: bool = True

    def encode(self, text: str) -> bytes:
        """`text` as this file's bytes: its encoding and its line endings."""
        if not self.round_trips:
            raise Unencodable(unencodable_message(self.display, self.encoding))
        if self.newline == "\r\n":
            text = text.replace("\r\n", "\n").replace("\n", "\r\n")
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as error:
            raise Unencodable(f"{self.display}: the new text cannot be encoded as {self.encoding} ({error.reason})") from None

    def normalize(self, fragment: str) -> str:
        """An agent's old/new text in the same line-ending convention as `text`."""
        return normalize_fragment(fragment, self.newline)


@contextlib.contextmanager
def exclusive(lock_path: Path) -> Iterator[None]:
    """An exclusive flock on `lock_path`, across threads and processes."""
    with open(lock_path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def file_lock(path: Path) -> contextlib.AbstractContextManager[None]:
    """An exclusive lock per real path.

    The lock lives outside the file because every write replaces the file's inode.
    """
    lock_dir = Path(tempfile.gettempdir()) / f"gateway-locks-{os.getuid()}"
    lock_dir.mkdir(mode=0o700, exist_ok=True)
    return exclusive(lock_dir / (hashlib.sha256(str(path).encode()).hexdigest()[:40] + ".lock"))


class WriteAuthorizer(Protocol):
    """Decides, around the moment of writing, whether a set of files may be written (typed edits)."""

    def authorize(self, files: Mapping[str, str | None]) -> contextlib.AbstractContextManager[None]:
        """`files`: workspace-relative path -> SHA-256 of its bytes now (None: the write creates it)."""
        ...


class Workspace:
    def __init__(self, root: str | os.PathLike[str], registry: LanguageRegistry | None = None) -> None:
        root_path = Path(root)
        if not root_path.is_dir():
            raise UsageError(f"workspace {root_path} is not a directory")
        self.root = root_path.resolve()
        self.authorizer: WriteAuthorizer | None = None
        self.registry = registry  # picks each file's encoding rule; None: the default languages

    def resolve(self, path: str | os.PathLike[str]) -> Path:
        """The real path of `path` (relative to the root), refused if it leaves the workspace."""
        candidate = Path(path)
        if not candidate.is_absolute():
            candidate = self.root / candidate
        real = Path(os.path.realpath(candidate))
        if not real.is_relative_to(self.root):
            raise OutsideWorkspace(f"{path}: outside the workspace {self.root}; refusing to touch it")
        return real

    def display(self, real: Path) -> str:
        return real.relative_to(self.root).as_posix()

    def max_bytes(self) -> int:
        """The largest file read or written (`[gate] max_file_bytes`)."""
        from gateway.config import gate_config

        return gate_config(self.root).max_file_bytes

    def read(self, path: str | os.PathLike[str]) -> SourceFile:
        """A regular file of the workspace, decoded (links resolved and confined; a FIFO, a
        device or a directory is refused unread, a file over the size limit too)."""
        real = self.resolve(path)
        where = self.display(real)
        fd = open_regular(real, where)
        if fd is None:
            raise FileMissing(f"{where}: no such file in the workspace")
        try:
            data = read_fd(fd, where, self.max_bytes())
            mode = stat.S_IMODE(os.fstat(fd).st_mode)
        finally:
            os.close(fd)
        remove_abandoned_temps(real)
        raw, encoding = decode(data, where, encoding_rule(real, self.registry, data))
        text, newline = editing_view(raw)
        return SourceFile(
            path=real,
            display=where,
            text=text,
            encoding=encoding,
            newline=newline,
            mode=mode,
            digest=sha256(data),
            round_trips=round_trips(raw, encoding, data),
        )

    def locked(self, path: str | os.PathLike[str]) -> contextlib.AbstractContextManager[None]:
        return file_lock(self.resolve(path))

    def write(self, source: SourceFile, text: str) -> None:
        """Atomically replace the file with `text`, encoded, terminated and moded as it was.

        Refused as stale if the bytes on disk are no longer the ones `source` was read from.
        """
        self.write_all([(source, text)])

    def write_all(self, changes: Sequence[tuple[SourceFile, str]], created: Sequence[tuple[str, str]] = ()) -> None:
        """Write every changed file and create every new one (UTF-8), or none of them.

        Everything is encoded first and the authorizer (typed edits) sees the whole set
        before the first write; a failure puts back the files written and removes the
        ones created.
        """
        encoded = [(source, source.encode(text)) for source, text in changes if text != source.text]
        new = [(self.resolve(path), text.encode("utf-8")) for path, text in created]
        if not encoded and not new:
            return
        files = {**{s.display: s.digest for s, _ in encoded}, **{self.display(real): None for real, _ in new}}
        guard = self.authorizer.authorize(files) if self.authorizer else contextlib.nullcontext()
        with guard:
            written: list[tuple[SourceFile, bytes]] = []
            made: list[Path] = []
            try:
                for source, data in encoded:
                    written.append((source, self._write_bytes(source, data)))
                for real, data in new:
                    create_exclusively(real, data, self.display(real))
                    made.append(real)
            except BaseException:
                for real in made:
                    real.unlink(missing_ok=True)
                for source, original in reversed(written):
                    self.put_back(source, original)
                raise

    def put_back(self, source: SourceFile, original: bytes) -> None:
        """Restore a file's exact earlier bytes and mode (undoing a change the gateway made)."""
        replace_atomically(source.path, original, source.mode)

    def _write_bytes(self, source: SourceFile, data: bytes) -> bytes:
        """Replace the file with `data`; the bytes it replaced, checked against `source` at the last moment."""
        return replace_checked(ReplacedFile(source.path, source.display, source.digest), data, source.mode)
