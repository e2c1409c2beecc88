"""Where a long benchmark run is, said on stderr: after 2 seconds, then every 10 seconds, by
gateway.progress, followed by whatever the engine is waiting on at that moment (a language
server starting or indexing)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gateway.progress import StreamSink, duration, reporting

EVERY = 10.0


class Meter:
    """A replay's position: the stage, the commit it is at, the edits judged so far, and an
    estimate of the time left from the commits done."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.stage = "starting"
        self.commits = self.done = self.edits = 0
        self.started = clock()

    def start(self, commits: int) -> None:
        self.commits, self.done, self.started = commits, 0, self.clock()

    def __call__(self) -> str:
        if not self.commits:
            return self.stage
        edits = f"{self.edits} edit{'' if self.edits == 1 else 's'} judged"
        at = f"{self.stage}: commit {min(self.done + 1, self.commits)} of {self.commits}, {edits}"
        if not self.done:
            return at
        left = (self.clock() - self.started) / self.done * (self.commits - self.done)
        return f"{at}, about {duration(left)} left"


@contextmanager
def metered(name: str, meter: Meter) -> Iterator[Meter]:
    """Say where the run is, a line at a time (a log, also on a terminal, where other lines are printed too)."""
    with reporting(StreamSink(sys.stderr, name, in_place=False), meter, every=EVERY, gap=EVERY):
        yield meter
