"""What a long wait is doing, said only when it lasts.

An operation runs under a `Reporter` (`reporting(sink, what)`); its surface supplies the sink
and renders each `Update` its own way (the CLI a line on stderr, MCP a progress notification,
JSON-RPC `$/progress`, the daemon its client's connection or its log). Engine code names what
it waits on with `doing(...)`: a no-op when nothing reports, as in a hook.

A reporter is silent for the first `after` seconds (GATEWAY_PROGRESS_AFTER, default 2), then
says what is going on ("symbols: starting gopls — Setting up workspace (40%) (3 s)"), again
every `every` seconds and when a wait begins or ends, and finally that it is done. One thread
per process ticks every live reporter; a sink that fails silences its reporter, never the work.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar, copy_context
from typing import Any, NamedTuple, TextIO, TypeVar

T = TypeVar("T")
Text = str | Callable[[], str]

AFTER = 2.0
EVERY = 5.0
GAP = 1.0  # a wait that begins or ends is said at most this often
TICK = 0.25


def after_from_env() -> float:
    """GATEWAY_PROGRESS_AFTER seconds, else 2; a bad value is ignored (progress never fails an operation)."""
    try:
        value = float(os.environ.get("GATEWAY_PROGRESS_AFTER", AFTER))
    except ValueError:
        return AFTER
    return value if 0 <= value < float("inf") else AFTER


def duration(seconds: float) -> str:
    """`7 s`, `2 min 05 s`, `1 h 03 min`."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class Update(NamedTuple):
    """One thing said: `begin` (the first), `report`, or `end` (said only after a begin). (A
    named tuple, not a dataclass: the CLI imports this module, and dataclasses costs it more
    than argument parsing.)"""

    kind: str
    message: str
    elapsed: float | None = None  # None: a remote update, its time already in `message`

    @property
    def text(self) -> str:
        return self.message if self.elapsed is None else f"{self.message} ({duration(self.elapsed)})"

    def to_lsp(self) -> dict[str, Any]:
        """The value of an LSP `$/progress` (WorkDoneProgressBegin/Report/End)."""
        value: dict[str, Any] = {"kind": self.kind, "message": self.text}
        return {**value, "title": "gateway"} if self.kind == "begin" else value

    @classmethod
    def from_lsp(cls, value: Any) -> Update | None:
        if not isinstance(value, dict) or value.get("kind") not in ("begin", "report", "end"):
            return None
        return cls(value["kind"], str(value.get("message") or value.get("title") or ""))


Sink = Callable[[Update], None]


def from_remote(sink: Sink) -> Callable[[Any], None]:
    """A `$/progress` params handler (the daemon's, for its client) that hands its updates to `sink`."""

    def receive(params: Any) -> None:
        update = Update.from_lsp(params.get("value") if isinstance(params, dict) else None)
        if update is not None:
            sink(update)

    return receive


class StreamSink:
    """Updates as lines on a stream (stderr): on a terminal (unless `in_place` is False) one
    line rewritten in place and cleared at the end, otherwise one line per update, `done` last."""

    def __init__(self, stream: TextIO | None = None, prefix: str = "gateway", in_place: bool | None = None) -> None:
        self.stream = stream or sys.stderr
        self.prefix = prefix
        try:
            self.tty = self.stream.isatty() if in_place is None else in_place
        except (AttributeError, ValueError):
            self.tty = False

    def __call__(self, update: Update) -> None:
        line = f"{self.prefix}: {update.text}"
        if self.tty:
            self.stream.write("\r\x1b[K" + ("" if update.kind == "end" else line))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


class _Wait:
    __slots__ = ("what",)

    def __init__(self, what: Text) -> None:
        self.what = what


def _say(what: Text) -> str:
    try:
        return what() if callable(what) else what
    except Exception:  # noqa: BLE001 - a description that fails says nothing rather than failing the work
        return ""


class Reporter:
    """One operation's progress: `what` it is (text, or a callable asked each time) and the
    waits under way (`doing`), said to `sink` as the module docstring describes."""

    def __init__(self, sink: Sink, what: Text = "", after: float | None = None, every: float = EVERY, gap: float = GAP,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sink, self.what = sink, what
        self.after = after_from_env() if after is None else after
        self.every, self.gap, self.clock = every, gap, clock
        self.started = clock()
        self._waits: list[_Wait] = []
        self._lock = threading.Lock()  # the waits
        self._saying = threading.Lock()  # one update at a time, `end` last
        self._said_at: float | None = None
        self._said: tuple[int, ...] = ()
        self._closed = False

    @contextmanager
    def doing(self, what: Text) -> Iterator[None]:
        wait = _Wait(what)
        with self._lock:
            self._waits.append(wait)
        try:
            yield
        finally:
            with self._lock:
                self._waits.remove(wait)

    def message(self) -> str:
        with self._lock:
            waits = list(self._waits)
        details = "; ".join(dict.fromkeys(text for text in map(_say, (w.what for w in waits)) if text))
        return ": ".join(part for part in (_say(self.what), details) if part)

    def tick(self) -> None:
        """Say what is going on if it is time to (the ticker calls this every TICK seconds)."""
        with self._saying:
            now = self.clock()
            if self._closed or now - self.started < self.after:
                return
            with self._lock:
                waits = tuple(id(wait) for wait in self._waits)
            last = self._said_at
            if last is not None and now - last < self.every and (waits == self._said or now - last < self.gap):
                return
            self._said_at, self._said = now, waits
            self._send(Update("report" if last is not None else "begin", self.message(), now - self.started))

    def close(self) -> None:
        with self._saying:
            if self._closed:
                return
            self._closed = True
            if self._said_at is not None:
                self._send(Update("end", ": ".join(part for part in (_say(self.what), "done") if part), self.clock() - self.started))

    def _send(self, update: Update) -> None:
        try:
            self.sink(update)
        except Exception:  # noqa: BLE001 - a closed stream or connection: stop saying, keep working
            self._closed = True


class _Ticker:
    """The one thread that ticks every live reporter; it sleeps while there is none."""

    def __init__(self) -> None:
        self._reporters: set[Reporter] = set()
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, reporter: Reporter) -> None:
        with self._wake:
            self._reporters.add(reporter)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="gateway-progress", daemon=True)
                self._thread.start()
            self._wake.notify()

    def remove(self, reporter: Reporter) -> None:
        with self._wake:
            self._reporters.discard(reporter)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._reporters:
                    self._wake.wait()
                reporters = list(self._reporters)
            for reporter in reporters:
                reporter.tick()
            time.sleep(TICK)


_TICKER = _Ticker()
_current: ContextVar[Reporter | None] = ContextVar("gateway_progress", default=None)


@contextmanager
def reporting(sink: Sink, what: Text = "", **options: Any) -> Iterator[Reporter]:
    """Run the block under a reporter saying to `sink` (options: after, every, gap, clock)."""
    reporter = Reporter(sink, what, **options)
    token = _current.set(reporter)
    _TICKER.add(reporter)
    try:
        yield reporter
    finally:
        _TICKER.remove(reporter)
        _current.reset(token)
        reporter.close()


def doing(what: Text) -> AbstractContextManager[None]:
    """Name what the current operation waits on for the block (a callable is asked each time it is said)."""
    reporter = _current.get()
    return reporter.doing(what) if reporter is not None else nullcontext()


def carried(work: Callable[..., T]) -> Callable[..., T]:
    """`work` to run once on another thread, reporting to the current operation's reporter
    (a context is entered by one thread at a time: carry once per task)."""
    context = copy_context()
    return lambda *args: context.run(work, *args)
