"""Where the language servers are: PATH, the gateway's own interpreter, the project's npm folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from gateway.langs import ServerSpec


def tool_dirs() -> list[str]:
    override = os.environ.get("GATEWAY_TOOLS_DIR")
    checkout = Path(__file__).resolve().parents[2]
    node_bin = Path(override) if override else checkout / ".tools" / "node" / "node_modules" / ".bin"
    return [str(Path(sys.executable).parent), str(node_bin)]


def search_path() -> str:
    return os.pathsep.join([*tool_dirs(), os.environ.get("PATH", "")])


def find_server(spec: ServerSpec) -> tuple[str, ...] | None:
    """The first of the spec's commands that is installed and runs, with its program resolved.

    A program that is on PATH but cannot run (a rustup proxy without its component, say)
    does not count.
    """
    path = search_path()
    for command in (spec.command, *spec.alternatives):
        program = shutil.which(command[0], path=path)
        if program and server_version(program, spec.version_args) is not None:
            return (program, *command[1:])
    return None


@cache
def server_version(program: str, version_args: tuple[str, ...] = ("--version",)) -> str | None:
    """The first line the program prints for its version, or None if it does not run."""
    try:
        done = subprocess.run(
            [program, *version_args],
            capture_output=True,
            text=True,
            timeout=15,
            env={**os.environ, "PATH": search_path()},
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0].strip() if lines else ""
