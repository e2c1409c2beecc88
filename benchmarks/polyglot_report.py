"""The polyglot benchmark's tables and lists for RESULTS.md (benchmarks/polyglot.py)."""

from __future__ import annotations

import tomllib
from collections import defaultdict
from pathlib import Path
from typing import Any

EXPLAINED = Path(__file__).with_name("polyglot_explained.toml")
NOT_EXPLAINED = "not yet explained"
CUTS = {  # mode → how its edits were cut
    "edits": "definitions (the gateway's tree-sitter boundaries)",
    "hunks": "difflib hunks, random context",
    "middle": "mid-line, split mid-definition",
    "write": "whole file, one write",
    "formatted": "whole file formatted, one write",
}


def explanations(path: Path = EXPLAINED) -> dict[tuple[str, ...], str]:
    """(language, exercise, mode, file, step, reason) → why that one refusal happened."""
    cases = tomllib.loads(path.read_text(encoding="utf-8"))["case"] if path.is_file() else []
    return {(c["language"], c["exercise"], c["mode"], c["path"], c["step"], c["reason"]): c["explanation"] for c in cases}


def _tests(summary: dict[str, Any], variant: str) -> str:
    found = summary["tests"].get(variant)
    return f"{found['passed']}/{found['run']}" if found and found["run"] else "–"


def _refused(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    return f"{total}" + (" (" + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + ")" if counts else "")


def _bytes_from(row: dict[str, Any], summary: dict[str, Any]) -> str:
    """What produced the routed bytes, from each route's own operations, with the server's version."""
    counts = summary.get("bytes_from")
    if counts is None:
        return "not recorded" if summary["routed"] else "– (nothing routed)"
    if not counts:
        return "– (nothing routed)"
    versions = row.get("servers", {})
    return ", ".join(f"{name}{f' ({versions[name]})' if name in versions else ''}: {n}" for name, n in sorted(counts.items()))


def _cuts_table(rows: list[dict[str, Any]]) -> list[str]:
    out = ["| language | cut | sent | structural | allowed (exact) | routed exact | routed, different | refused (by reason) "
           "| refused, text parses | not applied | solution reached | tests after the gateway | routed bytes from | gateway p50 ms |",
           "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|"]
    for row in rows:
        for mode in row["modes"]:
            s = row["summary"][mode]
            by = f" ({row['formatter']})" if mode == "formatted" and row.get("formatter") else ""
            cut = f"{CUTS.get(mode, mode)}{by}"
            p50 = f"{s['ms_p50']:.0f}" if s["ms_p50"] is not None else "–"
            false = s.get("refused_text_parses", "–")
            unchecked = f" ({s['refusals_unchecked']} unchecked)" if s.get("refusals_unchecked") else ""
            out.append(
                f"| {row['language']} | {cut} | {s['sent']} | {s['structural']} | {s['allowed']} ({s['allowed_exact']}) "
                f"| {s['routed_exact']} | {s['routed'] - s['routed_exact']} | {_refused(s['refused'])} | {false}{unchecked} "
                f"| {s['not_applied']} | {s['solution_reached']}/{row['exercises']} | {_tests(row['summary'], f'gateway {mode}')} "
                f"| {_bytes_from(row, s)} | {p50} |"
            )
    return out


def _listing(rows: list[dict[str, Any]], mode: str, status: str) -> dict[str, list[str]]:
    """reason → 'language exercise: path, kind label — detail: explanation' for every outcome with `status`."""
    grouped: dict[str, list[str]] = defaultdict(list)
    explained = explanations()
    for row in rows:
        for entry in row["per_exercise"]:
            for o in entry.get(mode, {}).get("outcomes", []):
                if o["status"] == status and (status != "routed" or not o["exact"]):
                    detail = f" — {_short(o['detail'])}" if o.get("detail") else ""
                    parses = {True: " The text it would have left parses.",
                              False: " The text it would have left does not parse."}.get(o.get("parses"), "")
                    why = ""
                    if status == "refused":
                        key = (row["language"], entry["exercise"], mode, o["path"], o["label"], o["reason"])
                        why = f" Why: {explained.get(key, NOT_EXPLAINED).rstrip('.')}."
                    grouped[o["reason"]].append(
                        f"{row['language']} `{entry['exercise']}`: {o['path']}, {o['kind']} `{o['label']}`{detail}.{parses}{why}")
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
        out += ["", f"- **{reason}** ({len(items)})"]
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
    checks = "; ".join(f"{row['language']}: {row['syntax_check']}" for row in rows if row.get("syntax_check"))
    out = [
        "No model is involved: a script turns each exercise's stub into its reference solution, and this measures "
        "routing fidelity (does the gateway leave the bytes plain replacement leaves) and false refusals (refused "
        "steps whose text parses), not how well anything solves the exercises.",
        "",
        f"Machine: {machine}. Aider-AI/polyglot-benchmark at {commit}. The same change is cut five ways "
        "(`benchmarks/polyglot.py`): at the gateway's own definitions (one replacement per definition, then one per "
        "remaining hunk of lines, a step the gateway's syntax check dislikes merged away: `polyglot_edits.py`); and "
        "without the gateway (`polyglot_cuts.py`, seeded): difflib hunks with 0-4 random context lines, old_strings "
        "that start and end at random columns with a long change split in two mid-definition, the solution as one "
        "whole-file write, and the solution after the language's formatter as one write. Every edit goes through "
        "`Gateway.edit(..., route=True)`, every write through the gate and router. Structural = the gate blocked it as "
        "a change of definitions. Allowed/routed exact = the file afterwards is byte for byte what plain replacement "
        "gives (routing builds its result from the requested text, so routed exact is expected; a difference is the "
        "finding). Refused, text parses = refused steps whose plain result the language's own parser accepts "
        f"({checks}): the false refusals as far as syntax goes; one refused for another reason (a definition still "
        "referenced, a rename by text) may yet be right, and the case's explanation below says which. Not applied = old_string no longer once in the file after an earlier refusal or different route. "
        "Routed bytes from = what produced each routed result, read from the route's operations: `lsp:NAME` where the "
        "server's answer placed a definition, tree-sitter where no server answered. Tests: the exercise's own, every "
        "test enabled, on what the gateway left: pytest, `go test`, `cargo test -- --include-ignored`, jest, C++ "
        "through CMake with `EXERCISM_RUN_ALL_TESTS` (gigasecond and meetup need Debian's libboost-date-time-dev, which "
        "`make bench-polyglot` installs), Java compiled by javac and run by JUnit's console launcher (Gradle cannot "
        "download its distribution here). Languages run one at a time.",
        "",
    ]
    out += _cuts_table(rows)
    modes = list(dict.fromkeys(mode for row in rows for mode in row["modes"]))
    for mode in modes:
        name = CUTS.get(mode, mode)
        out += [""] + _groups(f"Refused steps, cut by {name}, by reason", _listing(rows, mode, "refused"))
        out += [""] + _groups(f"Routed steps, cut by {name}, whose result differs from plain replacement", _listing(rows, mode, "routed"))
    failures = _failures(rows)
    out += ["", "Tests that pass on the reference solution but fail after the gateway:" if failures else
            "Tests that pass on the reference solution but fail after the gateway: none."] + failures
    return "\n".join(out)
