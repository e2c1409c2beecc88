"""A shell command's change to one source file, judged by the gate after it ran (`[gate] shell`):
which definitions it added, removed, renamed or whose header it changed, or the syntax error it
introduced; and, for "put_back", the file with only those structural changes undone.

A command's change is judged as a whole-file write that spans lines, whatever it touched: the
gate lets the agent's own one-line edit change a header, but a command is not an edit the
agent showed, and one `sed` line is enough to change a signature. A file the command created
adds each definition it holds; one it deleted removes them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gateway.errors import GatewayError
from gateway.gate.checker import Gate
from gateway.gate.effect import Effect, Region, diff
from gateway.gate.syntax_problems import SyntaxProblem, first_problem
from gateway.gate.verdict import TouchedDefinition
from gateway.langs import Language
from gateway.syntax import Definition, definitions, language_for, parse, utf8

STRUCTURAL_REASONS = ("definition", "unreadable")


@dataclass(frozen=True)
class CommandChange:
    """The gate's verdict on what a command did to `path`: definitions touched, a syntax error
    it introduced, or why it could not be judged (`unjudged`)."""

    path: str
    what: str
    definitions: tuple[TouchedDefinition, ...] = ()
    syntax_error: SyntaxProblem | None = None
    unjudged: str | None = None

    @property
    def structural(self) -> bool:
        return bool(self.definitions) or self.syntax_error is not None


def _language(gate: Gate, path: str, before: str | None, after: str | None) -> Language | None:
    lang = language_for(gate.registry, path, after if after is not None else before, before if after is not None else None)
    return lang if lang is not None and lang.symbol_backend else None


def _all_of(lang: Language, text: str, change: str) -> tuple[TouchedDefinition, ...]:
    found = definitions(lang, parse(lang, utf8(text)))
    return tuple(TouchedDefinition(d.kind, d.name, d.name_path, d.name_line, change) for d in found)  # type: ignore[arg-type]


def judge_change(gate: Gate, path: str, before: str | None, after: str | None) -> CommandChange:
    """The verdict on `before` becoming `after` (None: the file did not exist / no longer does)."""
    what = "created" if before is None else "deleted" if after is None else "changed"
    lang = _language(gate, path, before, after)
    if lang is None:
        return CommandChange(path, what)
    try:
        if after is None:
            assert before is not None
            return CommandChange(path, what, _all_of(lang, before, "removed"))
        if before is None or not before.strip():
            problem = first_problem(lang, path, after, parse(lang, utf8(after)))
            return CommandChange(path, what, syntax_error=problem) if problem else CommandChange(path, what, _all_of(lang, after, "added"))
        regions, _ = diff(before, after)
        verdict = gate.check(Effect(path, before, after, regions, True), "write")
    except GatewayError as error:
        return CommandChange(path, what, unjudged=str(error))
    if verdict.syntax_error is not None:
        return CommandChange(path, what, syntax_error=verdict.syntax_error)
    if verdict.blocked and verdict.reason in STRUCTURAL_REASONS:
        return CommandChange(path, what, _lines_after(lang, after, verdict.definitions))
    if verdict.blocked:
        return CommandChange(path, what, unjudged=verdict.message)
    return CommandChange(path, what)


def _lines_after(lang: Language, after: str, touched: tuple[TouchedDefinition, ...]) -> tuple[TouchedDefinition, ...]:
    """The touched definitions with the line of the file as the command left it, wherever the
    definition is still there (a changed header's, a renamed one's); a removed one keeps its old line."""
    found = definitions(lang, parse(lang, utf8(after)))
    moved = []
    for d in touched:
        span = [n.name_line for n in found if n.name_path == (d.new_name_path or d.name_path)] if d.change in ("header", "renamed") else []
        moved.append(replace(d, line=min(span, key=lambda line: abs(line - d.line))) if span else d)
    return tuple(moved)


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _span(found: list[Definition], name_path: str, line: int | None) -> tuple[int, int] | None:
    """The lines of the definition named `name_path` (the one whose name is on `line`, if given)."""
    named = [d for d in found if d.name_path == name_path]
    exact = [d for d in named if line is None or d.name_line == line]
    chosen = (exact or named)[:1]
    return (chosen[0].start_line, chosen[0].end_line) if chosen else None


def _meets(region: tuple[int, int], text: str, spans: list[tuple[int, int]]) -> bool:
    first = _line(text, region[0])
    last = max(first, _line(text, max(region[0], region[1] - 1)))
    return any(first <= end and start <= last for start, end in spans)


def undone(gate: Gate, change: CommandChange, before: str, after: str) -> str | None:
    """`after` with the changes that touch the reported definitions taken back (each such
    definition's earlier text); None when they cannot be told apart from the rest of the
    change, so that only the whole file's earlier text leaves no structural change."""
    lang = _language(gate, change.path, before, after)
    if lang is None or change.syntax_error is not None:
        return None
    old = definitions(lang, parse(lang, utf8(before)))
    new = definitions(lang, parse(lang, utf8(after)))
    spans_before = [s for d in change.definitions if d.change != "added" for s in [_span(old, d.name_path, d.line)] if s]
    spans_after = [s for d in change.definitions if d.change != "removed"
                   for s in [_span(new, d.new_name_path or d.name_path, d.line if d.change == "added" else None)] if s]
    regions, _ = diff(before, after)
    taken_back: list[Region] = [r for r in regions if _meets(r.before, before, spans_before) or _meets(r.after, after, spans_after)]
    if not taken_back:
        return None
    result, end = [], 0
    for region in taken_back:
        result += [after[end:region.after[0]], before[region.before[0]:region.before[1]]]
        end = region.after[1]
    text = "".join([*result, after[end:]])
    if text == before or judge_change(gate, change.path, before, text).structural:
        return None
    return text
