"""Where a hook's structural write is planned: through the engine the hook runs in, the same
symbol service every other surface uses. In the workspace's daemon that is the daemon's engine,
whose language servers are warm; in the hook's own process (no daemon), an engine for the same
workspace made for the call and closed after it, so the answer is the same either way.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import Ambiguous, ServerFailed

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.macros import ServerCalls
    from gateway.surfaces.hooks.judge import HookCall, Judged
    from gateway.symbols.routing import Route
    from gateway.symbols.service import FileSymbols

_ENGINE: ContextVar[Engine | None] = ContextVar("gateway_hook_engine", default=None)


@contextlib.contextmanager
def running_in(engine: Engine) -> Iterator[None]:
    """Hook calls judged inside this block plan through `engine` (the daemon's)."""
    token = _ENGINE.set(engine)
    try:
        yield
    finally:
        _ENGINE.reset(token)


def workspace_of(call: HookCall) -> Path:
    """The workspace whose daemon judges the call (`hooks.client`): the `.gateway` root above
    the project (or working) directory, else that directory."""
    from gateway.roots import gateway_root

    start = call.project_dir or str(call.cwd)
    return Path(gateway_root(start) or os.path.realpath(start))


def symbols(judged: Judged, engine: Engine | None) -> FileSymbols:
    """The symbols of the file before the write: the engine's (its language server's, when it
    has one for the language) for a file in its workspace, else tree-sitter's."""
    from gateway.symbols.backends import TreeSitterBackend
    from gateway.symbols.service import FileSymbols, symbols_of
    from gateway.syntax import language_for
    from gateway.workspace import SourceFile

    effect = judged.effect
    assert effect.before is not None
    source = SourceFile(judged.path, str(judged.path), effect.before, "utf-8", None, 0, "")
    if engine is not None and judged.path.is_relative_to(engine.workspace.root):
        return engine.symbol_service.file_symbols(source, also=effect.after)
    lang = language_for(judged.gate.registry, judged.path, effect.before, effect.after)
    assert lang is not None
    backend = TreeSitterBackend()
    return FileSymbols(source, lang, backend, symbols_of(lang, judged.path, effect.before, backend))


def plan(judged: Judged, engine: Engine | None = None) -> Route:
    """The verified route of a structural write on `engine`'s symbols (None: tree-sitter's);
    RouteRefused when there is none, or when the language server failed or was ambiguous."""
    from gateway.symbols.routing import RouteRefused, plan_route

    try:
        view = symbols(judged, engine)
        route = plan_route(view, judged.effect)
    except (ServerFailed, Ambiguous) as failed:
        raise RouteRefused("server", str(failed)) from None
    return route


def written(path: Path, text: str) -> None:
    """The host wrote a routed result: in the daemon, its server is asked about the file now,
    in the background, so the next write to it is planned without waiting for that."""
    engine = _ENGINE.get()
    if engine is not None and path.is_relative_to(engine.workspace.root):
        engine.symbol_service.ahead(path, text)


def macro_server() -> ServerCalls | None:
    """In the daemon, its language servers' lists of what macro calls make (clangd's), which the
    gate asks where a macro's definition is in no file it reads; none in a hook's own process."""
    engine = _ENGINE.get()
    return engine.macro_calls if engine is not None else None


_local: list[Engine] = []  # the engine made in this process, kept for the next call on its workspace


def _local_engine(root: Path) -> Engine:
    """An engine for `root` in this process (no daemon): the last one made, when it is for the
    same workspace; the one before is closed, so a process holds one set of servers at most."""
    from gateway.engine import Engine

    if _local and _local[0].workspace.root == root.resolve():
        return _local[0]
    while _local:
        _local.pop().close()
    _local.append(Engine(root))
    return _local[0]


def route(call: HookCall, judged: Judged) -> Route:
    """`plan` through the engine of the workspace the file belongs to: the daemon's when it is
    the daemon's workspace, else one of this process's own (another workspace than the call's
    may hold the file; a file of no workspace is planned as the call's workspace plans it)."""
    from gateway.surfaces.hooks.workspaces import own_root

    engine = _ENGINE.get()
    home = own_root(judged.path) or workspace_of(call)
    if engine is not None and engine.workspace.root == home:
        return plan(judged, engine)
    return plan(judged, _local_engine(home))
