"""What a session's callers wait for: the server to load the workspace, to analyse what was
sent, to end the work it announced (a part of `LspSession`, on the reports its server sends)."""

from __future__ import annotations

import threading
import time
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from gateway.lsp.reports import until

if TYPE_CHECKING:
    from gateway.lsp.adapters.base import Adapter
    from gateway.lsp.reports import Reports

T = TypeVar("T")
# How long after its start a server that announces its readiness is waited for.
READY_PATIENCE = 30.0
# How long a request across files waits for the server to analyse the files last written.
ANALYSIS_PATIENCE = 3.0


class Waiting:
    """The waits of `LspSession`, which provides what is declared here."""

    name: str
    adapter: Adapter
    reports: Reports
    _versions: dict[str, int]
    _lock: threading.RLock
    _started_at: float

    @property
    def timeout(self) -> float:
        raise NotImplementedError

    def _run(self, coroutine: Awaitable[T], what: str) -> T:
        raise NotImplementedError

    @property
    def ready(self) -> bool:
        """Whether the server has loaded the workspace (a server that does not say so: from the start)."""
        return self.reports.ready

    @property
    def progress(self) -> str:
        """The last the server said of loading the workspace."""
        return self.reports.progress

    @property
    def load_errors(self) -> list[str]:
        """Why the server could not load the workspace, as it said it (empty: it said nothing of the kind)."""
        return self.reports.load_errors

    @property
    def versions_diagnostics(self) -> bool:
        """Whether the server has said which text its diagnostics are about (clangd, gopls; not jdtls)."""
        return self.reports.versions_diagnostics

    def activity(self, what: str) -> str:
        """What a caller waiting on `what` waits for, with the work the server announced."""
        doing = f"starting {self.name}" if what == "initialize" else f"{self.name}: {what.rpartition('/')[2]}"
        work = self.reports.work()
        return f"{doing} — {work}" if work else doing

    def settle(self, path: Path, limit: float) -> None:
        """Wait (up to `limit` seconds) until what the server says about loading the workspace
        has arrived: a failure, or diagnostics for `path` (servers that diagnose a file only
        after loading); at once for servers that do not."""
        if self.adapter.diagnoses_after_loading:
            uri = path.as_uri()
            self._run(until(lambda: self.reports.settled(uri), limit, 0.02), what="waiting for the server to load the workspace")

    def wait_for_analysis(self, path: Path, limit: float) -> bool:
        """Wait (up to `limit` seconds) until the server has analysed the text last sent for
        `path` (`Reports.analysed`); False if it has not said so."""
        uri = path.as_uri()
        analysed = until(lambda: self.reports.analysed(uri, self._versions.get(uri, 0)), limit, 0.02)
        return self._run(analysed, what="waiting for the server's analysis")

    def wait_for_open_documents(self, within: float | None = None) -> bool:
        """Wait (up to ANALYSIS_PATIENCE seconds, at most half the timeout, and at most `within`
        when given: a caller with a budget of its own) until a server that versions its analysis
        (clangd, gopls) has analysed every open document as last sent: its index, which a request
        across files reads, is current then (`Reports.unanalysed`)."""
        with self._lock:
            pending = self.reports.unanalysed(self._versions) if self.reports.versions_diagnostics else {}
        limit = min(ANALYSIS_PATIENCE, self.timeout / 2, within if within is not None else ANALYSIS_PATIENCE)
        done = not pending or self._run(until(lambda: not self.reports.unanalysed(pending), limit, 0.02),
                                        what="waiting for the server's analysis of the files written")
        if not done and within is None:  # a wait cut short by a caller's budget says nothing of the server
            self.reports.waited_in_vain(self.reports.unanalysed(pending))
        return done

    def wait_ready(self) -> bool:
        """Whether the server has loaded the workspace, waiting for it until READY_PATIENCE
        seconds (at most half the timeout) after it started; past that, not at all: a large
        project's first import goes on while the caller answers without the server."""
        if self.ready:
            return True
        patience = self._started_at + min(READY_PATIENCE, self.timeout / 2) - time.monotonic()
        return self._run(until(lambda: self.reports.ready, max(patience, 0.0), 0.05), what="waiting for the server to load the workspace")

    def wait_until_idle(self, limit: float) -> bool:
        """Wait (up to `limit` seconds) for announced work to end; False if it is still going."""
        return self._run(until(lambda: not self.reports.working, limit, 0.05), what="waiting for the server to settle")
