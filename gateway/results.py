"""What an operation answers, in one envelope on every surface: `ok`, `applied`, `decision`,
and for a refusal `error` ({kind, message}) beside the gate's classification. Objects here;
dicts only in `to_json` and `refusal`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gateway.errors import GatewayError, Verdict


class Performed(Protocol):
    """What a routed edit did (`symbols.routing.Route`)."""

    def summary(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


# A suggested operation inside a text: "⟦gateway " + JSON + "⟧" (the JSON is ASCII, so neither
# bracket occurs inside it).
SUGGESTION_START, SUGGESTION_END = "\u27e6gateway ", "\u27e7"


@dataclass(frozen=True)
class SuggestedOperation:
    """An operation of the table (`gateway.surfaces.operations`) to run instead of a refused
    write, with its parameters' values. A text that suggests one (a refusal's message, a
    verdict's `commands`) holds `str(suggestion)`, a placeholder that only the surfaces fill
    in, each in its own terms (`gateway.surfaces.render`: the `gateway` command line)."""

    operation: str
    values: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, operation: str, **values: str) -> SuggestedOperation:
        return cls(operation, tuple(values.items()))

    def __str__(self) -> str:
        return f"{SUGGESTION_START}{json.dumps([self.operation, dict(self.values)], separators=(',', ':'))}{SUGGESTION_END}"

    @classmethod
    def parse(cls, placeholder: str) -> SuggestedOperation | None:
        """The suggestion `str(suggestion)` spelled; None for any other text."""
        if not (placeholder.startswith(SUGGESTION_START) and placeholder.endswith(SUGGESTION_END)):
            return None
        try:
            operation, values = json.loads(placeholder[len(SUGGESTION_START):-len(SUGGESTION_END)])
        except (ValueError, TypeError):
            return None
        if not isinstance(operation, str) or not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
            return None
        return cls(operation, tuple(values.items()))


@dataclass(frozen=True)
class EditResult:
    """An edit the gate let through, or one it routed (`route`: the symbol operations performed)."""

    classification: Verdict
    path: str
    replacements: int
    lines: tuple[int, ...]
    diff: str
    route: Performed | None = None

    def to_json(self) -> dict[str, Any]:
        result = {
            **self.classification.to_json(),
            "ok": True,
            "applied": True,
            "path": self.path,
            "replacements": self.replacements,
            "lines": list(self.lines),
            "diff": self.diff,
        }
        if self.route is not None:
            result.update(decision="routed", message=self.route.summary(), **self.route.to_json())
        return result


@dataclass(frozen=True)
class OperationResult:
    """A symbol operation performed."""

    operation: str
    name_path: str
    path: str
    backend: str
    start_line: int
    end_line: int
    diff: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "applied": True,
            "decision": "performed",
            "operation": self.operation,
            "name_path": self.name_path,
            "path": self.path,
            "backend": self.backend,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "diff": self.diff,
            "message": self.message,
            **self.details,
        }


def refusal(error: GatewayError) -> dict[str, Any]:
    """The one shape of a refusal wherever an answer is an object (the CLI's --json, MCP): the
    gate's classification when it judged the write (decision "block", what to do instead),
    `ok` and `applied` false, and `error` {kind, message}. Idempotent on a daemon's answer."""
    data = error.to_json()
    if data.get("ok") is False:
        return data
    classification = data.pop("classification", None) or {}
    return {**classification, "ok": False, "applied": False, "error": data}
