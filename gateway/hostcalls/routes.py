"""A host's structural write routed through the engine of the file's workspace (its one
`route_or_refuse`, as every surface routes), or the refusal the agent reads."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from gateway.errors import Blocked, StillReferenced
from gateway.hostcalls.call import SYMBOL_HINT

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.checker import Gate
    from gateway.gate.effect import Effect
    from gateway.gate.verdict import Classification
    from gateway.hostcalls.scope import Scope
    from gateway.results import SuggestedOperation
    from gateway.symbols.routing import Route


def route(scope: Scope, path: Path, classification: Classification, effect: Effect, gate: Gate,
          why_not: str | None = None) -> Route | tuple[str, tuple[SuggestedOperation, ...]]:
    """The verified route of a structural write to `path` (`effect`, judged by `gate`), or why
    it is refused (and the operations the refusal names): what the gate said, with the symbol operations to use where the workspace
    says `[gate] on_structural = "deny"`, why it was not routed (`why_not`: a reason the
    caller knows of), or that a definition it removes is still referenced."""
    from gateway.workspace import SourceFile

    assert effect.before is not None
    source = SourceFile(path, str(path), effect.before, "utf-8", None, 0, "")
    try:
        planned = scope.engine_for(path).route_or_refuse(classification, source, effect, gate.config, why_not=why_not, waits=False)
    except Blocked as refused:
        declined = refused.classification is classification and classification.routable  # by the workspace's setting
        suggested = cast("tuple[SuggestedOperation, ...]", refused.classification.suggested)  # the gate's, held as a Verdict
        return refused.classification.message + (SYMBOL_HINT if declined else ""), suggested
    except StillReferenced as referenced:  # as remove_symbol refuses it
        return str(referenced), cast("tuple[SuggestedOperation, ...]", referenced.suggested)
    assert planned is not None
    return planned[0]


def warm(engine: Engine) -> None:
    """Load what a first host call would otherwise pay for on `engine`: the gate and the routing
    of a structural edit (grammar, queries, symbol lifting), on a file outside its workspace."""
    from gateway.config import GateConfig
    from gateway.gate.checker import Gate
    from gateway.workspace import SourceFile

    gate, before = Gate(engine.registry), "def f(a):\n    return a\n\n\ndef g():\n    return 1\n"
    effect, classification = gate.check_write("warm.py", before, before.replace("def f(a):", "def f(a, b):"))
    engine.route_or_refuse(classification, SourceFile(Path("warm.py"), "warm.py", before, "utf-8", None, 0, ""), effect, GateConfig())
