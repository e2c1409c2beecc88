"""Checking a contract: scope, staleness, then every step applied in memory, in order.

Nothing is written here. The result is a `Plan`: each file's text after all steps, or the
problems that refuse the contract.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import regex

from gateway.contracts.model import Contract, Problem, Step
from gateway.errors import GatewayError, OutsideWorkspace
from gateway.gitcalls import git_text, resolve_commit
from gateway.atomic import file_digest
from gateway.workspace import SourceFile

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.effect import Effect
    from gateway.gate.verdict import Classification
    from gateway.symbols.model import Symbol
    from gateway.symbols.service import FileSymbols

# anchor_regex runs with a time limit: a pattern that backtracks catastrophically is refused, not waited for.
REGEX_SECONDS = 2.0
# A contract never writes the gateway's own files or git's.
_UNWRITABLE = (".gateway/", ".git/")


@dataclass
class FilePlan:
    display: str
    source: SourceFile | None
    """As read before the contract; None for a file the contract creates."""
    original: bytes | None
    text: str
    created: bool = False

    @property
    def changed(self) -> bool:
        return self.created if self.source is None else self.text != self.source.text


@dataclass
class StepResult:
    step: Step
    status: str
    files: list[str] = field(default_factory=list)
    start_line: int | None = None
    lines_removed: int = 0
    lines_added: int = 0
    problem: Problem | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.step.id,
            "file": self.step.file,
            "action": self.step.action,
            "status": self.status,
            "files": self.files,
            "start_line": self.start_line,
            "lines_removed": self.lines_removed,
            "lines_added": self.lines_added,
            "problem": self.problem.to_json() if self.problem else None,
        }


@dataclass
class Plan:
    contract: Contract
    files: dict[str, FilePlan] = field(default_factory=dict)
    steps: list[StepResult] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ready(self) -> bool:
        return not self.problems


class _StepRefused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def check_contract(gateway: Engine, contract: Contract) -> Plan:
    plan = Plan(contract, problems=list(contract.problems))
    scope = _scope(gateway, contract, plan)
    if not plan.problems:
        _staleness(gateway, contract, plan)
    if plan.problems:
        plan.steps = [StepResult(step, "not_checked") for step in contract.steps]
        return plan
    broken: set[str] = set()
    for step in contract.steps:
        display = scope[step.file]
        if display in broken:
            plan.steps.append(StepResult(step, "not_checked"))
            continue
        before = {name: fp.text for name, fp in plan.files.items()}
        try:
            _apply_step(gateway, plan, step, display, set(scope.values()))
        except (_StepRefused, GatewayError) as error:
            code = error.code if isinstance(error, _StepRefused) else error.kind
            problem = Problem(code, f"step {step.id}: {error}", step.line, step.id)
            plan.problems.append(problem)
            plan.steps.append(StepResult(step, "refused", [display], problem=problem))
            broken.add(display)
            continue
        plan.steps.append(_measure(step, plan, before))
    return plan


def _scope(gateway: Engine, contract: Contract, plan: Plan) -> dict[str, str]:
    """Each path the contract names -> its workspace-relative form; problems for what is outside."""
    workspace, scope = gateway.workspace, {}
    for entry in contract.files:
        try:
            scope[entry.path] = workspace.display(workspace.resolve(entry.path))
        except OutsideWorkspace as error:
            plan.problems.append(Problem("outside_workspace", str(error), entry.line))
            continue
        if f"{scope[entry.path]}/".startswith(_UNWRITABLE):
            plan.problems.append(Problem("protected", f"{scope[entry.path]}: a contract cannot change .gateway/ or .git/", entry.line))
    listed = set(scope.values())
    for step in contract.steps:
        try:
            display = workspace.display(workspace.resolve(step.file))
        except OutsideWorkspace as error:
            plan.problems.append(Problem("outside_workspace", str(error), step.line, step.id))
            continue
        if display not in listed:
            plan.problems.append(Problem("out_of_scope", f"step {step.id}: {display} is not listed in [[files]]", step.line, step.id))
        scope[step.file] = display
    if not contract.steps and not contract.problems:
        plan.problems.append(Problem("schema", "the contract has no [[steps]]", None))
    return scope


def _staleness(gateway: Engine, contract: Contract, plan: Plan) -> None:
    root = gateway.workspace.root
    for entry in contract.files:
        if entry.sha256 is None:
            continue
        path = gateway.workspace.resolve(entry.path)
        current = file_digest(path)
        if current != entry.sha256:
            what = "no longer exists" if current is None else "changed since the contract was made (sha256 differs)"
            plan.problems.append(Problem("stale", f"{entry.path}: {what}", entry.sha256_line))
    if contract.base is None:
        return
    commit = resolve_commit(root, contract.base)
    if commit is None:
        plan.problems.append(Problem("stale", f"base {contract.base[:80]!r} is not a commit of this repository", None))
        return
    paths = [entry.path for entry in contract.files]
    changed_names = git_text(root, "diff", "--name-only", "-z", commit, "--", *paths)
    if changed_names is None:
        plan.problems.append(Problem("stale", f"cannot compare with base {commit[:12]} (git failed)", None))
        return
    for changed in filter(None, changed_names.split("\0")):
        line = next((e.line for e in contract.files if gateway.workspace.resolve(e.path) == root / changed), None)
        plan.problems.append(Problem("stale", f"{changed}: changed since base {contract.base[:12]} (git-tracked)", line))


def _load(gateway: Engine, plan: Plan, display: str) -> FilePlan:
    if display not in plan.files:
        path = gateway.workspace.root / display
        if path.exists():
            source = gateway.workspace.read(display)
            plan.files[display] = FilePlan(display, source, path.read_bytes(), source.text)
        else:
            plan.files[display] = FilePlan(display, None, None, "")
    return plan.files[display]


def _anchor_span(text: str, step: Step) -> tuple[int, int]:
    if step.anchor is not None:
        spans = [(m.start(), m.start() + len(step.anchor)) for m in re.finditer(re.escape(step.anchor), text)] if step.anchor else []
        what = f"anchor {step.anchor[:60]!r}"
    else:
        what = f"anchor_regex {step.anchor_regex!r}"
        try:
            spans = [(m.start(), m.end()) for m in regex.finditer(step.anchor_regex or "", text, regex.MULTILINE, timeout=REGEX_SECONDS)]
        except TimeoutError:
            raise _StepRefused("anchor_too_slow", f"{what} did not finish matching within {REGEX_SECONDS} s; simplify it") from None
    if not spans:
        raise _StepRefused("anchor_missing", f"{what} does not occur (after the earlier steps)")
    if len(spans) > 1:
        lines = ", ".join(str(text.count("\n", 0, s) + 1) for s, _ in spans[:5])
        raise _StepRefused("anchor_ambiguous", f"{what} occurs {len(spans)} times (lines {lines}); it must occur exactly once")
    return spans[0]


def _apply_step(gateway: Engine, plan: Plan, step: Step, display: str, scope: set[str]) -> None:
    fp = _load(gateway, plan, display)
    if step.action == "create":
        if fp.source is not None or fp.created:
            raise _StepRefused("exists", f"{display} already exists; create makes new files only")
        fp.text, fp.created = step.text or "", True
        return
    if fp.source is None:
        raise _StepRefused("file_not_found", f"{display}: no such file in the workspace")
    if step.symbol is None:
        start, end = _anchor_span(fp.text, dataclasses.replace(step, anchor=_normalized(fp, step.anchor) if step.anchor else None))
        old = fp.text[start:end]
        text = _normalized(fp, step.text or "")
        new = {"replace": text, "insert_before": text + old, "insert_after": old + text, "delete": ""}[step.action]
        effect, verdict = gateway.gate.check_span(display, fp.text, start, end, new)
        if verdict.blocked and not verdict.routable:
            raise _StepRefused(verdict.reason, verdict.message)
        if verdict.blocked:
            _refuse_removing_referenced(gateway, plan, fp, effect, verdict)
            raise _StepRefused("structural", f"{verdict.message} Make it a symbol step (action = \"{verdict.suggested_tool}\").")
        fp.text = effect.after
        return
    _symbol_step(gateway, plan, step, fp, scope)


def _symbol_step(gateway: Engine, plan: Plan, step: Step, fp: FilePlan, scope: set[str]) -> None:
    from gateway.namepath import NamePath
    from gateway.symbols.rename import plan_rename
    from gateway.symbols.service import plan_insert, plan_remove, plan_replace

    service = gateway.symbol_service
    assert fp.source is not None and step.symbol is not None
    view = service.file_symbols(dataclasses.replace(fp.source, text=fp.text))
    if step.action == "rename_symbol":
        # A server renames across files: it must see every file as the earlier steps left it.
        for other in plan.files.values():
            if other.source and other.changed and other is not fp and service.registry.for_path(other.source.path) == view.lang:
                view.backend.sync(other.source.path, other.text, view.lang.server.language_id_for(other.source.path))

        def read(path: Path) -> SourceFile:
            display = gateway.workspace.display(gateway.workspace.resolve(path))
            if display not in scope:
                raise _StepRefused("out_of_scope", f"the rename also changes {display}, which is not listed in [[files]]")
            other = _load(gateway, plan, display)
            assert other.source is not None
            return dataclasses.replace(other.source, text=other.text)

        for staged in plan_rename(service, view, view.resolve(step.symbol), step.new_name or "", read):
            plan.files[staged.source.display].text = staged.text
        return
    text = _normalized(fp, step.text or "")
    if step.action == "insert_code":
        anchor = None if NamePath.parse(step.symbol).is_file else view.resolve(step.symbol)
        change = plan_insert(view, fp.text, anchor, step.position, text)
    elif step.action == "replace_symbol":
        change = plan_replace(view, fp.text, view.resolve(step.symbol), text)
    else:
        symbol = view.resolve(step.symbol)
        if not step.force:
            _refuse_referenced(gateway, plan, step, view, symbol)
        change = plan_remove(view, fp.text, symbol)
    fp.text = change.text


def _staged(gateway: Engine, plan: Plan) -> dict[Path, str]:
    """The texts the earlier steps leave, of the files they changed or created."""
    return {fp.source.path if fp.source else gateway.workspace.root / name: fp.text for name, fp in plan.files.items() if fp.changed}


def _refuse_referenced(gateway: Engine, plan: Plan, step: Step, view: FileSymbols, symbol: Symbol) -> None:
    """StillReferenced, as remove_symbol refuses it, while anything refers to the symbol in the
    workspace as the earlier steps leave it."""
    from gateway.symbols.references import referrers, still_referenced

    places = referrers(gateway.symbol_service, view, symbol, _staged(gateway, plan))
    if places.places:
        raise still_referenced(view.source.display, symbol.name_path, places, f"`force = true` in step {step.id}")


def _refuse_removing_referenced(gateway: Engine, plan: Plan, fp: FilePlan, effect: Effect, verdict: Classification) -> None:
    """StillReferenced for a text step that removes a definition still referenced, as an edit is
    refused: its advice, a remove_symbol step, would be refused too."""
    from gateway.symbols.backends import TreeSitterBackend
    from gateway.symbols.references import referrers
    from gateway.symbols.routing import refuse_referenced_removals

    if fp.source is None or not any(d.change == "removed" for d in verdict.definitions):
        return
    view = gateway.symbol_service.file_symbols(dataclasses.replace(fp.source, text=fp.text), TreeSitterBackend(), also=effect.after)
    staged = _staged(gateway, plan)
    refuse_referenced_removals(view, effect, verdict, lambda symbol: referrers(gateway.symbol_service, view, symbol, staged),
                               "a remove_symbol step with `force = true`")


def _normalized(fp: FilePlan, text: str) -> str:
    return fp.source.normalize(text) if fp.source else text


def _measure(step: Step, plan: Plan, before: dict[str, str]) -> StepResult:
    result = StepResult(step, "ready")
    for name, fp in plan.files.items():
        old = before.get(name, fp.source.text if fp.source else "")
        if fp.text == old:
            continue
        result.files.append(name)
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old.splitlines(), fp.text.splitlines(), autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            result.start_line = j1 + 1 if result.start_line is None else result.start_line
            result.lines_removed += i2 - i1
            result.lines_added += j2 - j1
    return result
