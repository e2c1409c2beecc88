"""The report of `speed_targets.py`: its table rows, each a median (p90) and a ratio to what
was measured side by side in the same run, against the issue's target."""

from __future__ import annotations

import os
import statistics

from benchmarks.report import machine, percentile

FILES = {"ascii": "argparse.py", "one é": "argparse_e.py", "4 copies, 4 é": "argparse_x4.py"}
TARGETS = {"ascii": 2.0, "one é": 2.0, "4 copies, 4 é": 3.0}
MCP_FIRST_CALL_AFTER = 2.5  # seconds after `gateway mcp` started: an agent's first call comes after its model's first turn


def paired(samples: dict[str, list[float]], name: str, base: str) -> float:
    """The median of each run's ratio to the `python -c pass` run just before it: steadier than
    a ratio of medians while other work comes and goes on the machine."""
    return statistics.median(value / before for value, before in zip(samples[name], samples[base], strict=True))


def report(samples: dict[str, list[float]]) -> str:
    med = {name: statistics.median(values) for name, values in samples.items()}
    server = med["documentSymbol"] + med["atomic write"]
    lines = [
        f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f} at the end. Medians (p90) in ms of interleaved runs; a hook's "
        "ratio is the median of each run's ratio to the `python -c pass` run just before it.",
        "", "| what | ms | compared with | ratio | target | |", "|---|---:|---|---:|---:|---|",
    ]
    lines += hook_rows(samples)
    ratio = paired(samples, "edit after edit", "python -c pass (edit after edit)")
    lines.append(f"| the same, edit after edit: the host wrote each result, ran its PostToolUse hook, and the next edit came 1 s later "
                 f"| {med['edit after edit']:.0f} ({percentile(samples['edit after edit'], 0.9):.0f}) "
                 f"| `python -c pass` {med['python -c pass (edit after edit)']:.0f} | {ratio:.2f}× | ≤ 2× | {_met(ratio <= 2)} |")
    ratio = med["replace-symbol (daemon)"] / server
    lines.append(f"| warm `replace-symbol` on argparse.py (daemon) | {med['replace-symbol (daemon)']:.0f} "
                 f"({percentile(samples['replace-symbol (daemon)'], 0.9):.0f}) | the server's documentSymbol {med['documentSymbol']:.0f} "
                 f"+ an atomic write {med['atomic write']:.0f} | {ratio:.2f}× | ≤ 1.3× | {_met(ratio <= 1.3)} |")
    lines += first_rows(samples)
    lines.append(f"| `gateway daemon start` until the server it starts ahead has answered for the newest file "
                 f"| {med['server started ahead, answered']:.0f} | `gateway daemon start` {med['daemon start']:.0f} "
                 f"| {med['server started ahead, answered'] / med['daemon start']:.2f}× | | |")
    for which in ("that file", "another file"):
        name = f"symbols after start, {which}"
        ratio = med[name] / med["daemon start"]
        lines.append(f"| first `gateway symbols` after that, on {which} | {med[name]:.0f} ({percentile(samples[name], 0.9):.0f}) "
                     f"| `gateway daemon start` {med['daemon start']:.0f} | {ratio:.2f}× | ≤ 2× | {_met(ratio <= 2)} |")
    for what, label in (("tools/list", "`gateway mcp` in a fresh workspace: tools/list answered"),
                        ("first find_symbol", f"its first `find_symbol` (argparse.py), {MCP_FIRST_CALL_AFTER:g} s after it started")):
        ours, off = med[f"mcp: {what}"], med[f"mcp, daemons off: {what}"]
        lines.append(f"| {label} | {ours:.0f} ({percentile(samples[f'mcp: {what}'], 0.9):.0f}) | the same with daemons off {off:.0f} "
                     f"| {ours / off:.2f}× | | |")
    return "\n".join(lines)


def first_rows(samples: dict[str, list[float]]) -> list[str]:
    med = {name: statistics.median(values) for name, values in samples.items()}
    ratio = med["first symbols"] / med["daemon start"]
    server = med["server start + first documentSymbol"]
    second = med["second symbols"] / med["daemon start"]
    return [f"| first `gateway symbols` in a workspace (no daemon yet) | {med['first symbols']:.0f} "
            f"({percentile(samples['first symbols'], 0.9):.0f}) | `gateway daemon start` {med['daemon start']:.0f} | {ratio:.2f}× | ≤ 2× "
            f"| {_met(ratio <= 2)} |",
            f"| of which the Python server's own start and first documentSymbol on argparse.py (in process) | {server:.0f} | "
            f"`gateway daemon start` {med['daemon start']:.0f} | {server / med['daemon start']:.2f}× | | |",
            f"| the second `gateway symbols` on that file, once the daemon the first started has its server ahead for it "
            f"| {med['second symbols']:.0f} ({percentile(samples['second symbols'], 0.9):.0f}) | `gateway daemon start` "
            f"{med['daemon start']:.0f} | {second:.2f}× | | |"]


def hook_rows(samples: dict[str, list[float]]) -> list[str]:
    base, rows = statistics.median(samples["python -c pass"]), []
    for kind in FILES:
        ratio, med = paired(samples, kind, f"pass before {kind}"), statistics.median(samples[kind])
        rows.append(f"| routed header edit through the hook, warm daemon, {_describe(kind)} | {med:.0f} ({percentile(samples[kind], 0.9):.0f}) "
                    f"| `python -c pass` {base:.0f} | {ratio:.2f}× | ≤ {TARGETS[kind]:g}× | {_met(ratio <= TARGETS[kind])} |")
    return rows


def _describe(kind: str) -> str:
    return {"ascii": "argparse.py (2,630 lines)", "one é": "argparse.py with one `é` (2,630 lines)",
            "4 copies, 4 é": "four copies of argparse.py with four `é` (10,520 lines)"}[kind]


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"
