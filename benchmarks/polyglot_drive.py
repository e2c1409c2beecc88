"""The polyglot benchmark's edits and whole-file writes, each sent through the gateway.

An edit goes through the public door, `Gateway.edit(..., route=True)`: the gate judges it;
a structural one is performed as symbol operations (with the language server the gateway
picks here) or refused. A whole-file write is judged by the same gate (`Gate.check_write`)
and routed with the same pieces `Gateway.edit` uses (`plan_route` on the backend's symbols,
`SymbolService.commit`). Every outcome is compared with what a plain string replacement (or
a plain write) would have left: the same bytes, or not.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.polyglot_edits import Edit
from gateway.api import Gateway
from gateway.errors import Ambiguous, Blocked, GatewayError, NotFound, ServerFailed
from gateway.gate.effect import Effect
from gateway.gate.verdict import Classification
from gateway.surfaces import render
from gateway.symbols.routing import Route, RoutedOperation, RouteRefused, plan_route


@dataclass(frozen=True)
class Outcome:
    """What the gateway did with one edit or write.

    status: "allowed" (written as sent), "routed" (performed as symbol operations),
    "refused" (the file untouched; `reason` says why), "not_applied" (old_string is not, or
    not once, in the file the gateway left: an earlier edit was refused or routed otherwise),
    or "created" (a new file). `exact`: the file afterwards is byte for byte what plain string
    replacement of the same edit on the same file gives. `via`: what produced a routed
    result's bytes, from the route's own operations (`bytes_from`). `parses`, of a refusal:
    whether the text plain replacement would have left parses for the language's own parser
    (benchmarks/polyglot_syntax.py); a refusal whose text parses is a false refusal."""

    path: str
    kind: str
    label: str
    status: str
    reason: str
    structural: bool
    exact: bool | None
    ms: float
    operations: tuple[str, ...] = ()
    detail: str = ""
    via: str = ""
    parses: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v not in ((), "", None)} | {"exact": self.exact, "structural": self.structural}


def bytes_from(operations: Sequence[RoutedOperation]) -> str:
    """What produced a routed result: `lsp:NAME` when the server named a definition the route
    replaced, inserted beside or removed (its answer placed the bytes), else tree-sitter
    (every server hidden or silent, or a text change only: the gateway's own parse did it)."""
    servers = sorted({o.backend for o in operations if o.tool != "text" and o.backend.startswith("lsp:")})
    return "+".join(servers) or "tree-sitter"


def _refusal(classification: Classification, language: str) -> tuple[str, str]:
    """(reason, detail) of a refusal, from the gate's classification; the reason says so when
    the gate read the file as another language than the exercise's."""
    if classification.reason == "syntax_error" and classification.syntax_error is not None:
        read_as = f" (read as {classification.language})" if classification.language not in (None, language) else ""
        return f"syntax_error{read_as}", str(classification.syntax_error)
    if classification.reason == "definition" and not classification.routable:
        shadowed = [d for d in classification.definitions if d.change == "shadowed"]
        return "shadowed", "; ".join(f"{d.name_path}: {d.detail}" for d in shadowed)
    return classification.reason, render.hook_text(classification.message, classification.suggested)[:300]


def _with_gate(message: str, classification: Classification) -> str:
    """A router's refusal, with what the gate saw change (name paths and how) beside it."""
    seen = ", ".join(f"{d.change} {d.name_path}" for d in classification.definitions)
    return f"{message.split(' by text,')[0].split('; nothing was written')[0][:300]} [the gate saw: {seen}]"


def _route_refusal(gateway: Gateway, path: str, effect: Effect, classification: Classification) -> tuple[str, str]:
    """Why a routable write was not routed, asked again of the router itself for its typed reason."""
    try:
        plan_route(gateway.symbol_service.file_symbols(gateway.workspace.read(path), also=effect.after), effect)
    except RouteRefused as refused:
        return f"not routed: {refused.reason}", _with_gate(str(refused), classification)
    except (ServerFailed, Ambiguous) as error:
        return f"not routed: {error.kind}", render.message(error)[:400]
    return "not routed: (routes when asked again)", ""


def send_edit(gateway: Gateway, edit: Edit, language: str) -> Outcome:
    """One edit through `Gateway.edit(..., route=True)`, on a file of `language`."""
    path = gateway.workspace.root / edit.path
    before = _read(path)
    if before.count(edit.old) != 1:
        found = "not found" if edit.old not in before else "not unique"
        return Outcome(edit.path, edit.kind, edit.label, "not_applied", found, False, None, 0.0)
    wanted = before.replace(edit.old, edit.new, 1)
    started = time.perf_counter()
    try:
        result = gateway.edit(edit.path, edit.old, edit.new, route=True)
    except Blocked as blocked:
        ms = (time.perf_counter() - started) * 1000
        classification = blocked.classification
        assert isinstance(classification, Classification)  # Blocked holds the gate's Verdict protocol
        reason, detail = _refusal(classification, language)
        structural = classification.reason == "definition"
        if classification.routable:
            effect = gateway.gate.check_edit(edit.path, before, edit.old, edit.new)[0]
            reason, detail = _route_refusal(gateway, edit.path, effect, classification)
        return Outcome(edit.path, edit.kind, edit.label, "refused", reason, structural, None, ms, detail=detail)
    except GatewayError as error:
        ms = (time.perf_counter() - started) * 1000
        return Outcome(edit.path, edit.kind, edit.label, "refused", f"error: {error.kind}", False, None, ms, detail=render.message(error)[:300])
    ms = (time.perf_counter() - started) * 1000
    exact = _read(path) == wanted
    if result.route is None:
        reason = result.classification.reason if isinstance(result.classification, Classification) else "allowed"
        return Outcome(edit.path, edit.kind, edit.label, "allowed", reason, False, exact, ms)
    route = result.route
    assert isinstance(route, Route)  # EditResult holds it as the Performed protocol
    operations = tuple(o.describe() for o in route.operations)
    return Outcome(edit.path, edit.kind, edit.label, "routed", route.backend, True, exact, ms, operations, "" if exact else route.difference,
                   bytes_from(route.operations))


def send_write(gateway: Gateway, path: str, content: str, language: str) -> Outcome:
    """A whole-file write (an agent's Write tool) through the gate, routed when structural."""
    target = gateway.workspace.root / path
    started = time.perf_counter()
    if not target.exists():
        _, classification = gateway.gate.check_write(path, None, content)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)
        return Outcome(path, "create", path, "created", classification.reason, False, True, (time.perf_counter() - started) * 1000)
    try:
        source = gateway.workspace.read(path)
        effect, classification = gateway.gate.check_write(source.display, source.text, source.normalize(content))
        if not classification.blocked:
            gateway.workspace.write(source, effect.after)
            return _done(path, "allowed", classification.reason, False, target, content, started)
        if not classification.routable:
            reason, detail = _refusal(classification, language)
            return Outcome(path, "write", path, "refused", reason, False, None, _ms(started), detail=detail)
        view = gateway.symbol_service.file_symbols(source, also=effect.after)
        planned = plan_route(view, effect)
        gateway.symbol_service.commit(view.backend, [(source, planned.result)])
    except RouteRefused as refused:
        detail = _with_gate(str(refused), classification)
        return Outcome(path, "write", path, "refused", f"not routed: {refused.reason}", True, None, _ms(started), detail=detail)
    except (ServerFailed, Ambiguous, NotFound) as error:
        return Outcome(path, "write", path, "refused", f"not routed: {error.kind}", True, None, _ms(started), detail=render.message(error)[:400])
    except GatewayError as error:
        return Outcome(path, "write", path, "refused", f"error: {error.kind}", False, None, _ms(started), detail=render.message(error)[:300])
    outcome = _done(path, "routed", planned.backend, True, target, content, started)
    return Outcome(**{**outcome.__dict__, "operations": tuple(o.describe() for o in planned.operations), "detail": planned.difference,
                      "via": bytes_from(planned.operations)})


def _read(path: Path) -> str:
    return path.read_bytes().decode("utf-8")


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _done(path: str, status: str, reason: str, structural: bool, target: Path, content: str, started: float) -> Outcome:
    return Outcome(path, "write", path, status, reason, structural, _read(target) == content, _ms(started))
