"""What the gate says about a write: the decision, what changed, and what to do instead (as
`SuggestedOperation`s, which the surfaces spell in their own terms)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from gateway.results import SuggestedOperation

if TYPE_CHECKING:
    from gateway.gate.syntax_problems import SyntaxProblem

Decision = Literal["allow", "block"]
Tool = Literal["replace_symbol", "insert_code", "remove_symbol", "rename_symbol"]
Change = Literal["added", "removed", "renamed", "header", "shadowed"]


@dataclass(frozen=True)
class TouchedDefinition:
    """A definition the write adds, removes, renames or whose header it changes.

    `line` is its name's line: in the file after the write for an added one, before it
    otherwise. A rename also says the new name path (and, renaming an override, that it is
    one: `detail`); a shadowed one (taken away without
    deleting its text: `del f`, `#define f g`, wrapped in `if False:`) says by what.
    """

    kind: str
    name: str
    name_path: str
    line: int
    change: Change
    new_name_path: str | None = None
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "kind": self.kind,
            "name": self.name,
            "name_path": self.name_path,
            "line": self.line,
            "change": self.change,
        }
        if self.new_name_path is not None:
            entry["new_name_path"] = self.new_name_path
        if self.detail is not None:
            entry["detail"] = self.detail
        return entry


@dataclass(frozen=True)
class ChangedLines:
    """Lines [start, start + lines) of the file before the write became those of the file after it."""

    before_start: int
    before_lines: int
    after_start: int
    after_lines: int

    def to_json(self) -> dict[str, Any]:
        return {
            "before": {"start": self.before_start, "lines": self.before_lines},
            "after": {"start": self.after_start, "lines": self.after_lines},
        }


@dataclass(frozen=True)
class Classification:
    decision: Decision
    reason: str
    path: str
    language: str | None
    message: str
    suggested_tool: Tool | None = None
    definitions: tuple[TouchedDefinition, ...] = ()
    suggested: tuple[SuggestedOperation, ...] = ()
    changed_lines: tuple[ChangedLines, ...] = ()
    syntax_error: SyntaxProblem | None = None

    @property
    def blocked(self) -> bool:
        return self.decision == "block"

    @property
    def routable(self) -> bool:
        """Blocked as a change of definitions, which symbol operations can perform (a definition
        shadowed without deleting its text is not one: it is refused as it is)."""
        return self.decision == "block" and self.reason == "definition" and all(d.change != "shadowed" for d in self.definitions)

    def to_json(self) -> dict[str, Any]:
        """The verdict in the envelope: answered (`ok`), nothing written (`applied` false)."""
        return {
            "ok": True,
            "applied": False,
            "decision": self.decision,
            "reason": self.reason,
            "path": self.path,
            "language": self.language,
            "suggested_tool": self.suggested_tool,
            "definitions": [d.to_json() for d in self.definitions],
            "commands": [str(s) for s in self.suggested],
            "suggested": [s.to_json() for s in self.suggested],
            "changed_lines": [c.to_json() for c in self.changed_lines],
            "syntax_error": self.syntax_error.to_json() if self.syntax_error else None,
            "message": self.message,
        }


_WHAT = {
    "replace_symbol": "passing the complete new definition",
    "insert_code": "passing only the new code",
    "remove_symbol": "which also removes its decorators, attributes and doc comment",
    "rename_symbol": "which renames its references too",
}


def _describe(d: TouchedDefinition) -> str:
    if d.change == "renamed":
        return f"renames {d.kind} `{d.name_path}` (line {d.line}) to `{d.new_name_path}`" + (f", {d.detail}" if d.detail else "")
    if d.change == "shadowed":
        return f"takes away {d.kind} `{d.name_path}` (line {d.line}) without deleting it: {d.detail}"
    verb = {"added": "adds", "removed": "removes", "header": "changes the header of"}[d.change]
    return f"{verb} {d.kind} `{d.name_path}` (line {d.line})"


def block_message(
    path: str,
    language: str,
    tool: Tool,
    touched: tuple[TouchedDefinition, ...],
    suggested: tuple[SuggestedOperation, ...],
    action: str,
    broken: bool = False,
) -> str:
    shown = [_describe(d) for d in touched[:6]]
    if len(touched) > 6:
        shown.append(f"{len(touched) - 6} more")
    syntax = " (its result does not parse, which takes definitions apart)" if broken else ""
    renamed = (
        " A rename by text leaves every reference behind: rename_symbol renames them too."
        if tool != "rename_symbol" and any(d.change == "renamed" and d.detail is None for d in touched)
        else ""
    )
    return (
        f"Blocked: this {action} to {path}{syntax} {'; '.join(shown)}. "
        f"Definitions in {language} change through symbol operations, not string replacement; "
        f"there is no bypass. Use {tool} (MCP tool `{tool}`), {_WHAT[tool]}: {'; '.join(map(str, suggested))}.{renamed}"
    )


def syntax_refusal(path: str, language: str, action: str, problem: SyntaxProblem, changed: tuple[ChangedLines, ...]) -> Classification:
    """A write that adds a syntax error: where and what, and no symbol advice."""
    message = (
        f"Refused: this {action} to {path} would add a syntax error at {problem}. "
        "Nothing was written; correct the new text and send the write again."
    )
    return Classification("block", "syntax_error", path, language, message, changed_lines=changed, syntax_error=problem)


def allow(path: str, language: str | None, reason: str, message: str, changed: tuple[ChangedLines, ...] = ()) -> Classification:
    return Classification("allow", reason, path, language, f"Allowed: {message}", changed_lines=changed)


def not_routed(classification: Classification, why: str, suggested: tuple[SuggestedOperation, ...] = ()) -> Classification:
    """The block, saying why the write could not be performed as symbol operations (`suggested`:
    what that reason names to run instead)."""
    return dataclasses.replace(classification, message=f"{classification.message} Not routed: {why.rstrip('.')}.",
                               suggested=tuple(dict.fromkeys(classification.suggested + suggested)))


def still_referenced(classification: Classification, why: str, suggested: tuple[SuggestedOperation, ...]) -> Classification:
    """The block of a write that removes a definition still referenced: refused as remove_symbol
    refuses it (`why`), naming only what would succeed (`suggested`: the removal with force)."""
    return dataclasses.replace(classification, message=f"Blocked: {why}", suggested=suggested)
