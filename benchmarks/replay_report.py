"""The replay benchmark's tables and chart for RESULTS.md (benchmarks/replay.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.report import bar_chart, machine


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def render(rows: list[dict[str, Any]], corpus: str) -> str:
    out = [
        f"Machine: {machine()}. Corpus: {corpus}. Edits: every hunk (`git diff -U2`) as old_string/new_string, "
        "judged on the file before the commit; the same changes are also cut without git or the gateway (cut: difflib "
        "hunks with 0-4 random context lines; mid-line old_strings, a long change split mid-definition, one after another; "
        "the after-file as one edit; the same formatted by ruff format, gofmt, rustfmt or TypeScript's formatDocument; `benchmarks/replay_cuts.py`). Missed = structural edits (per the oracle) the gate let through, "
        "of all structural ones; false blocks = blocked edits the oracle calls body-only or no-definition, "
        "of all judged multi-line edits.",
        "",
        "| language | cut | oracle | edits (multi-line) | judged | structural | ours blocked | ours missed | ours false blocks "
        "| keyword blocked | keyword missed | keyword false blocks | refused as syntax errors | classify p50 / p99 ms |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        ours, kw, ms = r["ours"], r["keyword"], r["classify_ms"]
        out.append(
            f"| {r['language']} | {r.get('cut', 'git')} | {r['oracle'] or '–'} | {r['edits']} ({r['multi_line']}) | {r['judged']} | {r['structural']} "
            f"| {_pct(ours['block_rate'])} | {ours['missed']} ({_pct(ours['missed_rate'])}) "
            f"| {ours['false_blocks']} ({_pct(ours['false_block_rate'])}) | {_pct(kw['block_rate'])} "
            f"| {kw['missed']} ({_pct(kw['missed_rate'])}) | {kw['false_blocks']} ({_pct(kw['false_block_rate'])}) "
            f"| {r['syntax_refused']} | {ms['p50']:.1f} / {ms['p99']:.1f} |" if ms else f"| {r['language']} | {r.get('cut', 'git')} | – | 0 | | | | | | | | | | |"
        )
    out += ["", "Routing: every edit our gate blocked, performed as symbol operations (`edit --route`, in memory). "
            "Clean = the edited file has no more syntax errors than the original. Exact = the result is byte for byte "
            "the edit's own result.", "",
            "| language | cut | blocked | clean | routed exact | exact of clean | routed, different | refused (reason: count) "
            "| routed bytes from | route p50 / p99 ms |", "|---|---|---:|---:|---:|---:|---:|---|---|---:|"]
    for r in rows:
        t = r["routing"]
        refused = ", ".join(f"{k}: {v}" for k, v in sorted(t["refused"].items())) or "–"
        backends = ", ".join(f"{name}: {count}" for name, count in sorted(t["backends"].items())) or "–"
        ms = f"{t['route_ms']['p50']:.1f} / {t['route_ms']['p99']:.1f}" if t["route_ms"] else "–"
        out.append(f"| {r['language']} | {r.get('cut', 'git')} | {t['blocked']} | {t['clean']} | {t['exact']} | {t['exact_clean']} ({_pct(t['exact_rate_clean'])}) "
                   f"| {t['different']} | {refused} | {backends} | {ms} |")
    unjudged = {f"{r['language']} ({r.get('cut', 'git')}): {k}": v for r in rows for k, v in r["unjudged"].items()}
    if unjudged:
        out += ["", "Not judged: " + "; ".join(f"{k} ({v})" for k, v in unjudged.items()) + "."]
    return "\n".join(out)


def chart(rows: list[dict[str, Any]], target: Path) -> None:
    shown = [r for r in rows if r["judged"] and r.get("cut", "git") == "git"]
    bar_chart([r["language"] for r in shown], [
        ("ours: missed structural", [r["ours"]["missed_rate"] or 0 for r in shown], "#045a8d"),
        ("ours: false block", [r["ours"]["false_block_rate"] or 0 for r in shown], "#2b8cbe"),
        ("keyword: missed structural", [r["keyword"]["missed_rate"] or 0 for r in shown], "#e6550d"),
        ("keyword: false block", [r["keyword"]["false_block_rate"] or 0 for r in shown], "#fdae6b"),
    ], "Real-edit replay: gate errors per language, ours vs. a keyword gate", target)
