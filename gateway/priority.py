"""Background work gives way to a hook's answer being worked out in the same process (the
daemon's): Python runs one thread at a time, and a thread reading a long file's outline from its
language server (3,000 symbols: tens of milliseconds in small steps) shares the interpreter
with the hook's thread at each step, so an answer it overlaps took up to twice its own time.
The background thread waits instead, at the points it calls `give_way`, for at most
GIVE_WAY_SECONDS at a time, holding nothing an answer waits for there."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

GIVE_WAY_SECONDS = 1.0
GIVE_WAY_EVERY = 256  # items (symbols read or normalised) between the points a long pass gives way at

_answering = 0  # hook answers being worked out now
_settled = threading.Condition()
_marked = threading.local()


@contextlib.contextmanager
def answering() -> Iterator[None]:
    """Within: a hook's answer is being worked out; background work gives way."""
    global _answering
    with _settled:
        _answering += 1
    try:
        yield
    finally:
        with _settled:
            _answering -= 1
            _settled.notify_all()


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Within, on this thread: work nobody waits for now, which gives way (`give_way`)."""
    was = getattr(_marked, "background", False)
    _marked.background = True
    try:
        yield
    finally:
        _marked.background = was


def give_way() -> None:
    """On a thread doing background work: wait while a hook's answer is being worked out (at
    most GIVE_WAY_SECONDS); elsewhere, nothing."""
    if _answering and getattr(_marked, "background", False):
        with _settled:
            _settled.wait_for(lambda: not _answering, GIVE_WAY_SECONDS)
