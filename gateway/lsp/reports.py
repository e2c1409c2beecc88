"""What a language server says of its own work, kept for its session: the work it announces
(`$/progress`), whether it has loaded the workspace (as its adapter reads the server's
messages) and why it could not, and which text of each document it has diagnosed. The
session waits on these (`until`); nothing here talks to the server."""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multilspy.lsp_protocol_handler.server import LanguageServerHandler

    from gateway.lsp.adapters.base import Adapter

# Notifications in which servers say how loading the workspace goes (the adapter reads them).
_REPORTING = ("window/showMessage", "window/logMessage", "language/status")


@dataclass(frozen=True)
class Push:
    """One `textDocument/publishDiagnostics`: its place among everything the session sent and
    received (`Reports.mark`), the version it names (None: it names none) and its diagnostics."""

    mark: int
    version: int | None
    diagnostics: tuple[dict[str, Any], ...]


class Reports:
    """Filled by the server's notifications on the session's loop, read from any thread."""

    def __init__(self, adapter: Adapter, root: Path) -> None:
        self._adapter = adapter
        self._root = root
        self.working: dict[str, tuple[str, str]] = {}  # token: (title, what the server says it is doing)
        self._analysed: dict[str, int] = {}
        self._load_errors: dict[str, str] = {}
        self._diagnosed: set[str] = set()
        # Documents whose diagnostics since the text last sent came without a version (gopls, on open).
        self._unversioned: set[str] = set()
        self._waited_in_vain: set[tuple[str, int]] = set()
        self._marks = itertools.count(1)
        self.pushes: dict[str, Push] = {}  # the last push per document
        # Capabilities the server registered (`client/registerCapability`), by registration id: method.
        self.registered: dict[str, str] = {}
        self._lock = threading.Lock()
        # A server that announces when it has loaded the workspace (jdtls) is not ready until it
        # says so; `progress` is the last it said of its loading.
        self.ready = not adapter.announces_ready
        self.progress = ""

    def listen(self, handler: LanguageServerHandler) -> None:
        """Have the handler pass on the notifications these reports are made of."""
        handler.on_notification("$/progress", self._progress)
        handler.on_notification("textDocument/publishDiagnostics", self._diagnostics)
        handler.on_request("client/registerCapability", self._register)
        handler.on_request("client/unregisterCapability", self._unregister)
        for method in _REPORTING:
            handler.on_notification(method, lambda params, method=method: self._report(method, params))

    async def _progress(self, params: Any) -> None:
        """Work the server announces (project loading, indexing), tracked until it ends."""
        if not isinstance(params, dict) or not isinstance(params.get("value"), dict):
            return
        token, value = str(params.get("token")), params["value"]
        if value.get("kind") == "begin":
            title = str(value.get("title") or "")
            self.working[token] = (title, _work(title, value))
        elif value.get("kind") == "report" and token in self.working:
            title = self.working[token][0]
            self.working[token] = (title, _work(title, value))
        elif value.get("kind") == "end":
            self.working.pop(token, None)

    def work(self) -> str:
        """The work the server announced and has not ended, as one phrase."""
        return "; ".join(text for _, text in list(self.working.values()) if text)

    async def _diagnostics(self, params: Any) -> None:
        """Servers that version their diagnostics (clangd, gopls) say which text they analysed."""
        if isinstance(params, dict) and isinstance(params.get("version"), int):
            self._analysed[str(params.get("uri"))] = params["version"]
        elif isinstance(params, dict):
            self._unversioned.add(str(params.get("uri")))
        if isinstance(params, dict):
            self._diagnosed.add(str(params.get("uri")))
            version = params.get("version")
            found = [d for d in params.get("diagnostics") or [] if isinstance(d, dict)]
            self.pushes[str(params.get("uri"))] = Push(self.mark(), version if isinstance(version, int) else None, tuple(found))
        await self._report("textDocument/publishDiagnostics", params)

    async def _report(self, method: str, params: Any) -> None:
        """What the server says about loading the workspace, as its adapter reads it."""
        readiness = self._adapter.readiness(method, params)
        if readiness is not None:
            self.ready, self.progress = readiness
        report = self._adapter.workspace_report(method, params, self._root)
        if report is None:
            return
        key, reason = report
        with self._lock:
            if reason:
                self._load_errors[key] = reason
            else:
                self._load_errors.pop(key, None)

    async def _register(self, params: Any) -> None:
        """Capabilities the server registers (pyright's pull diagnostics: only so)."""
        for registration in _listed(params, "registrations"):
            self.registered[str(registration.get("id"))] = str(registration.get("method"))

    async def _unregister(self, params: Any) -> None:
        # The spec's misspelt key, as servers send it.
        for gone in _listed(params, "unregisterations"):
            self.registered.pop(str(gone.get("id")), None)

    def mark(self) -> int:
        """A number greater than any given before: taken before a document is sent, a push
        with a greater one came after it."""
        return next(self._marks)

    @property
    def load_errors(self) -> list[str]:
        """Why the server could not load the workspace, as it said it (empty: it said nothing of the kind)."""
        with self._lock:
            reasons = sorted(self._load_errors.items(), key=lambda item: item[0] != "load")  # its own summary first
        return list(dict.fromkeys(reason for _, reason in reasons))

    def sent(self, uri: str) -> None:
        """Another text of `uri` was sent: diagnostics without a version are no longer about it."""
        self._unversioned.discard(uri)

    def settled(self, uri: str) -> bool:
        """Whether the server has said it failed to load the workspace, or diagnosed `uri`."""
        return uri in self._diagnosed or bool(self._load_errors)

    @property
    def versions_diagnostics(self) -> bool:
        """Whether the server has said which text its diagnostics are about (clangd, gopls; not jdtls)."""
        return bool(self._analysed)

    def names_versions(self, uri: str) -> bool:
        """Whether a push for `uri` has named the version it is about (clangd's, but not the
        one it clears a closed document with)."""
        return uri in self._analysed

    def analysed(self, uri: str, version: int) -> bool:
        """Whether the server has analysed `version` of `uri`: diagnostics of that version, or
        unversioned ones sent after it (gopls answers a didOpen so)."""
        return self._analysed.get(uri, 0) >= version or uri in self._unversioned

    def unanalysed(self, versions: dict[str, int]) -> dict[str, int]:
        """Of the documents `versions` names (uri: the version last sent), those not analysed,
        less any the server was once waited for in vain at that version."""
        return {uri: version for uri, version in versions.items() if not self.analysed(uri, version) and (uri, version) not in self._waited_in_vain}

    def waited_in_vain(self, versions: dict[str, int]) -> None:
        self._waited_in_vain.update(versions.items())


async def until(done: Callable[[], bool], limit: float, interval: float) -> bool:
    """Whether `done()` holds, asked every `interval` seconds for up to `limit` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not done() and loop.time() < deadline:
        await asyncio.sleep(interval)
    return done()


def _listed(params: Any, key: str) -> list[dict[str, Any]]:
    found = params.get(key) if isinstance(params, dict) else None
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []


def _work(title: str, value: dict[str, Any]) -> str:
    """A `$/progress` begin or report as one phrase: `Indexing: 12/345 (3%)`."""
    message, percentage = value.get("message"), value.get("percentage")
    text = ": ".join(str(part) for part in (title, message) if part)
    return f"{text} ({percentage:g}%)" if isinstance(percentage, int | float) and not isinstance(percentage, bool) else text
