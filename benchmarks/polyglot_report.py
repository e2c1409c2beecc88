"""The polyglot benchmark's tables and lists for RESULTS.md (benchmarks/polyglot.py)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

# Why each kind of refusal happens, and whether refusing is right, read from the refusals of the
# run recorded in RESULTS.md (Aider-AI/polyglot-benchmark at 7e0611e77b54).
EXPLAIN: dict[str, str] = {
    "syntax_error (read as c)": (
        "Wrong, a gateway bug, fixed after the first run (83 refusals then): an empty C++ header (an include guard "
        "around an empty `namespace x { }`) reads as C and C++ alike, and the tie went to C, so the first C++ written "
        "into it was refused as a C syntax error. The language of an `.h` is now chosen by what the write leaves too, "
        "counting the tokens a grammar has to make up (MISSING) as well as ERROR nodes, and routing reads the file in "
        "the language the gate judged."
    ),
    "syntax_error": (
        "Wrong: the code is valid and its tests pass. (Two such refusals of the run before were fixed: a macro "
        "the file defines as an argument and its comma, `std::transform(PAR_UNSEQ texts.cbegin(), ...)`, is now "
        "read as its expansion; Rust's `dyn 'a + Fn(..)`, which the bundled tree-sitter-rust cannot parse, is "
        "uncertain, not an error.)"
    ),
    "shadowed": (
        "JavaScript `parallel-letter-frequency`: right by the gate's documented rule 3, and a plausible agent edit: "
        "it wraps three existing top-level functions in `if (isMainThread) { ... } else { ... }`, so each exists on "
        "one branch only; the gate refuses moving a definition under a condition as it is, and its advice "
        "(remove_symbol) does not help an agent that wants the condition. (The C++ whole-file writes that renamed "
        "a header's include guard, refused so in the run before, are no longer: a guard is not a condition.)"
    ),
    "not routed: verification": (
        "Wrong, a gateway bug: routing's verification counted a definition as lost that the result keeps. (The "
        "three of the run before, a Rust item removed above an item with an attribute, were a regression in the "
        "incrementally derived definitions, fixed.)"
    ),
    "not routed: rename": (
        "Right by the documented rule: in both the gate itself, comparing B's and A's definitions by name path, "
        "reads a rename (go `pov`: the solution drops `Tree/String` and has `FindNode` in its place; rust "
        "`nucleotide-codons`: drops one `CodonsInfo` and adds `CodonInfo`), and a rename by text is refused with "
        "the rename_symbol command, though each is a definition removed and another added. (The 13 wrong ones of "
        "the run before, where the lift paired a definition added above kept ones with one of them, are fixed.)"
    ),
}


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
           "| language | backend (routes by) | exercises | sent | judged | structural | allowed (exact) | routed exact | routed, different "
           "| refused | not applied | solution reached | tests after the gateway | tests after plain replacement | gateway p50 ms |",
           "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        s = row["summary"].get(mode)
        if s is None:
            continue
        plain = "plain edits" if mode == "edits" else "reference"
        p50 = f"{s['ms_p50']:.0f}" if s["ms_p50"] is not None else "–"
        routes = s.get("route_backends", {})
        backend = row["backend"] if set(routes) <= {row["backend"].split(" ")[0]} else f"{row['backend']} ({', '.join(f'{k}: {v}' for k, v in routes.items())})"
        out.append(
            f"| {row['language']} | {backend} | {row['exercises']} | {s['sent']} | {s['judged']} "
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
                    detail = f" — {_short(o['detail'])}" if o.get("detail") else ""
                    grouped[o["reason"]].append(f"{row['language']} `{entry['exercise']}`: {o['path']}, {o['kind']} `{o['label']}`{detail}")
    return grouped


def _short(detail: str) -> str:
    """A refusal's detail in a line: a rename's names and what the gate saw, without the advice."""
    if " by text," in detail and "[the gate saw" in detail:
        detail = detail.split(" by text,")[0] + " [the gate saw" + detail.split("[the gate saw", 1)[1]
    return detail[:240]


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


def _passed(run: dict[str, Any] | bool | None) -> bool | None:
    """A test run's outcome, saved in full (a dict) or recorded as a boolean; None: not run."""
    return run.get("passed") if isinstance(run, dict) else run


def _failures(rows: list[dict[str, Any]]) -> list[str]:
    """Per language, the exercises whose tests pass on the reference but not after a gateway mode."""
    out = []
    for row in rows:
        failed = []
        for entry in row["per_exercise"]:
            tests = entry.get("tests") or {}
            modes = [v.removeprefix("gateway ") for v, run in tests.items() if v.startswith("gateway") and _passed(run) is False]
            if _passed(tests.get("reference")) and modes:
                failed.append(f"`{entry['exercise']}` ({', '.join(modes)})")
        if failed:
            out.append(f"- {row['language']}: {', '.join(failed)}")
    return out


def render(rows: list[dict[str, Any]], machine: str, commit: str) -> str:
    out = [
        f"Machine: {machine}. Aider-AI/polyglot-benchmark at {commit}. Each exercise's stub is turned into its reference "
        "solution by the edits an agent makes (one replacement per definition, then one per remaining hunk of lines; "
        "`benchmarks/polyglot_edits.py`), each sent through `Gateway.edit(..., route=True)`; and, apart, by one "
        "whole-file write per file. Judged = reached the gate. Structural = the gate blocked it as a change of "
        "definitions. Routed exact = the file afterwards is byte for byte what plain replacement gives. Not applied = "
        "old_string no longer in the file after an earlier refusal or different route. Tests: the exercise's own, "
        "every test enabled, on what the gateway left and on the plain result (= the reference solution): pytest, "
        "`go test`, `cargo test -- --include-ignored`, jest, C++ through CMake with `EXERCISM_RUN_ALL_TESTS` (gigasecond "
        "and meetup need Debian's libboost-date-time-dev, which `make bench-polyglot` installs), Java compiled by javac and run by JUnit's console launcher "
        "(Gradle cannot download its distribution here). Languages run one at a time.",
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
