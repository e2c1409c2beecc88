"""The language server's delta of a host's write, computed before the host writes it (`pre`), on
the engine of the file's workspace: the note the agent is sent once the file holds what the
write leaves (`pending`, taken by `post`), or, under `[verify] on_new_errors = "refuse"`, the
refusal. Routed writes are verified; writes the gate lets through only when they touch a
definition or a top-level binding (a one-line header change, a constant renamed), or with
`[verify] body = true`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import GatewayError, NewErrors

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.checker import Gate
    from gateway.gate.verdict import TouchedDefinition
    from gateway.hostcalls.scope import Scope
    from gateway.results import Verification


def delta(engine: Engine, path: Path, before: str, after: str, touched: tuple[TouchedDefinition, ...] | None) -> Verification | None:
    """The delta of writing `after` over `before` at `path`, on `engine`; None where it is not
    asked for (a file outside the workspace, no language with symbols). NewErrors under the
    refuse policy; another failure gives an unknown, never a failed hook. `touched`: what the
    gate listed, for a routed write."""
    from gateway.results import Verification
    from gateway.workspace import SourceFile

    source = SourceFile(path, engine.workspace.display(path) if path.is_relative_to(engine.workspace.root) else str(path),
                        before, "utf-8", None, 0, "")
    try:
        return engine.verify_write(source, after, dry_run=True, touched=touched, written_next=True)  # the host writes it, or not
    except NewErrors:
        raise
    except GatewayError as error:
        return Verification("unknown", why=str(error))


def kept_note(scope: Scope, path: Path, before: str, after: str, touched: tuple[TouchedDefinition, ...] | None = None,
              head: str = "") -> str | Callable[[], str]:
    """What `post` tells the agent once the host has written `after`: `head` (a route's summary)
    and the delta's note. Under `[verify] on_new_errors = "report"`, on the warm engine of the
    file's workspace (the daemon's), the delta is computed after the answer has gone out, while
    the host writes (`pending.take` waits for it): a callable. Otherwise now, where NewErrors
    refuses the write under "refuse"."""
    from gateway.config import verify_config

    engine = scope.engine_for(path)
    if engine is not scope.given or verify_config(engine.workspace.root).on_new_errors != "report":
        return _joined(head, note(delta(engine, path, before, after, touched)))

    def later() -> str:
        from gateway.results import Verification

        try:
            verification = delta(engine, path, before, after, touched)
        except Exception as error:  # noqa: BLE001 - the agent is told the check failed, never nothing
            verification = Verification("unknown", why=f"the check failed ({error})")
        return _joined(head, note(verification))

    return later


def _joined(head: str, said: str) -> str:
    return " ".join(filter(None, (head, said)))


# Why the gate lets a write through, where that says there is nothing to verify (a new file, no
# change, no source of a language with symbols) and where it says the write touches no definition
# nor top-level binding (a change inside bodies: verified only with `[verify] body`).
_NOTHING = {"new_file", "no_change", "not_source", "no_symbol_backend"}
_BODIES = "body_only"


def wanted(gate: Gate, path: Path, before: str | None, after: str, reason: str | None = None) -> bool:
    """Whether a write the gate lets through (`reason`: why) is verified: it touches a definition
    or a top-level binding, or `[verify] body` asks for every write."""
    from gateway.config import verify_config
    from gateway.gate.touched import touched_by
    from gateway.syntax import language_for

    if before is None or before == after or reason in _NOTHING:
        return False
    lang = language_for(gate.registry, path, before, after)
    if lang is None or not lang.symbol_backend:
        return False
    return (reason != _BODIES and bool(touched_by(lang, str(path), before, after))) or verify_config(gate.root).body


def note(verification: Verification | None) -> str:
    """The verification as the agent reads it after the write; nothing for a skipped one."""
    return verification.summary() if verification is not None and verification.status != "skipped" else ""
