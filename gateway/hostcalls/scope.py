"""The scope of one host call on an engine. Whose rules judge a write: those of the workspace
the written file belongs to (the nearest `.gateway` above it, or a workspace the gateway
watches), not those of the workspace the call was made from; a file of no workspace is judged
by the call's. Each of those workspaces is read, confined, gated and granted through an engine:
the one the call runs on for its own workspace (the daemon's, warm), one made for the call for
any other (closed with the scope), as is the call's own when none was given (the hook's own
process)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import GatewayError, GrantRefused, OutsideWorkspace, Unencodable
from gateway.hostcalls.call import DECLARE_HINT, Answer, HookCall

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.checker import Gate
    from gateway.typed.service import TypedEdits
    from gateway.typed.watch import Outcome


def root_of(call: HookCall) -> Path | None:
    """The `.gateway` root above the call's project (or working) directory."""
    from gateway.config import find_root

    return find_root(Path(call.project_dir or call.cwd))


def watched_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` whose workspace the gateway watches (its
    `.gateway/` may have been removed by the very command being checked)."""
    from gateway.typed.state import state_path
    from gateway.typed.baseline import BASELINE
    from gateway.userstate import state_home

    home = state_home()
    for directory in (start, *start.parents):
        if (state_path(directory, home) / BASELINE).exists():
            return directory
    return None


def own_root(path: Path) -> Path | None:
    """The workspace `path` belongs to by itself (None: none)."""
    from gateway.config import find_root

    directory = Path(os.path.abspath(path)).parent
    return find_root(directory) or watched_root(Path(os.path.realpath(directory)))


def workspace_of(call: HookCall) -> Path:
    """The workspace whose engine (whose daemon) judges the call (`hooks.client`): the
    `.gateway` root above the project (or working) directory, else that directory."""
    from gateway.roots import gateway_root

    start = call.project_dir or str(call.cwd)
    return Path(gateway_root(start) or os.path.realpath(start))


def read_judged(gate: Gate, path: Path) -> str | None:
    """The file's text as the gate reads it (a regular file, within the size limit); None
    when it does not exist."""
    from gateway.textfile import decode, encoding_rule, round_trips, unencodable_message

    display = str(path)
    try:
        raw_bytes = gate.read(path, display)
    except OSError as error:
        raise GatewayError(f"{display}: cannot be read ({error.strerror or error})") from None
    if raw_bytes is None:
        return None
    text, codec = decode(raw_bytes, display, encoding_rule(path, gate.registry, raw_bytes))
    if not round_trips(text, codec, raw_bytes):
        raise Unencodable(unencodable_message(display, codec))
    return text


class Scope:
    """The workspace lookups of one host call, each directory looked up once (a patch names many
    files, mostly in a few directories), on `engine` (None: one made for the call's workspace
    when it is needed). `warm`: the engine outlives the call (the daemon's), so its language
    servers are asked what macro calls make, and about a routed file once written."""

    def __init__(self, engine: Engine | None, call: HookCall) -> None:
        self.call = call
        self.warm = engine is not None
        self.given = engine
        self._made: dict[Path, Engine] = {}
        self._own: dict[Path, Path | None] = {}
        self._gates: dict[Path | None, Gate] = {}
        self._call: list[Path | None] = []
        self._project: list[Path | None] = []

    def close(self) -> None:
        """Close the engines made for this call."""
        while self._made:
            self._made.popitem()[1].close()

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
        """The workspace of the call itself: its `.gateway` root, or a watched one."""
        if not self._call:
            self._call.append(self.of_project() or watched_root(Path(self.call.project_dir or self.call.cwd).resolve()))
        return self._call[0]

    def file(self, path: Path) -> Path | None:
        """The workspace whose rules judge a write to `path`: its own, else the call's."""
        return self.own(path) or self.of_call()

    def engine(self, root: Path) -> Engine:
        """The engine of the workspace at `root`: the call's, or one made for this call."""
        root = root.resolve()
        if self.given is not None and self.given.workspace.root == root:
            return self.given
        if root not in self._made:
            from gateway.engine import Engine

            self._made[root] = Engine(root)
        return self._made[root]

    def engine_for(self, path: Path) -> Engine:
        """The engine that plans a write to `path`: its own workspace's, else the call's (a file
        of no workspace is planned as the call's workspace plans it)."""
        return self.engine(self.own(path) or workspace_of(self.call))

    def gate(self, path: Path) -> Gate:
        """The gate with the settings of the workspace whose rules judge a write to `path`."""
        root = self.file(path)
        if root not in self._gates:
            self._gates[root] = self._gate_at(root)
        return self._gates[root]

    def call_gate(self) -> Gate:
        """The gate with the settings of the call's `.gateway` root (defaults without one)."""
        return self.gate(self.call.path) if self.call.path is not None else self._gate_at(self.of_project())

    def _gate_at(self, root: Path | None) -> Gate:
        """The gate with `root`'s settings; it reads macros from headers under `root` (or the
        call's directory) and, on a warm engine, asks its language servers what macro calls make."""
        from gateway.config import gate_config
        from gateway.gate.checker import Gate

        engine = self.given if self.warm else None
        if engine is not None and root is not None and root.resolve() == engine.workspace.root:
            return engine.gate
        registry = engine.registry if engine is not None else None
        return Gate(registry, gate_config(root), root or Path(self.call.project_dir or self.call.cwd),
                    engine.macro_calls if engine is not None else None)

    def typed(self, root: Path | None) -> TypedEdits | None:
        """The typed-edit state of the workspace at `root` (None: no workspace)."""
        if root is None:
            return None
        if self.given is not None and root.resolve() == self.given.workspace.root:
            return self.given.typed
        from gateway.typed.service import TypedEdits
        from gateway.workspace import Workspace

        return TypedEdits(Workspace(root))

    def typed_of_call(self) -> TypedEdits | None:
        """The typed-edit state of the project the agent works in, if it has any (.gateway/, or
        a baseline the gateway keeps for it)."""
        return self.typed(self.of_call())

    def typed_for(self, path: Path, of_call: TypedEdits | None) -> TypedEdits | None:
        """The typed-edit state that rules a write to `path`: its own workspace's (another
        workspace than the call's may hold it), else the call's (`of_call`)."""
        root = self.own(path)
        return of_call if root is None or root == self.of_call() else self.typed(root)

    def real_path(self, path: Path) -> Path:
        """The file a write to `path` really changes: links resolved, so that the file is judged
        by its own name and text. A path inside the project (`.gateway` root, else the project or
        working directory), or inside the workspace it names by itself, whose links lead out of
        it is refused (OutsideWorkspace)."""
        real = Path(os.path.realpath(path))
        named = Path(os.path.abspath(path))
        project = Path(self.call.project_dir or self.call.cwd)
        for root in {self.of_project() or project, self.own(named) or project}:
            real_root = Path(os.path.realpath(root))
            inside = named.is_relative_to(os.path.abspath(root)) or named.is_relative_to(real_root)
            if inside and not real.is_relative_to(real_root):
                raise OutsideWorkspace(f"{path}: a symbolic link to {real}, outside the workspace {real_root}; refusing to write through it")
        return real

    def read(self, path: Path) -> str | None:
        """`read_judged` by the gate of the workspace that judges `path`."""
        return read_judged(self.gate(path), path)

    def noticed(self, typed: TypedEdits | None, record: str | None = None) -> Outcome | None:
        """What changed in the workspace since the last check without a gated write (put back
        now), or a problem with the gateway's own state; None when nothing did. `typed`: the
        call's typed-edit state; `record`: the shell command to record with the check
        (gateway.typed.shell.record_name)."""
        if typed is None:
            return None
        from gateway.typed.arming import sweep

        outcome = sweep(typed, f"{self.call.event} {self.call.tool}", record)
        return outcome if outcome.bypassed else None

    def with_grant(self, paths: list[Path], answer: Answer, typed: TypedEdits | None,
                   results: Callable[[], list[str]] | None = None) -> Answer:
        """`answer`, or a denial when typed edits are enforced (`typed`) and a file has no live
        grant (consumed here, since the host writes right after, for exactly the bytes it
        leaves: `results`, worked out only then)."""
        if typed is None:
            return answer
        try:
            for path in paths:
                typed.native_write(path, f"hook:{self.call.tool}", answer.operations or None, results)
        except OutsideWorkspace:
            return answer
        except GrantRefused as refused:
            return Answer("deny", str(refused) if refused.reason == "tampered" else f"{refused}." + DECLARE_HINT)
        return answer
