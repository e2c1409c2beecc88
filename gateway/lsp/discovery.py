"""Where the language servers are: PATH, the gateway's own interpreter, the project's tool folders."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from gateway.langs import ServerSpec

# The checkout's tool folders that `make setup` fills: npm-installed servers, `go install`ed gopls.
_CHECKOUT_TOOLS = (".tools/node/node_modules/.bin", ".tools/go/bin")


def tool_dirs() -> list[str]:
    """This Python's own `bin/`, then $GATEWAY_TOOLS_DIR (one folder or a PATH-style list), or
    by default the checkout's tool folders."""
    override = os.environ.get("GATEWAY_TOOLS_DIR")
    checkout = Path(__file__).resolve().parents[2]
    tools = override.split(os.pathsep) if override else [str(checkout / folder) for folder in _CHECKOUT_TOOLS]
    return [str(Path(sys.executable).parent), *tools]


def search_path() -> str:
    return os.pathsep.join([*tool_dirs(), os.environ.get("PATH", "")])


def find_server(spec: ServerSpec) -> tuple[str, ...] | None:
    """The first of the spec's commands that is installed and runs, with its program resolved.

    A program that is on PATH but cannot run (a rustup proxy without its component, say)
    does not count; `why_not_found` says what it answered.
    """
    from gateway.lsp.adapters import adapter_for

    adapter, path = adapter_for(spec.adapter), search_path()
    for command in (spec.command, *spec.alternatives):
        program = shutil.which(command[0], path=path)
        if program and adapter.version(program, spec.version_args) is not None:
            return (program, *command[1:])
    return None


def why_not_found(spec: ServerSpec) -> str | None:
    """For a server that `find_server` does not find: what the program on PATH that does not
    run answered (None when none of the spec's programs is on PATH at all)."""
    from gateway.lsp.adapters import adapter_for

    adapter, path = adapter_for(spec.adapter), search_path()
    for command in (spec.command, *spec.alternatives):
        program = shutil.which(command[0], path=path)
        if program:
            return adapter.why_not_running(program, spec.version_args)
    return None


@cache
def _run_version(program: str, version_args: tuple[str, ...]) -> tuple[bool, str]:
    """(ran, the first line it printed): on stdout when it ran, on stderr when it failed."""
    try:
        done = subprocess.run(
            [program, *version_args],
            capture_output=True,
            text=True,
            timeout=15,
            env={**os.environ, "PATH": search_path()},
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return False, f"{Path(program).name} {' '.join(version_args)} did not answer within 15 s"
    except OSError as error:
        return False, f"{Path(program).name} does not run: {error.strerror or error}"
    text = (done.stdout or done.stderr) if done.returncode == 0 else (done.stderr or done.stdout)
    lines = text.strip().splitlines()
    first = lines[0].strip() if lines else ""
    return done.returncode == 0, first if done.returncode == 0 else first or f"exit code {done.returncode}"


def server_version(program: str, version_args: tuple[str, ...] = ("--version",)) -> str | None:
    """The first line the program prints for its version, or None if it does not run."""
    ran, line = _run_version(program, version_args)
    return line if ran else None


def version_failure(program: str, version_args: tuple[str, ...] = ("--version",)) -> str | None:
    """What the program said when asked its version and failing (None: it ran)."""
    ran, line = _run_version(program, version_args)
    return None if ran else line
