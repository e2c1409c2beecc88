"""Reading files' definitions for the index, in this process or shared among worker processes.

`read_file` is what the index knows of one file: the SHA-256 of its bytes, its language, and
(unless that content is indexed already) its definitions, as `SymbolService.file_symbols` gives
them from tree-sitter. A cold build of many files (`PARALLEL_FROM` or more) is shared among
worker processes (`python -m gateway.symbols.index_workers`, the gateway's own code, one per
core up to `MOST_WORKERS`): each is handed batches of paths and answers each batch with what
`read_file` says of them. A worker that fails leaves its files to this process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Container, Iterator
from pathlib import Path

from gateway.errors import GatewayError
from gateway.langs import LanguageRegistry, default_registry
from gateway.symbols.model import Symbol
from gateway.symbols.structure import structure
from gateway.syntax import language_for, parse_once
from gateway.workspace import Workspace

NO_LANGUAGE = ""  # a content no language with symbols reads: indexed with no definitions
PARALLEL_FROM = 200
MOST_WORKERS = 4
CHUNK = 32

# (digest, language, definitions: None when the content was indexed already); None: not readable.
Read = tuple[str, str, list[Symbol] | None] | None


def read_file(workspace: Workspace, registry: LanguageRegistry, path: str, known: Container[tuple[str, str]]) -> Read:
    """What the index needs of the file at `path` (None when the gateway will not read it: too
    large, not text); its definitions only for a content not in `known`."""
    try:
        source = workspace.read(path)
    except GatewayError:
        return None
    lang = language_for(registry, source.path, source.text)
    if lang is None or not lang.symbol_backend:
        return (source.digest, NO_LANGUAGE, None if (source.digest, NO_LANGUAGE) in known else [])
    if (source.digest, lang.name) in known:
        return (source.digest, lang.name, None)
    return (source.digest, lang.name, structure(lang, source.text, parse_once(lang, source.text.encode())))


def workers_for(files: int) -> int:
    """How many worker processes a build of `files` files is shared among (0: none, this process does them)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if files < PARALLEL_FROM or cores < 2:
        return 0
    return min(cores, MOST_WORKERS)


def read_in_workers(root: Path, paths: list[str], known: set[tuple[str, str]], count: int) -> Iterator[tuple[str, Read]]:
    """(path, `read_file` of it) for every path, in the order they are done, from `count` workers;
    what they leave (a worker that cannot start, or fails) is read here at the end."""
    chunks: queue.Queue[list[str]] = queue.Queue()
    for start in range(0, len(paths), CHUNK):
        chunks.put(paths[start : start + CHUNK])
    done: queue.Queue[tuple[str, Read]] = queue.Queue()
    threads = [threading.Thread(target=_serve, args=(root, known, chunks, done), daemon=True, name="gateway-index-worker")
               for _ in range(count)]
    for thread in threads:
        thread.start()
    answered: set[str] = set()
    while len(answered) < len(paths):
        try:
            item = done.get(timeout=1)
        except queue.Empty:
            if any(thread.is_alive() for thread in threads) or not done.empty():
                continue
            break  # every worker has ended: what they left is read below
        answered.add(item[0])
        yield item
    registry = default_registry()
    workspace = Workspace(root, registry)
    for path in paths:
        if path not in answered:
            yield path, read_file(workspace, registry, path, known)


def _serve(root: Path, known: set[tuple[str, str]], chunks: queue.Queue[list[str]], done: queue.Queue[tuple[str, Read]]) -> None:
    """Feed one worker process batches until none is left (or it fails: its files are then left
    to `read_in_workers`)."""
    package = str(Path(__file__).resolve().parent.parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [package, os.environ.get("PYTHONPATH")]))}
    try:
        worker = subprocess.Popen([sys.executable, "-m", "gateway.symbols.index_workers"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env)
    except OSError:
        return
    stdin, stdout = worker.stdin, worker.stdout
    assert stdin is not None and stdout is not None
    try:
        pickle.dump((str(root), known), stdin)
        while True:
            try:
                chunk = chunks.get_nowait()
            except queue.Empty:
                return
            pickle.dump(chunk, stdin)
            stdin.flush()
            for path, read in zip(chunk, pickle.load(stdout), strict=True):
                done.put((path, read))
    except (OSError, EOFError, ValueError, pickle.UnpicklingError):
        return
    finally:
        with contextlib.suppress(OSError):
            stdin.close()  # its end of input: it exits
        try:
            worker.wait(5)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait()


def _work() -> None:
    """The worker's loop: (root, known contents), then batches of paths, each answered in turn."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    root, known = pickle.load(stdin)
    registry = default_registry()
    workspace = Workspace(root, registry)
    while True:
        try:
            chunk = pickle.load(stdin)
        except EOFError:
            return
        pickle.dump([read_file(workspace, registry, path, known) for path in chunk], stdout)
        stdout.flush()


if __name__ == "__main__":
    _work()
