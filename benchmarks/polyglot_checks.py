"""Checks of each polyglot outcome beyond its bytes: whether the gate's verdict agrees with an
independent oracle (Python's `ast`; other languages have none in process), and whether a route's
backend label names a server that ran. Plain replacement and routing give the same bytes, so the
bytes alone pass a gate that blocks everything or allows everything, and a false label."""

from __future__ import annotations

from benchmarks.backend_label import claims_absent_server
from benchmarks.oracle import AstOracle, label, structural
from benchmarks.polyglot_drive import Outcome
from benchmarks.polyglot_edits import Edit
from gateway.api import Gateway
from gateway.gate.effect import edit_effect

JUDGED = ("allowed", "routed", "refused")


def outcome_problems(gateway: Gateway, language: str, before: str, edit: Edit, outcome: Outcome) -> list[str]:
    """What is wrong with `outcome` of `edit` on a file holding `before`, one line each."""
    problems = []
    if outcome.status == "routed" and claims_absent_server(gateway, outcome.reason):
        problems.append(f"{edit.path}: {edit.label}: routed by {outcome.reason}, which was not running")
    if language == "python" and outcome.status in JUDGED and before.count(edit.old) == 1:
        oracle = AstOracle()
        effect = edit_effect(edit.path, before, edit.old, edit.new)
        found_before, found_after = oracle.definitions(gateway.workspace.root / edit.path, before), oracle.definitions(
            gateway.workspace.root / edit.path, effect.after)
        if found_before is not None and found_after is not None:
            truth = structural(label(found_before, found_after), effect.multi_line)
            if truth != outcome.structural and not (outcome.status == "refused" and not outcome.structural):
                said = "structural" if outcome.structural else "not structural"
                problems.append(f"{edit.path}: {edit.label}: judged {said} ({outcome.status}), python ast says otherwise")
    return problems
