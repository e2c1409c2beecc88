"""Applying a contract: check, write every file at once, validate, or put every byte back."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.contracts.check import FilePlan, Plan, StepResult, check_contract
from gateway.contracts.model import Contract, Validation, load_contract
from gateway.errors import FileMissing, OutsideWorkspace, Stale, UsageError
from gateway.typed.audit import ensure_state_dir
from gateway.config import STATE_DIR
from gateway.workspace import file_digest, replace_atomically, sha256, write_new_text

if TYPE_CHECKING:
    from gateway.api import Gateway

OUTPUT_TAIL_CHARS = 4000
JOURNAL_NAME = "contract-journal.json"


def read_contract(gateway: Gateway, path: str | os.PathLike[str]) -> Contract:
    """A contract file: absolute, or relative to the workspace root."""
    real = Path(path) if Path(path).is_absolute() else gateway.workspace.root / path
    if not real.is_file():
        raise FileMissing(f"{path}: no such contract file")
    try:
        return load_contract(real)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: a contract is UTF-8 text") from None


def report(plan: Plan, **extra: Any) -> dict[str, Any]:
    contract = plan.contract
    return {
        "ok": plan.ready,
        "contract": contract.id,
        "summary": contract.summary,
        "ready": plan.ready,
        "problems": [p.to_json() for p in plan.problems],
        "steps": [s.to_json() for s in plan.steps],
        **({"fallback": contract.fallback} if not plan.ready and contract.fallback else {}),
        **extra,
    }


def run_validation(validation: Validation, root: Path) -> dict[str, Any]:
    """One validation command in the workspace, killed with its children at its timeout."""
    started = time.monotonic()
    process = subprocess.Popen(
        ["bash", "-c", validation.run], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    timed_out = False
    try:
        output, _ = process.communicate(timeout=validation.timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
    text = output.decode("utf-8", errors="replace")
    return {
        "run": validation.run,
        "exit_code": None if timed_out else process.returncode,
        "timed_out": timed_out,
        "timeout": validation.timeout,
        "duration_s": round(time.monotonic() - started, 3),
        "output_tail": text[-OUTPUT_TAIL_CHARS:],
        "passed": not timed_out and process.returncode == 0,
    }


def apply_contract(gateway: Gateway, path: str | os.PathLike[str], keep_on_failure: bool = False) -> dict[str, Any]:
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
            return report(plan, applied=False, validated=False, rolled_back=False, validations=[], recovered=recovered)
        changed = [fp for fp in plan.files.values() if fp.changed]
        _write_journal(gateway, contract, changed)
        try:
            gateway.workspace.write_all(
                [(fp.source, fp.text) for fp in changed if fp.source is not None],
                [(fp.display, fp.text) for fp in changed if fp.source is None],
            )
        except BaseException:
            _journal(gateway).unlink()  # write_all has put everything back itself
            raise
        for result in plan.steps:
            result.status = "applied"
        _log_steps(gateway, contract, run_id, plan.steps, "consumed", None)
        validations: list[dict[str, Any]] = []
        try:
            for validation in contract.validations:
                validations.append(run_validation(validation, workspace.root))
                if not validations[-1]["passed"]:
                    break
        except BaseException:
            _put_back(gateway, plan)
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", "rolled_back")
            raise
        validated = all(v["passed"] for v in validations)
        if validated or keep_on_failure:
            _journal(gateway).unlink()
        not_run = [{"run": v.run, "passed": None, "not_run": True} for v in contract.validations[len(validations) :]]
        rolled_back = not validated and not keep_on_failure
        if rolled_back:
            _put_back(gateway, plan)
            for result in plan.steps:
                result.status = "rolled_back"
            _log_steps(gateway, contract, run_id, plan.steps, "rejected", "rolled_back")
    return report(plan, applied=validated, validated=validated, rolled_back=rolled_back, kept_on_failure=not validated and keep_on_failure,
                  validations=validations + not_run, recovered=recovered)


def _journal(gateway: Gateway) -> Path:
    return gateway.workspace.root / STATE_DIR / JOURNAL_NAME


def _write_journal(gateway: Gateway, contract: Contract, changed: list[FilePlan]) -> None:
    """Every file's bytes before the contract, on disk before the first write: what a crashed run is undone from."""
    ensure_state_dir(gateway.workspace.root / STATE_DIR)
    entries = [
        {
            "path": fp.display,
            "original": base64.b64encode(fp.original).decode() if fp.original is not None else None,
            "mode": fp.source.mode if fp.source else None,
            "written_sha256": sha256(fp.source.encode(fp.text) if fp.source else fp.text.encode("utf-8")),
        }
        for fp in changed
    ]
    write_new_text(_journal(gateway), json.dumps({"contract": contract.id, "files": entries}))


def recover(gateway: Gateway) -> list[str]:
    """Undo a contract run that died between its first write and its end (a journal is left); the files it put back."""
    journal = _journal(gateway)
    if not journal.exists():
        return []
    data = json.loads(journal.read_text("utf-8"))
    root = gateway.workspace.root
    foreign = [e["path"] for e in data["files"] if file_digest(root / e["path"]) not in (e["written_sha256"], _original_digest(e))]
    if foreign:
        raise Stale(
            f"an interrupted contract run ({data.get('contract')}) left {JOURNAL_NAME}, but {', '.join(foreign)} changed "
            "since; restore by hand from the journal, then delete it"
        )
    restored = []
    for entry in data["files"]:
        path = root / entry["path"]
        if file_digest(path) == _original_digest(entry):
            continue
        if entry["original"] is None:
            path.unlink(missing_ok=True)
        else:
            replace_atomically(path, base64.b64decode(entry["original"]), entry["mode"])
        restored.append(entry["path"])
    gateway.typed.record(
        "rejected", "contract_recover", gateway.typed.file_entries(restored), kind="contract", contract=data.get("contract"),
        audit_error={"code": "interrupted", "message": "an interrupted contract run was undone from its journal"},
    )
    journal.unlink()
    return restored


def _original_digest(entry: dict[str, Any]) -> str | None:
    return sha256(base64.b64decode(entry["original"])) if entry["original"] is not None else None


def _put_back(gateway: Gateway, plan: Plan) -> None:
    """Every file the contract wrote back to its exact previous bytes; the files it created removed."""
    for fp in plan.files.values():
        if not fp.changed:
            continue
        if fp.source is None:
            (gateway.workspace.root / fp.display).unlink(missing_ok=True)
        else:
            assert fp.original is not None
            gateway.workspace.put_back(fp.source, fp.original)
    _journal(gateway).unlink(missing_ok=True)


def _log_steps(gateway: Gateway, contract: Contract, run_id: str, steps: list[StepResult], phase: str, code: str | None) -> None:
    for result in steps:
        error = None if code is None else {"code": code, "message": result.problem.message if result.problem else code}
        gateway.typed.record(
            phase, "contract_apply", gateway.typed.file_entries(result.files or [result.step.file]), edit_id=run_id,
            kind="contract", contract=contract.id, step=result.step.id, action=result.step.action,
            provenance="accepted_artifact", execution_state="normal", audit_error=error,
        )
