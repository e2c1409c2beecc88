"""What an operation answers, in one envelope on every surface: `ok`, `applied`, `decision`,
and for a refusal `error` ({kind, message, hint?, suggested: [operation]}) beside what the
operation reports (the gate's classification, a declaration's audit entry, a contract's plan).
One result type per operation family; objects here, dicts only in `to_json`, `failure` and
`refusal`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from gateway.errors import GatewayError, Verdict


class Performed(Protocol):
    """What a routed edit did (`symbols.routing.Route`)."""

    def summary(self, dry_run: bool = False) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SuggestedOperation:
    """An operation of the table (`gateway.surfaces.operations`) to run instead of a refused
    write, with its parameters' values: a value, carried beside a message in `suggested`.
    `str(suggestion)` is the Python API's call (`remove_symbol(name_path='f', path='m.py')`),
    as a message says it; each surface spells it in its own terms (`gateway.surfaces.render`)."""

    operation: str
    values: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, operation: str, **values: str) -> SuggestedOperation:
        return cls(operation, tuple(values.items()))

    def __str__(self) -> str:
        return f"{self.operation}({', '.join(f'{name}={value!r}' for name, value in self.values)})"

    def to_json(self) -> dict[str, Any]:
        return {"operation": self.operation, "params": dict(self.values)}

    @classmethod
    def from_json(cls, data: object) -> SuggestedOperation | None:
        """The suggestion `to_json` gave (a daemon's answer); None for anything else."""
        if not isinstance(data, dict) or not isinstance(data.get("operation"), str) or not isinstance(data.get("params", {}), dict):
            return None
        values = data.get("params", {})
        if not all(isinstance(v, str) for v in values.values()):
            return None
        return cls(data["operation"], tuple(values.items()))


def spell(text: str, suggested: Iterable[SuggestedOperation], spelling: Callable[[SuggestedOperation], str]) -> str:
    """`text` with each of its `suggested` operations, as `str` says them, said by `spelling`."""
    for suggestion in suggested:
        text = text.replace(str(suggestion), spelling(suggestion))
    return text


@dataclass(frozen=True)
class NewError:
    """An error the language server reports after a write and not before it (positions in the
    file before the write mapped across the edit); `line` and `column` count from 1."""

    path: str
    line: int
    column: int
    message: str
    source: str

    @property
    def place(self) -> str:
        return f"{self.path}:{self.line}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "column": self.column, "message": self.message, "source": self.source}


@dataclass(frozen=True)
class Verification:
    """What the language server says a write did to the program (`gateway.verify`).

    `status`: "checked" (the server analysed the written files before and after the write, and
    the files that refer to what changed except those in `unchecked`), "unknown" (`why` says why: no server that reports such
    errors, still indexing, no answer within the budget) or "skipped" (a body-only write, with
    `[verify] body` off). `unchecked`: files that refer to what changed and were not checked
    within `[verify] budget_ms`. `callers`: for a header whose parameters changed, the
    references (`path:line`, at most 20) the change breaks or may break: the impact note.
    """

    status: Literal["checked", "unknown", "skipped"]
    new_errors: tuple[NewError, ...] = ()
    why: str | None = None
    unchecked: tuple[str, ...] = ()
    callers: tuple[str, ...] = ()
    server: str | None = None

    def summary(self) -> str:
        """The plain-text note every surface shows: each new error at `path:line`, why it is not
        known, the files not checked and the callers of a changed header."""
        server = f"The language server ({self.server})" if self.server else "The language server"
        if self.status == "skipped":
            return f"Not verified: {self.why or 'nothing to compare'}."
        parts = []
        if self.status == "unknown":
            parts.append(f"Not verified: {self.why or 'no answer'}.")
        if self.new_errors:
            count = len(self.new_errors)
            listed = "; ".join(f"{e.place}: {e.message.rstrip('.')}" for e in self.new_errors)
            also = " also" if self.status == "unknown" else ""
            parts.append(f"{server}{also} reports {count} new error{'' if count == 1 else 's'}: {listed}.")
        elif self.status == "checked":
            parts.append(f"{server} reports no new error.")
        if self.callers:
            broken = {e.place for e in self.new_errors}
            marked = [f"{c} ({'broken' if c in broken else 'may break: not checked'})" for c in self.callers]
            parts.append(f"Callers of the changed header: {', '.join(marked)}.")
        if self.unchecked:
            why = f" ({self.why})" if self.status == "checked" and self.why else ""
            parts.append(f"Not checked{why}: {', '.join(self.unchecked)}.")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"verified": self.status, "new_errors": [e.to_json() for e in self.new_errors]}
        if self.why:
            data["unknown_because"] = self.why
        if self.unchecked:
            data["unchecked"] = list(self.unchecked)
        if self.callers:
            data["callers"] = list(self.callers)
        if self.server:
            data["verified_by"] = self.server
        return data


