"""Applying a contract: check, write every file at once, validate, or put every byte back."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway import progress
from gateway.contracts.check import FilePlan, Plan, StepResult, check_contract
from gateway.contracts.journal import JournalEntry, finish_journal, interrupted, undo, write_journal, written_by_others
from gateway.contracts.model import Contract, Validation, load_contract
from gateway.errors import FileMissing, NewErrors, OutsideWorkspace, UsageError
from gateway.results import Verification, failure
from gateway.reaper import SCRIPT as REAPER
from gateway.snapshot import compare, restore, take
from gateway.typed.state import objects_dir
from gateway.atomic import sha256

if TYPE_CHECKING:
    from gateway.engine import Engine

OUTPUT_TAIL_CHARS = 4000
# How long past a validation's timeout the reaper itself may take before it is killed too.
REAPER_GRACE_SECONDS = 5


def read_contract(gateway: Engine, path: str | os.PathLike[str]) -> Contract:
    """A contract file inside the workspace: absolute, or relative to the workspace root."""
    real = gateway.workspace.resolve(path)
    if not real.exists():
        raise FileMissing(f"{path}: no such contract file")
    try:
        return load_contract(real)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: a contract is UTF-8 text") from None


@dataclass(frozen=True)
class ContractReport:
    """A contract checked (`applied` None) or applied: its plan, and for an application what ran.
    Refused (`ok` false, `error`) when the plan is not ready or the validations failed."""

    plan: Plan
    applied: bool | None = None
    rolled_back: bool = False
    kept_on_failure: bool = False
    validations: tuple[dict[str, Any], ...] = ()
    recovered: tuple[str, ...] = ()
    interrupted: tuple[dict[str, Any], ...] = ()
    verification: Verification | None = None  # the language server's delta of the contract's writes, as one write

    @property
    def ok(self) -> bool:
        return self.plan.ready and self.applied is not False

    def error(self) -> dict[str, Any] | None:
        contract = self.plan.contract
        if not self.plan.ready:
            problem = self.plan.problems[0]
            return failure("contract_refused", f"contract {contract.id} refused: {problem.message}", contract.fallback or None, code=problem.code)
        if self.applied is False:
            failed = next((v for v in self.validations if v.get("passed") is False), {"run": "?"})
            restored = "files kept as written" if self.kept_on_failure else "every file restored"
            return failure("validation_failed", f"contract {contract.id} failed validation `{failed['run']}`; {restored}")
        return None

    def to_json(self) -> dict[str, Any]:
        contract, plan = self.plan.contract, self.plan
        applied = {} if self.applied is None else {
            "applied": self.applied, "validated": self.applied, "rolled_back": self.rolled_back, "validations": list(self.validations),
            **({"kept_on_failure": self.kept_on_failure} if plan.ready else {}),
        }
        error = self.error()
        return {
            "ok": self.ok,
            "contract": contract.id,
            "summary": contract.summary,
            "ready": plan.ready,
            "problems": [p.to_json() for p in plan.problems],
            "steps": [s.to_json() for s in plan.steps],
            **({"fallback": contract.fallback} if not plan.ready and contract.fallback else {}),
            **applied,
            **({"recovered": list(self.recovered)} if self.applied is not None else {"interrupted": list(self.interrupted)}),
            **({"error": error} if error else {}),
            **(self.verification.to_json() if self.verification is not None else {}),
        }


def run_validation(validation: Validation, root: Path) -> dict[str, Any]:
    """One validation command in the workspace, in its own session under a subreaper: at its
    end or at its timeout every process it started is killed, those that left its session too."""
    started = time.monotonic()
    status_read, status_write = os.pipe()
    command = [sys.executable, "-I", "-S", REAPER, str(validation.timeout), str(status_write), "--", "bash", "-c", validation.run]
    try:
        # No bytecode caches: a validation that imports the code must not count as changing files.
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        process = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   pass_fds=(status_write,), start_new_session=True, env=env)
    finally:
        os.close(status_write)
    try:
        with progress.doing(f"validating: {validation.run}"):
            output, _ = process.communicate(timeout=validation.timeout + REAPER_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    with os.fdopen(status_read, "rb") as handle:
        raw = handle.read()
    try:
        status = json.loads(raw)
    except ValueError:
        status = {"exit_code": None, "timed_out": True}
    text = output.decode("utf-8", errors="replace")
    timed_out, code = bool(status.get("timed_out")), status.get("exit_code")
    return {
        "run": validation.run,
        "exit_code": None if timed_out else code,
        "timed_out": timed_out,
        "timeout": validation.timeout,
        "duration_s": round(time.monotonic() - started, 3),
        "output_tail": text[-OUTPUT_TAIL_CHARS:],
        "passed": not timed_out and code == 0,
    }


def _validate(contract: Contract, root: Path, listed: set[str], run_id: str) -> tuple[list[dict[str, Any]], list[str]]:
    """Run the validations in order, stopping at the first failure; and the unlisted workspace
    files they changed, already put back (another contract run's files are that run's)."""
    if not contract.validations:
        return [], []
    objects = objects_dir(root)
    before = take(root, objects)
    validations: list[dict[str, Any]] = []
    for validation in contract.validations:
        validations.append(run_validation(validation, root))
        if not validations[-1]["passed"]:
            break
    others = written_by_others(root, run_id, before.taken_at)
    foreign = [c for c in compare(root, before, objects) if c.path not in listed and c.path not in others]
    restore(root, foreign, objects)
    return validations, [f"{c.path} ({c.what})" for c in foreign]


def apply_contract(gateway: Engine, path: str | os.PathLike[str], keep_on_failure: bool = False) -> ContractReport:
    contract = read_contract(gateway, path)
    run_id = uuid.uuid4().hex[:16]
    workspace = gateway.workspace
    listed = []
    for entry in contract.files:
        with contextlib.suppress(OutsideWorkspace):  # check_contract reports it
            listed.append(workspace.resolve(entry.path))
    with gateway.typed.attempt("contract_apply", None, [workspace.display(p) for p in listed]), contextlib.ExitStack() as locks:
        for real in sorted(set(listed)):
            locks.enter_context(workspace.locked(real))
        recovered = recover(gateway)
        plan = check_contract(gateway, contract)
        if not plan.ready:
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", plan.problems[0].code)
            return ContractReport(plan, applied=False, recovered=tuple(recovered))
        changed = [fp for fp in plan.files.values() if fp.changed]
        try:
            verification = _verified(gateway, changed)
        except NewErrors:
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", "new_errors")
            raise
        write_journal(workspace.root, run_id, contract.id, [_journal_entry(fp) for fp in changed])
        try:
            gateway.workspace.write_all(
                [(fp.source, fp.text) for fp in changed if fp.source is not None],
                [(fp.display, fp.text) for fp in changed if fp.source is None],
            )
        except BaseException:
            finish_journal(workspace.root, run_id)  # write_all has put everything back itself
            raise
        for result in plan.steps:
            result.status = "applied"
        _log_steps(gateway, contract, run_id, plan.steps, "consumed", None)
        try:
            validations, foreign = _validate(contract, workspace.root, {workspace.display(p) for p in listed}, run_id)
        except BaseException:
            _put_back(gateway, plan, run_id)
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", "rolled_back")
            raise
        if foreign:
            validations.append({"run": "(workspace check)", "passed": False, "changed_unlisted": foreign,
                                "output_tail": f"the validations changed files the contract does not list, now put back: {', '.join(foreign)}"})
        validated = all(v["passed"] for v in validations)
        keep = keep_on_failure and not foreign
        if validated or keep:
            finish_journal(workspace.root, run_id)
        not_run = [{"run": v.run, "passed": None, "not_run": True} for v in contract.validations[len(validations) :]]
        rolled_back = not validated and not keep
        if rolled_back:
            _put_back(gateway, plan, run_id)
            for result in plan.steps:
                result.status = "rolled_back"
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", "rolled_back")
    return ContractReport(plan, applied=validated, rolled_back=rolled_back, kept_on_failure=not validated and keep,
                          validations=tuple(validations + not_run), recovered=tuple(recovered), verification=verification)


def _verified(gateway: Engine, changed: list[FilePlan]) -> Verification | None:
    """The delta of the contract's changes to existing files of languages with symbols, as one
    write (NewErrors under `[verify] on_new_errors = "refuse"`, nothing written)."""
    from gateway.syntax import language_for
    from gateway.verify import Written

    written = []
    for fp in changed:
        lang = language_for(gateway.registry, fp.source.path, fp.source.text, fp.text) if fp.source is not None else None
        if fp.source is not None and lang is not None and lang.symbol_backend:
            written.append(Written(fp.source, fp.text, lang))
    if not written:
        return None
    verification = gateway.verifier.verify(written)
    gateway.verifier.refuse_or_pass(verification, written)
    return verification


def _journal_entry(fp: FilePlan) -> JournalEntry:
    written = fp.source.encode(fp.text) if fp.source else fp.text.encode("utf-8")
    return JournalEntry(fp.display, fp.original, fp.source.mode if fp.source else None, sha256(written))


def pending_recovery(gateway: Engine) -> list[dict[str, Any]]:
    """The runs that died mid-apply, as a check reports them (it writes nothing)."""
    return [{"run": j.run_id, "contract": j.contract, "files": [e.path for e in j.entries]} for j in interrupted(gateway.workspace.root)]


def recover(gateway: Engine) -> list[str]:
    """Undo every contract run that died between its first write and its end; the files put back."""
    restored: list[str] = []
    for journal in interrupted(gateway.workspace.root):
        undone = undo(gateway.workspace.root, journal)
        gateway.typed.record(
            "rejected", "contract_recover", gateway.typed.file_entries(undone), kind="contract", contract=journal.contract,
            audit_error={"code": "interrupted", "message": "an interrupted contract run was undone from its journal"},
        )
        restored += undone
    return restored


def _put_back(gateway: Engine, plan: Plan, run_id: str) -> None:
    """Every file the contract wrote back to its exact previous bytes; the files it created removed."""
    for fp in plan.files.values():
        if not fp.changed:
            continue
        if fp.source is None:
            (gateway.workspace.root / fp.display).unlink(missing_ok=True)
        else:
            assert fp.original is not None
            gateway.workspace.put_back(fp.source, fp.original)
    finish_journal(gateway.workspace.root, run_id)


def _log_steps(gateway: Engine, contract: Contract, run_id: str, steps: list[StepResult], phase: str, code: str | None) -> None:
    for result in steps:
        error = None if code is None else {"code": code, "message": result.problem.message if result.problem else code}
        gateway.typed.record(
            phase, "contract_apply", gateway.typed.file_entries(result.files or [result.step.file]), edit_id=run_id,
            kind="contract", contract=contract.id, step=result.step.id, action=result.step.action,
            provenance="accepted_artifact", execution_state="normal", audit_error=error,
        )
