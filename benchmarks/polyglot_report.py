"""The polyglot benchmark's tables and lists for RESULTS.md (benchmarks/polyglot.py)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

# Why each kind of refusal happens, and whether refusing is right: read from this run's refusals.
EXPLAIN: dict[str, str] = {}


def _pct(part: int, whole: int) -> str:
    return f"{part} ({100 * part / whole:.0f}%)" if whole else "0"


def _tests(summary: dict[str, Any], variant: str) -> str:
    found = summary["tests"].get(variant)
    return f"{found['passed']}/{found['run']}" if found and found["run"] else "–"


def _refused(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return f"{total}" + (" (" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + ")" if counts else "")


def _mode_table(rows: list[dict[str, Any]], mode: str, heading: str) -> list[str]:
    out = [heading, "",
           "| language | backend | exercises | sent | judged | structural | allowed (exact) | routed exact | routed, different "
           "| refused | not applied | solution reached | tests after the gateway | tests after plain replacement | gateway p50 ms |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        s = row["summary"].get(mode)
        if s is None:
            continue
        plain = "plain edits" if mode == "edits" else "reference"
        p50 = f"{s['ms_p50']:.0f}" if s["ms_p50"] is not None else "–"
        out.append(
            f"| {row['language']} | {row['backend']} | {row['exercises']} | {s['sent']} | {s['judged']} "
            f"| {_pct(s['structural'], s['judged'])} | {s['allowed']} ({s['allowed_exact']}) | {s['routed_exact']} "
            f"| {s['routed'] - s['routed_exact']} | {_refused(s['refused'])} | {s['not_applied']} "
            f"| {s['solution_reached']}/{row['exercises']} | {_tests(row['summary'], f'gateway {mode}')} "
            f"| {_tests(row['summary'], plain)} | {p50} |"
        )
    return out


def _listing(rows: list[dict[str, Any]], mode: str, status: str) -> dict[str, list[str]]:
    """reason → 'language exercise: path, kind label' for every outcome with `status`."""
    grouped: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        for entry in row["per_exercise"]:
            for o in entry.get(mode, {}).get("outcomes", []):
                if o["status"] == status and (status != "routed" or not o["exact"]):
                    detail = f" — {o['detail'][:160]}" if o.get("detail") else ""
                    grouped[o["reason"]].append(f"{row['language']} `{entry['exercise']}`: {o['path']}, {o['kind']} `{o['label']}`{detail}")
    return grouped


def _groups(title: str, grouped: dict[str, list[str]], limit: int = 12) -> list[str]:
    if not grouped:
        return [f"{title}: none."]
    out = [f"{title}:"]
    for reason, items in sorted(grouped.items(), key=lambda kv: -len(kv[1])):
        why = EXPLAIN.get(reason) or EXPLAIN.get(reason.split(":")[0], "")
        out += ["", f"- **{reason}** ({len(items)}). {why}"]
        out += [f"  - {item}" for item in items[:limit]]
        if len(items) > limit:
            out.append(f"  - and {len(items) - limit} more (results/polyglot.json)")
    return out


def _failures(rows: list[dict[str, Any]]) -> list[str]:
    """Exercises whose tests pass on the reference but not after a gateway mode."""
    out = []
    for row in rows:
        for entry in row["per_exercise"]:
            tests = entry.get("tests") or {}
            ok = tests.get("reference") and tests["reference"]["passed"]
            for variant, run in tests.items():
                if variant.startswith("gateway") and ok and run and not run["passed"]:
                    out.append(f"- {row['language']} `{entry['exercise']}`, {variant}")
    return out


def render(rows: list[dict[str, Any]], machine: str, commit: str) -> str:
    out = [
        f"Machine: {machine}. Aider-AI/polyglot-benchmark at {commit}. Each exercise's stub is turned into its reference "
        "solution by the edits an agent makes (one replacement per definition, then one per remaining hunk of lines; "
        "`benchmarks/polyglot_edits.py`), each sent through `Gateway.edit(..., route=True)`; and, apart, by one "
        "whole-file write per file. Judged = reached the gate. Structural = the gate blocked it as a change of "
        "definitions. Routed exact = the file afterwards is byte for byte what plain replacement gives. Not applied = "
        "old_string no longer in the file after an earlier refusal or different route. Tests: the exercise's own, "
        "every test enabled, on what the gateway left and on the plain result (= the reference solution).",
        "",
    ]
    out += _mode_table(rows, "edits", "One edit per definition:")
    out += [""] + _mode_table(rows, "write", "Whole-file writes:")
    for mode, name in (("edits", "edits"), ("write", "whole-file writes")):
        out += [""] + _groups(f"Refused {name}, by reason", _listing(rows, mode, "refused"))
        out += [""] + _groups(f"Routed {name} whose result differs from plain replacement", _listing(rows, mode, "routed"))
    failures = _failures(rows)
    out += ["", "Tests that pass on the reference solution but fail after the gateway:" if failures else
            "Tests that pass on the reference solution but fail after the gateway: none."] + failures
    return "\n".join(out)