@dataclass(frozen=True)
class EditResult:
    """An edit the gate let through, or one it routed (`route`: the symbol operations performed)."""

    classification: Verdict
    path: str
    replacements: int
    lines: tuple[int, ...]
    diff: str
    route: Performed | None = None
    verification: Verification | None = None
    dry_run: bool = False

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
            result.update(decision="routed", message=self.route.summary(self.dry_run), **self.route.to_json())
        if self.dry_run:
            result["applied"] = False
            result["dry_run"] = True
        if self.verification is not None:
            result.update(self.verification.to_json())
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
    verification: Verification | None = None
    dry_run: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "applied": not self.dry_run,
            **({"dry_run": True} if self.dry_run else {}),
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
            **(self.verification.to_json() if self.verification is not None else {}),
        }


def failure(kind: str, message: str, hint: str | None = None, suggested: Iterable[SuggestedOperation] = (), **fields: Any) -> dict[str, Any]:
    """A refusal's `error` object where an operation answers its refusal as a result (a
    declaration rejected, a contract refused): the same fields as `GatewayError.to_json`."""
    return {"kind": kind, "message": message, **({"hint": hint} if hint else {}), "suggested": [s.to_json() for s in suggested], **fields}


def refusal(error: GatewayError) -> dict[str, Any]:
    """The one shape of a refusal on every surface: `ok` and `applied` false and `error`
    {kind, message, hint?, suggested: [operation], and the error's own fields}; beside it the
    gate's classification when the gate judged the write (decision "block"). Idempotent on a
    daemon's answer."""
    data = error.to_json()
    if data.get("ok") is False:
        return data
    classification = data.pop("classification", None) or {}
    return {**classification, "ok": False, "applied": False, "error": data}


class Jsonable(Protocol):
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class SymbolList:
    """A file's symbols (`symbols`), from the backend that listed them."""

    path: str
    language: str
    backend: str
    symbols: tuple[Jsonable, ...]
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        note = {"note": self.note} if self.note else {}
        return {"ok": True, "path": self.path, "language": self.language, "backend": self.backend,
                "symbols": [s.to_json() for s in self.symbols], **note}


@dataclass(frozen=True)
class SymbolMatch:
    symbol: Jsonable
    path: str
    backend: str
    body: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {**self.symbol.to_json(), "path": self.path, "backend": self.backend, **({"body": self.body} if self.body is not None else {})}


@dataclass(frozen=True)
class SymbolMatches:
    """The symbols a name path matches (`find_symbol`), and the nearest names when none does."""

    name_path: str
    matches: tuple[SymbolMatch, ...]
    nearest: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"ok": True, "name_path": self.name_path, "matches": [m.to_json() for m in self.matches], "nearest": list(self.nearest)}


@dataclass(frozen=True)
class Listing:
    """A read-only listing (the servers, the typed-edit kinds, the audit log's entries): its rows
    under `name`, with the log's warnings where it read the audit log."""

    name: str
    rows: tuple[Any, ...]
    log_warnings: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        rows = [row.to_json() if hasattr(row, "to_json") else row for row in self.rows]
        warnings = {} if self.log_warnings is None else {"log_warnings": list(self.log_warnings)}
        return {"ok": True, self.name: rows, **warnings}


@dataclass(frozen=True)
class Summary:
    """A summary whose fields its producer names (the audit log summed up: `gateway.typed.audit.summarize`),
    answered in the envelope (`ok`), with the log's warnings."""

    report: dict[str, Any]
    log_warnings: tuple[str, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        warnings = {} if self.log_warnings is None else {"log_warnings": list(self.log_warnings)}
        return {"ok": True, **self.report, **warnings}


@dataclass(frozen=True)
class Obligations:
    """A typed-edit kind's obligations, asked for by declaring the kind alone (nothing declared)."""

    kind: Jsonable

    def to_json(self) -> dict[str, Any]:
        return {"ok": True, "declared": False, **self.kind.to_json()}


@dataclass(frozen=True)
class Granted:
    """A declaration and the edit its grant was used for at once (MCP's declare with file_path):
    the edit's result, or its refusal in the one shape."""

    declared: Jsonable
    edit_result: Jsonable | None = None
    refused: GatewayError | None = None

    @classmethod
    def edit(cls, declared: Jsonable, edit: Callable[[], Jsonable]) -> Granted:
        from gateway.errors import GatewayError

        try:
            return cls(declared, edit())
        except GatewayError as error:
            return cls(declared, refused=error)

    def to_json(self) -> dict[str, Any]:
        edit = self.edit_result.to_json() if self.edit_result is not None else refusal(self.refused) if self.refused else None
        return {**self.declared.to_json(), "edit": edit}
