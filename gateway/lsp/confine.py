"""What a language server may run: programs, and files loaded as code, from the gateway's own
tools or from the user's PATH outside the workspace, never from the workspace, whatever a
cloned repository holds (a `bin/` on PATH, a `.venv` named by $VIRTUAL_ENV, a `sitecustomize.py`
on a relative PYTHONPATH). Version checks run outside the workspace with a minimal environment.

Standard library only: a cold command checks a recorded launch with it (`keeps_out`) before
anything else of the gateway is loaded.
"""

from __future__ import annotations

import os
import sys
from functools import lru_cache

from gateway import callerenv

# The checkout's tool folders that `make setup` fills: npm-installed servers, `go install`ed gopls.
_CHECKOUT_TOOLS = (".tools/node/node_modules/.bin", ".tools/go/bin")
# Search paths the servers' interpreters load code from (Python's, Node's).
SEARCH_PATHS = ("PYTHONPATH", "NODE_PATH")
# Environments whose interpreter a server runs to inspect it (jedi: $VIRTUAL_ENV, $CONDA_PREFIX).
ENVIRONMENTS = ("VIRTUAL_ENV", "CONDA_PREFIX")
# All a version check is given of the environment, besides PATH and its adapter's pins.
_VERSION_CHECK_ENV = ("HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "RUSTUP_HOME", "CARGO_HOME",
                      "RUSTUP_TOOLCHAIN", "GOROOT", "GOPATH", "GOMODCACHE", "GOPROXY", "GOFLAGS")
# Where version checks run: never in the workspace (a rustup proxy follows the rust-toolchain.toml of its cwd).
OUTSIDE = "/"


def tool_dirs() -> list[str]:
    """The gateway's own tools: this Python's `bin/`, then $GATEWAY_TOOLS_DIR (one folder or a
    PATH-style list), or by default the checkout's tool folders."""
    override = callerenv.get("GATEWAY_TOOLS_DIR")
    tools = override.split(os.pathsep) if override else _checkout_tools()
    own = [os.path.dirname(callerenv.get("executable") or sys.executable), *tools]
    return [folder for folder in own if os.path.isabs(folder)]


@lru_cache(maxsize=1)
def _checkout_tools() -> list[str]:
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    return [os.path.join(checkout, folder) for folder in _CHECKOUT_TOOLS]


def inside(path: str, root: str) -> bool:
    """Whether `path` (a link: where it leads) is `root` or under it."""
    return _under(os.path.realpath(path), os.path.realpath(root))


def _under(real: str, base: str) -> bool:
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def confined(value: str, root: str | None, kept: list[str] | tuple[str, ...] = ()) -> str:
    """A PATH-style list without its relative or empty entries (they name the server's working
    directory, the workspace) and, given a workspace `root`, those inside it; `kept` stay."""
    return _confined(value, root, tuple(kept))


@lru_cache(maxsize=256)
def _confined(value: str, root: str | None, kept: tuple[str, ...]) -> str:
    """`confined`, remembered: the daemon asks it on every request (resolving each entry's links
    costs about 2 ms for a PATH of 16)."""
    entries = value.split(os.pathsep) if value else []
    base = os.path.realpath(root) if root is not None else None
    return os.pathsep.join(entry for entry in entries
                           if entry in kept or (os.path.isabs(entry) and (base is None or not _under(os.path.realpath(entry), base))))


def server_env(root: str) -> dict[str, str]:
    """What a server's environment says instead of the gateway's own about the search paths and
    environments its interpreter loads code from: entries in the workspace dropped (an empty
    value is no value to Python, Node and jedi)."""
    env = {name: confined(os.environ.get(name, ""), root) for name in SEARCH_PATHS}
    for name in ENVIRONMENTS:
        value = os.environ.get(name, "")
        env[name] = value if os.path.isabs(value) and not inside(value, root) else ""
    return env


def keeps_out(program: str, env: dict[str, str], root: str) -> bool:
    """Whether a launch (a program and the environment it adds) runs nothing of the workspace
    `root`, as `server_env` and a PATH from `discovery.search_path` make sure."""
    own = tool_dirs()
    if inside(program, root) and os.path.dirname(program) not in own:
        return False
    if any(name not in env for name in (*SEARCH_PATHS, *ENVIRONMENTS)) or env.get("PATH") != confined(env.get("PATH", ""), root, own):
        return False
    return all(env[name] == confined(env[name], root) for name in SEARCH_PATHS) and all(
        not env[name] or (os.path.isabs(env[name]) and not inside(env[name], root)) for name in ENVIRONMENTS)


def version_env(path: str, pins: dict[str, str]) -> dict[str, str]:
    """The minimal environment a version check runs with: PATH, the user's locale, home and
    toolchain homes, and the adapter's pins."""
    kept = {name: os.environ[name] for name in _VERSION_CHECK_ENV if name in os.environ}
    return {**kept, "PATH": path, **pins}
