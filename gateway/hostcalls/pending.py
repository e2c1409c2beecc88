"""Routed writes waiting for the host to perform them.

PreToolUse rewrites a structural write into the result R of symbol operations, but only the
host writes it, and the host may still refuse (a permission rule, the user, a failed match).
So the agent is told what the gateway did only at PostToolUse, and only if the file on disk
is R: `remember` notes R's digest and the note per file (in the user's state directory), and
`take` hands the note out once the file holds exactly R (`hostcalls.performed`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from gateway.hostcalls.answer_first import after_answer, outside
from gateway.userstate import private_file, state_home

LIFETIME_SECONDS = 3600


def _record(path: Path) -> Path:
    directory = state_home() / "routed"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory / (hashlib.sha256(str(path.absolute()).encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".json")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


# Notes being written, by path: the answer that routes a write does not wait for its note (the
# digest of a long R and a file written), and the PostToolUse that takes it waits for it. One
# writer thread, kept: notes are written in the order they were made, and a process waits for
# the last one before it exits (concurrent.futures joins its workers at exit).
_writing: dict[Path, Future[None]] = {}
_writing_lock = threading.Lock()
_writer: list[ThreadPoolExecutor] = []


def remember(path: Path, result: str, note: str | Callable[[], str]) -> None:
    """R for `path`, and what to tell the agent once the host has written it (written by the
    writer thread, which `take` waits for: the hook's answer goes out meanwhile); a callable
    note is made there too (the language server's delta, while the host writes), in the
    caller's context (its environment, its bound on each server request)."""
    at, target, context = time.time(), _record(path), outside()

    def write() -> None:
        said = context.run(note) if callable(note) else note
        record = {"path": str(path.absolute()), "digest": _digest(result), "note": said, "at": at}
        private_file(target, json.dumps(record).encode(), durable=False)  # lost in a crash, the agent is only not told

    def start() -> None:
        with _writing_lock:
            if not _writer:
                _writer.append(ThreadPoolExecutor(1, thread_name_prefix="gateway-note"))
            for done in [key for key, future in _writing.items() if future.done()]:
                del _writing[done]
            _writing[target] = _writer[0].submit(write)

    after_answer(start)  # within a hook's answer (hostcalls.judge.pre): once it is made


def _written(record_path: Path) -> None:
    """Wait for a note being written to `record_path` in this process."""
    with _writing_lock:
        future = _writing.pop(record_path, None)
    if future is not None:
        with contextlib.suppress(OSError):  # as when it was written in place: no note
            future.result()


def take(path: Path, texts: list[str]) -> str | None:
    """The note for `path` if the routed result is what the file now holds, as it is or read with
    LF line ends (the record is used up either way once the host has written the file)."""
    record_path = _record(path)
    _written(record_path)
    try:
        record = json.loads(record_path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("path") != str(path.absolute()):
        return None
    record_path.unlink(missing_ok=True)
    fresh = isinstance(record.get("at"), int | float) and time.time() - record["at"] < LIFETIME_SECONDS
    if not fresh or record.get("digest") not in {_digest(text) for text in texts}:
        return None
    note = record.get("note")
    return note if isinstance(note, str) else None
