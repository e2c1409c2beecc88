"""Whose rules judge a hook's write: those of the workspace the written file belongs to (the
nearest `.gateway` above it, or a workspace the gateway watches), not those of the workspace
the call was made from. A file of no workspace is judged by the call's workspace, as before."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gateway.gate.checker import Gate
    from gateway.surfaces.hooks.judge import HookCall
    from gateway.typed.service import TypedEdits


def root_of(call: HookCall) -> Path | None:
    """The `.gateway` root above the call's project (or working) directory."""
    from gateway.config import find_root

    return find_root(Path(call.project_dir or call.cwd))


def watched_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` whose workspace the gateway watches (its
    `.gateway/` may have been removed by the very command being checked)."""
    from gateway.typed.state import state_path
    from gateway.typed.watch import BASELINE
    from gateway.userstate import state_home

    home = state_home()
    for directory in (start, *start.parents):
        if (state_path(directory, home) / BASELINE).exists():
            return directory
    return None


def call_root(call: HookCall) -> Path | None:
    """The workspace of the call itself: its `.gateway` root, or a watched one."""
    return root_of(call) or watched_root(Path(call.project_dir or call.cwd).resolve())


def own_root(path: Path) -> Path | None:
    """The workspace `path` belongs to by itself (None: none)."""
    from gateway.config import find_root

    directory = Path(os.path.abspath(path)).parent
    return find_root(directory) or watched_root(Path(os.path.realpath(directory)))


class Roots:
    """The workspace lookups of one hook call, each directory looked up once (a patch names
    many files, mostly in a few directories)."""

    def __init__(self, call: HookCall) -> None:
        self.call = call
        self._own: dict[Path, Path | None] = {}
        self._gates: dict[Path | None, Gate] = {}
        self._call: list[Path | None] = []
        self._project: list[Path | None] = []

    def own(self, path: Path) -> Path | None:
        """`own_root`."""
        directory = Path(os.path.abspath(path)).parent
        if directory not in self._own:
            self._own[directory] = own_root(path)
        return self._own[directory]

    def of_project(self) -> Path | None:
        """`root_of` the call."""
        if not self._project:
            self._project.append(root_of(self.call))
        return self._project[0]

    def of_call(self) -> Path | None:
        """`call_root`."""
        if not self._call:
            self._call.append(call_root(self.call))
        return self._call[0]

    def file(self, path: Path) -> Path | None:
        """The workspace whose rules judge a write to `path`: its own, else the call's."""
        return self.own(path) or self.of_call()

    def gate(self, path: Path) -> Gate:
        root = self.file(path)
        if root not in self._gates:
            self._gates[root] = gate_at(root, Path(self.call.project_dir or self.call.cwd))
        return self._gates[root]


def typed_at(root: Path | None) -> TypedEdits | None:
    if root is None:
        return None
    from gateway.typed.service import TypedEdits
    from gateway.workspace import Workspace

    return TypedEdits(Workspace(root))


def gate_at(root: Path | None, fallback: Path) -> Gate:
    """The gate with `root`'s settings; it reads macros from headers under `root` (or `fallback`,
    the call's directory) and, in the daemon, asks its clangd for what macro calls make."""
    from gateway.config import gate_config
    from gateway.gate.checker import Gate
    from gateway.surfaces.hooks.planning import macro_server

    return Gate(config=gate_config(root), root=root or fallback, server=macro_server())
