"""Where the language servers are: PATH, the gateway's own interpreter, the project's tool
folders, as the call being answered sees them (`gateway.callerenv`: in the daemon, the caller's)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from gateway import callerenv
from gateway.langs import ServerSpec
from gateway.lsp.confine import OUTSIDE, confined, tool_dirs, version_env
from gateway.lsp.launch import program_stamp

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gateway.lsp.adapters.base import Adapter


def search_path(root: str | Path | None = None) -> str:
    """Where servers and the programs they run are found: the gateway's own tools, then the
    caller's PATH without its relative or empty entries and, given the workspace `root`, those
    inside it (`gateway.lsp.confine`)."""
    own = tool_dirs()
    return os.pathsep.join([*own, confined(callerenv.get("PATH") or "", None if root is None else str(root), own)])


def find_server(spec: ServerSpec, root: str | Path | None = None) -> tuple[str, ...] | None:
    """The first of the spec's commands that is installed and runs, with its program resolved
    (outside the workspace `root`).

    A program that is on PATH but cannot run (a rustup proxy without its component, say)
    does not count; `why_not_found` says what it answered.
    """
    from gateway.lsp.adapters import adapter_for

    path = search_path(root)
    for command in (spec.command, *spec.alternatives):
        program = shutil.which(command[0], path=path)
        if program and _runs(adapter_for(spec.adapter_of(command)), program, spec.version_args, path):
            return (program, *command[1:])
    return None


def why_not_found(spec: ServerSpec, root: str | Path | None = None) -> str | None:
    """For a server that `find_server` does not find: what the program on PATH that does not
    run answered (None when none of the spec's programs is on PATH at all)."""
    from gateway.lsp.adapters import adapter_for

    path = search_path(root)
    for command in (spec.command, *spec.alternatives):
        program = shutil.which(command[0], path=path)
        if program:
            return adapter_for(spec.adapter_of(command)).why_not_running(program, spec.version_args, path)
    return None


def why_unusable(spec: ServerSpec, root: str | Path | None = None) -> str:
    """Why `planned` finds no server to run for the spec: what the program on PATH answered
    (or that it did not answer in time), a program it runs missing from PATH, or that none
    of its programs is installed."""
    if find_server(spec, root) is not None:
        return missing_programs(spec, root) or f"{spec.name} cannot run here"
    names = " or ".join(dict.fromkeys(command[0] for command in (spec.command, *spec.alternatives)))
    return why_not_found(spec, root) or f"not installed (no {names} on PATH)"


def _record() -> Path:
    from gateway.userstate import state_home

    return state_home() / "servers-run.json"


_ran: dict[str, list[int]] = {}  # what `_runs` found in its record (or made it say) in this process


def _runs(adapter: Adapter, program: str, version_args: tuple[str, ...], path: str) -> bool:
    """Whether the program runs (answers its version). Asking costs a start of the program (a
    Python server: most of a second), so a success is remembered across processes (in the
    user's state directory) for as long as the program's file is the same one; a failure is
    asked again each time, and a remembered success that then fails to start is forgotten
    (`forget`)."""
    key, stamp = "\0".join([program, *version_args, path]), program_stamp(program)
    if stamp is not None and _ran.get(key) == stamp:  # this process has seen the record say so (a daemon: every request)
        return True
    try:
        known = json.loads(_record().read_text("utf-8"))
    except (OSError, ValueError):
        known = {}
    if not isinstance(known, dict):
        known = {}
    if stamp is not None and known.get(key) == stamp:
        _ran[key] = stamp
        return True
    if adapter.version(program, version_args, path) is None:
        return False
    if stamp is not None:
        _ran[key] = stamp
    with contextlib.suppress(OSError):
        from gateway.userstate import private_file

        private_file(_record(), json.dumps({**known, key: stamp}).encode(), durable=False)
    return True


def forget(program: str) -> None:
    """A remembered program that failed to start is asked again next time."""
    for key in [key for key in _ran if key.split("\0", 1)[0] == program]:
        _ran.pop(key, None)
    try:
        known = json.loads(_record().read_text("utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(known, dict) and any(key.split("\0", 1)[0] == program for key in known):
        from gateway.userstate import private_file

        with contextlib.suppress(OSError):
            private_file(_record(), json.dumps({k: v for k, v in known.items() if k.split("\0", 1)[0] != program}).encode(), durable=False)


def server_version(program: str, version_args: tuple[str, ...] = ("--version",), path: str | None = None,
                   pins: dict[str, str] | None = None) -> str | None:
    """The first line the program prints for its version, or None if it does not run; asked
    outside the workspace, with PATH `path` and the environment its adapter `pins`."""
    ran, line = _version(program, version_args, search_path() if path is None else path, tuple(sorted((pins or {}).items())))
    return line if ran else None


def version_failure(program: str, version_args: tuple[str, ...] = ("--version",), path: str | None = None,
                    pins: dict[str, str] | None = None) -> str | None:
    """What the program said when asked its version and failing (None: it ran)."""
    ran, line = _version(program, version_args, search_path() if path is None else path, tuple(sorted((pins or {}).items())))
    return None if ran else line


def launch_key(command: tuple[str, ...], programs: tuple[str, ...] = (), root: str | Path | None = None) -> tuple[str | None, ...]:
    """What decides how a server runs beside its command, since it gets only PATH from us: the
    programs it finds there (the interpreter of a `#!/usr/bin/env` line, and those its adapter
    names, as gopls's `go`). Calls with the same key can share one server."""
    path = search_path(root)
    return (*command, None, *(shutil.which(name, path=path) for name in (*_env_interpreter(command[0]), *programs)))


@cache
def _env_interpreter(program: str) -> tuple[str, ...]:
    """The program named by a `#!/usr/bin/env NAME` first line, looked up on PATH when it runs."""
    try:
        with open(program, "rb") as handle:
            line = handle.read(256).split(b"\n", 1)[0]
    except OSError:
        return ()
    words = line[2:].decode("utf-8", "replace").split() if line.startswith(b"#!") else []
    if not words or os.path.basename(words[0]) != "env":
        return ()
    names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return (names[0],) if names else ()


# How long a program's version is waited for. One silent that long (a machine under load, a
# hung binary) is not taken for one that does not run: it is asked again, by a call at least
# RETRY_SECONDS later, the wait doubling with each silence in a row up to RETRY_MOST.
VERSION_TIMEOUT = 15.0
RETRY_SECONDS = 30.0
RETRY_MOST = 480.0


@dataclass(frozen=True)
class _Silence:
    """A program that did not answer its version in time, `times` in a row, the last at `since`
    (time.monotonic): it is asked again from `wait` seconds after."""

    times: int
    since: float
    what: str

    @property
    def wait(self) -> float:
        return min(RETRY_SECONDS * 2 ** (self.times - 1), RETRY_MOST)

    def message(self) -> str:
        repeated = f" ({self.times} times in a row)" if self.times > 1 else ""
        return f"{self.what} did not answer within {VERSION_TIMEOUT:g} s{repeated}; asked again by a call from {self.wait:g} s after"


_VersionKey = tuple[str, tuple[str, ...], str, tuple[tuple[str, str], ...]]
_answered: dict[_VersionKey, tuple[bool, str]] = {}  # what each program answered, for the process's life
_silent: dict[_VersionKey, _Silence] = {}
_version_lock = threading.Lock()


def _version(program: str, version_args: tuple[str, ...], path: str, pins: tuple[tuple[str, str], ...]) -> tuple[bool, str]:
    """(ran, the first line it printed): on stdout when it ran, on stderr when it failed; asked
    once (`_ask_version`), except that a program that did not answer in time is asked again
    after a while (`_Silence`)."""
    key = (program, version_args, path, pins)
    with _version_lock:
        known, silence = _answered.get(key), _silent.get(key)
    if known is not None:
        return known
    if silence is not None and time.monotonic() < silence.since + silence.wait:
        return False, silence.message()
    answer = _ask_version(program, version_args, path, pins)
    with _version_lock:
        if answer is None:
            silence = _silent[key] = _Silence(silence.times + 1 if silence else 1, time.monotonic(), f"{Path(program).name} {' '.join(version_args)}")
            return False, silence.message()
        _silent.pop(key, None)
        _answered[key] = answer
    return answer


def _ask_version(program: str, version_args: tuple[str, ...], path: str, pins: tuple[tuple[str, str], ...]) -> tuple[bool, str] | None:
    """`_version`'s answer, asked now (None: no answer within VERSION_TIMEOUT). Run outside any
    workspace, with a minimal environment (`confine.version_env`)."""
    try:
        done = subprocess.run(
            [program, *version_args],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT,
            env=version_env(path, dict(pins)),
            cwd=OUTSIDE,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return None
    except OSError as error:
        return False, f"{Path(program).name} does not run: {error.strerror or error}"
    text = (done.stdout or done.stderr) if done.returncode == 0 else (done.stderr or done.stdout)
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    return done.returncode == 0, first if done.returncode == 0 else first or f"exit code {done.returncode}"


def missing_programs(spec: ServerSpec, root: str | Path | None = None) -> str | None:
    """For a server whose adapter runs programs it finds on PATH (gopls: `go`): why it cannot
    load a workspace with the caller's PATH, naming what is missing (None: it can, or it needs none)."""
    from gateway.lsp.adapters import adapter_for

    programs = adapter_for(spec.adapter).path_programs
    path = search_path(root) if programs else ""
    missing = [f"`{name}`" for name in programs if shutil.which(name, path=path) is None]
    if not missing:
        return None
    return f"{spec.name} cannot load the workspace: no {' or '.join(missing)} on PATH"


def planned(spec: ServerSpec, root: Path | None = None) -> tuple[tuple[str, ...], Adapter, tuple[str | None, ...]] | None:
    """The spec's server command, its adapter and its launch key (calls with the same key share
    one server, and a server started early is adopted by its key); None when none is installed
    (outside the workspace `root`: `gateway.lsp.confine`), or when a program it runs is missing
    from PATH (`missing_programs`)."""
    from gateway.lsp.adapters import adapter_for

    command = find_server(spec, root)
    if command is None:
        return None
    adapter = adapter_for(spec.adapter_of(command))
    key = launch_key(command, adapter.path_programs, root)
    if None in key[len(command) + 1 + len(_env_interpreter(command[0])):]:
        return None  # a program it runs is not on PATH: it could answer nothing (`missing_programs` says why)
    return command, adapter, key
