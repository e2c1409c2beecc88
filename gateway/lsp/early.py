"""A cold command's language server, started before the command loads the rest of the gateway.

A symbol command that no daemon answers starts the file's server first (jedi: about 1 s to
start, as long again for its first documentSymbol on a 2,630-line file) and asks it for the
file's symbols in the background; the engine's imports and its own parse of the file then
overlap that wait instead of preceding it. The process itself is started with `subprocess`
before asyncio, multilspy and the session are imported (`gateway.lsp.launch`), and the session
talks to it. The engine is given the same SessionManager, so the answer is the one it would
have asked for itself.

Sooner still, before the language table is read or the servers found: a cold command that
started a server for a file whose name alone told its language records that launch (in the
user's state directory), and the next cold command on a file named alike starts it from the
record (`start_recorded`). The plan made afresh then adopts it only if it is the same launch,
and ends it otherwise; a launch that depends on the workspace (jdtls's) is never recorded.
"""

from __future__ import annotations

import contextlib
import json
import os

from gateway.errors import GatewayError

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: `start_recorded` runs before typing is loaded
if TYPE_CHECKING:
    import subprocess
    from pathlib import Path

    from gateway.langs import Language, LanguageRegistry
    from gateway.lsp.manager import SessionManager


Started = tuple[tuple[str | None, ...], "subprocess.Popen[bytes]"]  # a launch key and the server started for it
Recorded = tuple[tuple[str | None, ...], dict[str, str], "subprocess.Popen[bytes]"]  # and the environment it was given
_RECORD = "early-launches.json"  # in the user's state directory, beside servers-run.json


def _record_path() -> str:
    from gateway.callerenv import state_base

    return os.path.join(state_base(), "gateway", _RECORD)


def _read_record() -> object:
    """The record's JSON, or None when there is none (or it is not a small regular file: a FIFO
    there is never waited on)."""
    from gateway.reading import read_regular

    try:
        raw = read_regular(_record_path(), limit=1 << 20)
        return json.loads(raw) if raw is not None else None
    except (GatewayError, ValueError):
        return None


def start_recorded(workspace: str, path: str) -> Recorded | None:
    """The server that the last cold command started for a file with `path`'s extension, started
    again from the launch it recorded, before the language table, the servers' discovery and the
    engine are loaded (about 40 ms sooner); None without a record that still holds (its program
    file changed, say). `start_early` adopts it only when its own plan is the same launch."""
    from gateway import callerenv
    from gateway.lsp.launch import REAPER_PREFIX, program_stamp, start

    extension = os.path.splitext(path)[1]
    if not extension or callerenv.get("GATEWAY_NO_SERVERS") == "1" or not os.path.isdir(workspace):
        return None
    try:
        entry = _read_record()[extension]  # type: ignore[index]
        key, line, env, stamp = tuple(entry["key"]), list(entry["line"]), dict(entry["env"]), list(entry["stamp"])
    except (LookupError, TypeError, ValueError, AttributeError):
        return None  # none yet, or not one this gateway wrote
    plain = all(isinstance(word, str) for word in (*line, *env, *env.values())) and all(isinstance(k, str | None) for k in key)
    if not plain or line[: len(REAPER_PREFIX)] != REAPER_PREFIX or len(line) <= len(REAPER_PREFIX):
        return None
    if program_stamp(line[len(REAPER_PREFIX)]) != stamp:
        return None
    from gateway.lsp.confine import keeps_out

    root = os.path.realpath(workspace)
    if not keeps_out(line[len(REAPER_PREFIX)], env, root):
        return None  # recorded in another workspace, it would run something of this one
    try:
        return key, env, start(line, env, root)
    except OSError:
        return None


def _record(extension: str, key: tuple[str | None, ...], line: list[str], env: dict[str, str]) -> None:
    """What `start_recorded` starts next time for files with `extension`; written only when it
    changed, after the server has started (off the command's wait)."""
    from gateway.lsp.launch import REAPER_PREFIX, program_stamp

    known = _read_record()
    known = known if isinstance(known, dict) else {}
    entry = {"key": list(key), "line": line, "env": env, "stamp": program_stamp(line[len(REAPER_PREFIX)])}
    if known.get(extension) == entry:
        return
    from pathlib import Path

    from gateway.userstate import private_file, state_home

    with contextlib.suppress(OSError):
        state_home()
        private_file(Path(_record_path()), json.dumps({**known, extension: entry}).encode(), durable=False)


def _plan(lang: Language, root: Path) -> tuple[tuple[str | None, ...], list[str], dict[str, str], bool] | None:
    """How the language's server is started in `root`: its launch key, its command line under
    the reaper and the environment that adds, and whether that launch is the same in every
    workspace (its adapter adds nothing of the workspace's); None when servers are off or none
    is installed (the session says so when it is asked)."""
    from gateway import callerenv
    from gateway.lsp.adapters.base import Adapter
    from gateway.lsp.discovery import search_path
    from gateway.lsp.discovery import planned
    from gateway.lsp.launch import leashed

    if callerenv.get("GATEWAY_NO_SERVERS") == "1":
        return None
    plan = planned(lang.server, root)
    if plan is None:
        return None
    command, adapter, key = plan
    line, env = leashed(command, adapter, root, search_path(root))
    return key, line, env, type(adapter).launch is Adapter.launch


def _spawn(lang: Language, root: Path, recorded: Recorded | None = None, extension: str = "") -> Started | None:
    """The language's server started now, or `recorded` when that is the same launch (else it is
    ended); `extension`: the file's, which alone told its language, for the next command's record."""
    from gateway.lsp.launch import end, start

    plan = _plan(lang, root)
    same = recorded is not None and plan is not None and (recorded[0], list(recorded[2].args), recorded[1]) == plan[:3]  # type: ignore[arg-type]
    if recorded is not None and not same:
        end(recorded[2])
    if plan is None:
        return None
    key, line, env, anywhere = plan
    try:
        started = (key, recorded[2]) if recorded is not None and same else (key, start(line, env, root))
    except OSError:
        return None  # the session starts it, and says why it cannot
    if extension and anywhere:
        _record(extension, key, line, env)
    return started


def start_early(workspace: str, path: str, registry: LanguageRegistry, recorded: Recorded | None = None) -> SessionManager | None:
    """The workspace's sessions with `path`'s server starting, or None when there is none to
    start (no server for its language, servers switched off, or a file the command itself will
    refuse: it says why). `recorded`: what `start_recorded` started, adopted if it is the same."""
    from pathlib import Path

    from gateway.lsp.launch import end

    # A file whose name alone tells its language has its server started before the file is
    # even read (or the modules that read it imported); any other once its text has told.
    named = registry.candidates(path)
    root = Path(workspace).resolve()
    if len(named) == 1 and named[0].symbol_backend and root.is_dir():
        started = _spawn(named[0], root, recorded, os.path.splitext(path)[1])
    else:
        started = None
        if recorded is not None:
            end(recorded[2])
    from gateway.syntax import language_for
    from gateway.workspace import Workspace

    try:
        files = Workspace(workspace, registry)
        source = files.read(path)
        lang = language_for(registry, source.path, source.text)
    except GatewayError:
        lang = None
    if lang is None or not lang.symbol_backend or (started is not None and lang is not named[0]):
        if started is not None:
            end(started[1])
        return None
    started = started or _spawn(lang, files.root)
    from gateway.lsp.manager import SessionManager

    sessions = SessionManager(files.root)
    if started is not None:
        sessions.adopt(*started)
    if not sessions.use_servers:
        sessions.close()
        return None
    sessions.start_soon(lang, source.path, source.text)
    return sessions
