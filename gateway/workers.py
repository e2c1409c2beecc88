"""The workers of `gateway serve` and the daemon: every request on a thread of its own (kept
threads, taken again once free), at most `workers` at once, each with a deadline.

A request that overruns its deadline is answered TimedOut and its thread is given up: it ends
on its own, no longer counted against the workers, so a request stuck where Python cannot
interrupt it (a read the kernel never returns) cannot take the workers with it. Given-up
threads are bounded as well: while `max_abandoned` of them still run, new requests are refused
at once instead of piling up behind them.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from queue import SimpleQueue
from typing import Any

from gateway.errors import TimedOut

MAX_ABANDONED = 64


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class _Worker:
    """A kept thread that runs requests one at a time, each in a fresh context (as a thread of
    its own would), and is taken again once free; given up, it ends after its request."""

    def __init__(self, idle: deque[_Worker], keep: int) -> None:
        self.jobs: SimpleQueue[tuple[asyncio.AbstractEventLoop, asyncio.Future[Any], Callable[..., Any], tuple[Any, ...]]] = SimpleQueue()
        self.given_up = False
        self._idle, self._keep = idle, keep
        threading.Thread(target=self._serve, daemon=True, name="gateway-request").start()

    def give(self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], work: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.given_up = False
        self.jobs.put((loop, future, work, args))

    def _serve(self) -> None:
        while True:
            loop, future, work, args = self.jobs.get()
            result, error = None, None
            try:
                result = contextvars.Context().run(work, *args)
            except BaseException as raised:  # noqa: BLE001 - handed to the caller as the request's answer
                error = raised
            kept = not self.given_up and len(self._idle) < self._keep
            if kept:  # free before its answer is handed over, so the next request finds it
                self._idle.append(self)
            try:
                loop.call_soon_threadsafe(_settle, future, result, error)
            except RuntimeError:  # the loop is gone: the server stopped meanwhile
                return
            if not kept:
                return


class RequestPool:
    """Runs blocking work for coroutines: bounded in number and in time."""

    def __init__(self, workers: int, seconds: float, max_abandoned: int = MAX_ABANDONED) -> None:
        self.seconds = seconds
        self.max_abandoned = max_abandoned
        self.abandoned = 0
        self.workers = workers
        self._slots = asyncio.Semaphore(workers)
        self._idle: deque[_Worker] = deque()  # kept threads with nothing to do

    async def run(self, work: Callable[..., Any], *args: Any, seconds: float | None = None, changes: bool = True) -> Any:
        """`work(*args)` on a thread; TimedOut when it takes longer than `seconds` (the pool's
        deadline by default), or at once while too many given-up requests still run. `changes`:
        whether the work, given up, may still change something (write a file, issue a grant):
        only then does TimedOut say it may still finish (a hook's judgement writes nothing, and
        its answer, given up, is never applied)."""
        limit = self.seconds if seconds is None else seconds
        async with self._slots:
            if self.abandoned >= self.max_abandoned:
                raise TimedOut(f"busy: {self.abandoned} earlier requests are stuck past their deadline; refused, try again later")
            loop = asyncio.get_running_loop()
            future: asyncio.Future[Any] = loop.create_future()
            worker = self._idle.pop() if self._idle else _Worker(self._idle, self.workers)
            worker.give(loop, future, work, args)
            try:
                return await asyncio.wait_for(asyncio.shield(future), limit)
            except TimeoutError:
                worker.given_up = True
                self._abandon(future)
                left = " (it may still finish; check before retrying)" if changes else "; it changes nothing, so it can be asked again"
                raise TimedOut(f"the request took longer than {limit:g} seconds and was given up{left}") from None

    def _abandon(self, future: asyncio.Future[Any]) -> None:
        self.abandoned += 1

        def ended(_: asyncio.Future[Any]) -> None:
            self.abandoned -= 1
            if not future.cancelled():
                future.exception()  # retrieved: no "exception was never retrieved" warning

        future.add_done_callback(ended)
