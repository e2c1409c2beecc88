"""The documents a server holds open, kept equal to what the gateway sent (a part of
`LspSession`): opening and changing them, sending one again, holding some as sent while a
check asks about them, and re-reading those that changed on disk."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlparse

from gateway.lsp.documents import Documents, digest

if TYPE_CHECKING:
    from multilspy.lsp_protocol_handler.server import LanguageServerHandler

    from gateway.lsp.adapters.base import Adapter
    from gateway.lsp.reports import Reports


class SyncedDocuments:
    """The document syncing of `LspSession`, which provides what is declared here."""

    adapter: Adapter
    root: Path
    reports: Reports
    documents: Documents
    _early: set[str]  # opened before the server loaded the workspace, where the adapter says so
    _versions: dict[str, int]
    _sent: dict[str, str]
    _opened: dict[str, bytes]
    _languages: dict[str, str]
    _held: dict[str, int]
    _lock: threading.RLock

    def _notify(self, send: Callable[[LanguageServerHandler], None]) -> None:
        raise NotImplementedError

    def version_of(self, path: Path) -> int:
        """The version of `path` last sent to the server (0: it does not hold it open)."""
        return self._versions.get(path.as_uri(), 0)

    def resend(self, path: Path, reopen: bool) -> None:
        """Send `path`'s text last sent again, as a new version, so that the server analyses it
        afresh against the other documents as they are now: by didChange, or (`reopen`) by
        closing and opening it (clangd skips a didChange to the same text)."""
        uri = path.as_uri()
        with self._lock:
            text, version, language_id = self._sent[uri], self._versions[uri] + 1, self._languages.get(uri, "")
            self._versions[uri] = version
            self.reports.sent(uri)
            if not reopen:
                self._notify(lambda h: h.notify.did_change_text_document(
                    {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}
                ))
                return
            self._opened[uri] = digest(text)
            self._notify(lambda h: h.notify.did_close_text_document({"textDocument": {"uri": uri}}))
            self._notify(lambda h: h.notify.did_open_text_document(
                {"textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}}
            ))

    def opened_otherwise(self, path: Path, text: str) -> bool:
        """Whether the server opened `path` holding another text than `text`."""
        opened = self._opened.get(path.as_uri())
        return opened is not None and opened != digest(text)

    def sync(self, path: Path, text: str, language_id: str, saved: bool = False) -> None:
        """Make the server's copy of `path` equal `text` (didOpen, or a full didChange)."""
        uri = path.as_uri()
        with self._lock:
            if uri not in self._versions or self._sent[uri] != text:
                self.reports.sent(uri)
            if uri not in self._versions:
                self._versions[uri] = 1
                self._opened[uri] = digest(text)
                self._languages[uri] = language_id
                if not self.reports.ready and self.adapter.reopens_early_documents(self.root):
                    self._early.add(uri)
                self._notify(lambda h: h.notify.did_open_text_document(
                    {"textDocument": {"uri": uri, "languageId": language_id, "version": 1, "text": text}}
                ))
            elif self._sent[uri] != text:
                self.documents.changed(uri)
                self._versions[uri] += 1
                version = self._versions[uri]
                self._notify(lambda h: h.notify.did_change_text_document(
                    {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}
                ))
            self._sent[uri] = text
            if saved:
                self._notify(lambda h: h.notify.did_save_text_document({"textDocument": {"uri": uri}, "text": text}))

    def reopen_early(self) -> dict[Path, int]:
        """Once the server has loaded the workspace, open again the documents opened before
        (`Adapter.reopens_early_documents`); each with the mark (`Reports.mark`) taken before it was."""
        with self._lock:
            if not self.reports.ready or not self._early:
                return {}
            reopened: dict[Path, int] = {}
            for uri in [uri for uri in self._early if uri in self._versions]:
                path = Path(unquote(urlparse(uri).path))
                reopened[path] = self.reports.mark()
                self.resend(path, reopen=True)
            self._early.clear()
            return reopened

    @contextlib.contextmanager
    def held(self, paths: Iterable[Path]) -> Iterator[None]:
        """Within: `refresh` leaves these documents as sent, whatever their files on disk do. A
        check that gives the server a file's texts before and after a write asks about those
        texts, while a host may be writing that very file."""
        uris = [path.as_uri() for path in paths]
        with self._lock:
            for uri in uris:
                self._held[uri] = self._held.get(uri, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                for uri in uris:
                    self._held[uri] -= 1
                    if not self._held[uri]:
                        del self._held[uri]

    def refresh(self, read: Callable[[Path], str | None], asking: tuple[Path, str] | None = None) -> None:
        """Re-read the documents the server holds open that changed on disk since their text
        was sent (a file whose stamp is as it was is not read); resend those that differ, and
        tell the server each such file changed (`workspace/didChangeWatchedFiles`).

        `read` gives a file's current text, or None when it is gone (then it is closed).
        `asking`: a file and the text about to be sent for it (the caller's read of it), taken
        for the file's while its stamp is not settled: the server is sent that text next
        anyway, and a long file is not read and decoded again for it.
        """
        with self._lock:
            for uri in [u for u in self._versions if u not in self._held]:
                path = Path(unquote(urlparse(uri).path))
                unchanged, found = self.documents.unchanged(uri, path)
                if unchanged:
                    continue
                text = asking[1] if asking is not None and found is None and asking[0] == path else read(path)
                if text is None:
                    del self._versions[uri], self._sent[uri], self._opened[uri]
                    self._languages.pop(uri, None)
                    self._early.discard(uri)
                    self.documents.closed(uri)
                    self._notify(lambda h, uri=uri: h.notify.did_close_text_document({"textDocument": {"uri": uri}}))
                    continue
                if text != self._sent[uri]:
                    self.sync(path, text, "")
                if self.adapter.keeps_disk_view:  # the file itself changed on disk, even to the same text
                    self._notify(lambda h, uri=uri: h.notify.did_change_watched_files(cast(Any, {"changes": [{"uri": uri, "type": 2}]})))
                self.documents.read_at(uri, found)
