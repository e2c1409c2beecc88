"""One language server process, driven through multilspy's protocol handler on its own loop."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any, TypeVar, cast

from multilspy.lsp_protocol_handler.server import Error as LspError
from multilspy.lsp_protocol_handler.server import LanguageServerHandler

from gateway import progress
from gateway.errors import ServerFailed
from gateway.lsp.adapters.base import Adapter
from gateway.lsp.discovery import search_path
from gateway.lsp.documents import Documents, Outline
from gateway.lsp.launch import handler, leashed
from gateway.lsp.process import ServerProcess
from gateway.lsp.reports import Reports
from gateway.lsp.synced import SyncedDocuments
from gateway.lsp.waiting import Waiting

T = TypeVar("T")
# The pauses before asking again after an error reply the adapter knows to pass.
TRANSIENT_PAUSES = (0.0, 0.2, 0.5)

_IGNORED_NOTIFICATIONS = (
    "$/logTrace",
    "telemetry/event",
)
# pyright asks for pulls again (`workspace/diagnostic/refresh`), unasked, and exits when refused.
_IGNORED_REQUESTS = ("window/workDoneProgress/create", "workspace/diagnostic/refresh")


class LspSession(Waiting, SyncedDocuments, ServerProcess):
    """A started server for one workspace; every request is bounded by `timeout` seconds (a
    number, or a function giving the call's own: in the daemon, the caller's).

    A request that times out, or a server that exits, raises ServerFailed and leaves the
    session broken; the manager replaces a broken session on the next call. A server that
    did not answer in time is killed at once (`put_down`): calls waiting on the session fail
    as soon as the one that waited does, none of them waits a timeout of its own.
    """

    def __init__(self, name: str, command: tuple[str, ...], root: Path, adapter: Adapter, timeout: float | Callable[[], float],
                 process: subprocess.Popen[bytes] | None = None) -> None:
        self.name = name
        self.command = command
        self.root = root
        self.adapter = adapter
        self._timeout = timeout
        self.broken: str | None = None
        self._versions: dict[str, int] = {}
        self._sent: dict[str, str] = {}
        self._opened: dict[str, bytes] = {}  # the digest of the text each document was opened with
        self._languages: dict[str, str] = {}  # the language id each document was opened with
        self._held: dict[str, int] = {}  # documents `refresh` leaves as sent (`held`), by how many holders
        self._early: set[str] = set()
        self._lock = threading.RLock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._serve, name=f"lsp-{name}", daemon=True)
        # Under the reaper (gateway.lsp.launch); `process`: started so already (a cold command's).
        self._handler = handler(*leashed(command, adapter, root, search_path(root)), root, process)
        self.server_info: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self._registrations_settled = False
        self.reports = Reports(adapter, root)
        self._started_at = time.monotonic()
        self.documents = Documents()

    @property
    def timeout(self) -> float:
        return self._timeout() if callable(self._timeout) else self._timeout

    def start(self) -> LspSession:
        self._thread.start()
        try:
            self._run(self._initialize(), what="initialize")
        except ServerFailed:
            self.close()
            raise
        return self

    def _serve(self) -> None:
        """The session's loop, on its own thread, until it is stopped; then what still runs on it
        is cancelled and finished there and the loop closed, so that no task is left pending."""
        loop = self._loop
        try:
            loop.run_forever()
        finally:
            left = asyncio.all_tasks(loop)
            for task in left:
                task.cancel()
            if left:
                loop.run_until_complete(asyncio.wait(left, timeout=5))
            loop.close()

    async def _initialize(self) -> None:
        async def ignore(_params: Any) -> None:
            return None

        for method in _IGNORED_NOTIFICATIONS:
            self._handler.on_notification(method, ignore)
        for method in _IGNORED_REQUESTS:
            self._handler.on_request(method, ignore)
        self._handler.on_request("workspace/configuration", self._configuration)
        self.reports.listen(self._handler)
        await self._handler.start()
        result: Any = await self._handler.send.initialize(cast(Any, self.adapter.initialize_params(self.root, self.command[0])))
        if not isinstance(result, dict) or not isinstance(result.get("capabilities"), dict):
            raise ServerFailed(f"{self.name}: garbage reply to initialize: {str(result)[:120]}")
        self.server_info = dict(result.get("serverInfo") or {})
        self.capabilities = result["capabilities"]
        self._handler.notify.initialized({})

    @staticmethod
    async def _configuration(params: Any) -> list[Any]:
        items = params.get("items", []) if isinstance(params, dict) else []
        return [None for _ in items]

    def _run(self, coroutine: Awaitable[T], what: str) -> T:
        """Run on the session's loop; a dead process or a timeout breaks the session."""
        if self.broken:
            raise ServerFailed(f"{self.name}: {self.broken}")
        limit = self.timeout  # read here, on the caller's thread: the caller's own
        future = asyncio.run_coroutine_threadsafe(self._guarded(coroutine, limit), self._loop)
        try:
            with progress.doing(lambda: self.activity(what)):
                return future.result(timeout=limit + 5)
        except FutureTimeout:
            future.cancel()
            self.broken = f"no answer to {what} within {limit:g}s"
            self.put_down()
        except ServerFailed as failure:
            self.broken = str(failure).removeprefix(f"{self.name}: ")
        except OSError as error:  # the pipe to a killed server: ConnectionResetError, BrokenPipeError
            self.broken = f"the connection to the server was lost ({error.strerror or error})"
        except LspError as error:
            raise ServerFailed(f"{self.name}: {what} failed: {error}") from None
        raise ServerFailed(f"{self.name}: {self.broken}")

    async def _guarded(self, coroutine: Awaitable[T], limit: float) -> T:
        request = asyncio.ensure_future(coroutine)
        exited = asyncio.ensure_future(self._exit())
        done, _ = await asyncio.wait({request, exited}, timeout=limit, return_when=asyncio.FIRST_COMPLETED)
        exited.cancel()
        if request in done:
            return request.result()
        request.cancel()
        if exited in done:
            process = self._handler.process
            raise ServerFailed(f"{self.name}: the server exited (code {process.returncode if process else '?'})")
        self.put_down()
        raise ServerFailed(f"{self.name}: no answer within {limit:g}s, so it was killed; the next call starts a fresh one")

    async def _exit(self) -> None:
        """The server's process ending; a process still being made (the handler makes it as
        `initialize` starts) is waited for first, so that a server that dies while it starts
        fails the call then, not at its timeout."""
        while self._handler.process is None:
            await asyncio.sleep(0.05)
        await self._handler.process.wait()

    def document_symbols(self, path: Path, text: str, language_id: str, patience: float = 0.0) -> Outline[Any]:
        """The server's documentSymbol answer for `path` holding `text`: asked once per text
        (documents.Documents keeps it for this server process); asked again for up to
        `patience` seconds while it answers none (a server still analysing the file)."""
        uri = path.as_uri()
        with self._lock:
            self.sync(path, text, language_id)
            kept = self.documents.answer(uri, text)
            if kept is not None:
                if not self.alive():
                    raise self.fail("the server exited")
                return kept
            deadline = time.monotonic() + min(patience, self.timeout)
            while True:
                reply = self.request("textDocument/documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}}))
                if reply or time.monotonic() >= deadline:
                    break
                time.sleep(0.05)
            return self.documents.keep(uri, text, reply, self.adapter.lists_macros)

    def fail(self, reason: str) -> ServerFailed:
        """A server that answered nonsense is not trusted again: it is replaced on the next call."""
        self.broken = reason
        return ServerFailed(f"{self.name}: {reason}")

    def request(self, method: str, make: Callable[[LanguageServerHandler], Awaitable[T]]) -> T:
        """The server's answer; asked again, a little later each time, after an error reply its
        adapter knows to pass (another process may still be writing what the server read)."""
        with self._lock:
            for pause in TRANSIENT_PAUSES:
                try:
                    return self._run(make(self._handler), what=method)
                except ServerFailed as failure:
                    if self.broken or not any(part in str(failure) for part in self.adapter.transient_errors):
                        raise
                time.sleep(pause)
            return self._run(make(self._handler), what=method)

    def within(self, make: Callable[[LanguageServerHandler], Awaitable[T]], limit: float, what: str) -> T | None:
        """What `make` gives on the session's loop, or None when it takes longer than `limit`
        seconds (at most 90% of the session's timeout): a late answer is not a failure of the
        server, which is left running (a server that exits meanwhile fails the call, as any
        other)."""
        limit = min(max(limit, 0.0), 0.9 * self.timeout)

        async def bounded() -> T | None:
            try:
                return await asyncio.wait_for(make(self._handler), limit)
            except asyncio.TimeoutError:
                return None

        with self._lock:
            return self._run(bounded(), what=what)

    def settle_registrations(self, limit: float) -> bool:
        """One round trip (waited for up to `limit` seconds), once per session: the capabilities
        a server registers as it is initialised (pyright's pull diagnostics) have arrived by its
        answer, which it sends in order after them. The spec has a server refuse a `$/` request
        it does not know. A server that does not answer in time (jdtls while it starts) is
        asked again next time (False)."""
        if self._registrations_settled:
            return True

        async def ping(handler: LanguageServerHandler) -> bool:
            try:
                await handler.send_request("$/gateway/ping", {})
            except LspError:
                pass
            return True

        self._registrations_settled = bool(self.within(ping, limit, "$/gateway/ping"))
        return self._registrations_settled

    @property
    def lock(self) -> threading.RLock:
        """Held by a caller whose requests must not interleave with another's (documents sent, then asked about)."""
        return self._lock

    def _notify(self, send: Callable[[LanguageServerHandler], None]) -> None:
        """Send a notification on the session's loop, in order with what is sent after it, without
        waiting for it to be written: it has no answer, and a server that cannot take it breaks
        the session for the next request."""
        if self.broken:
            raise ServerFailed(f"{self.name}: {self.broken}")

        def deliver() -> None:
            try:
                send(self._handler)
            except Exception as error:  # noqa: BLE001 - on the loop's thread: the session is marked, the next call fails
                self.broken = f"a notification could not be sent ({type(error).__name__}: {error})"

        self._loop.call_soon_threadsafe(deliver)

    def end_at_exit(self) -> bool:
        """For a process about to exit: when the adapter allows it (`killed_at_exit`), signal
        the reaper, which kills the server and all it started and then exits, and wait for
        nothing (the session's own thread finishes, see `_ended`); else False (then `close`)."""
        pid = self.pid
        if not self.adapter.killed_at_exit or pid is None or not self._thread.is_alive():
            return False
        self.broken = "ended as the process exits"
        try:
            os.kill(pid, signal.SIGTERM)
        except OSError:
            pass  # gone already
        try:
            asyncio.run_coroutine_threadsafe(self._ended(), self._loop)
        except RuntimeError:
            pass  # the loop is closed: ended already
        return True

    async def _ended(self) -> None:
        """Wait (up to 5 s) for the signalled reaper to exit and its pipes to close, which ends
        the handler's reading tasks, then stop the loop; `_serve` finishes what is left."""
        try:
            watching = [task for task in self._handler.tasks.values() if not task.done()]
            process = self._handler.process
            if process is not None:
                watching.append(asyncio.ensure_future(process.wait()))
            if watching:
                await asyncio.wait(watching, timeout=5)
        finally:
            asyncio.get_running_loop().stop()

    def close(self) -> None:
        """Shut the server down (politely unless broken) and stop the loop; never raises."""
        if not self._thread.is_alive():
            return

        async def stop() -> None:
            if not self.broken:
                try:
                    await asyncio.wait_for(self._handler.shutdown(), timeout=5)
                except (asyncio.TimeoutError, Exception):  # noqa: BLE001 - the process is stopped below regardless
                    pass
            await self._handler.stop()

        try:
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=30)
        except Exception:  # noqa: BLE001 - closing must not fail; the process group is already signalled
            pass
        try:
            self._loop.call_soon_threadsafe(self._loop.stop)
        except RuntimeError:
            pass  # the loop is closed: stopped already
        self._thread.join(timeout=5)

