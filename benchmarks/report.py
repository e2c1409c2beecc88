"""Shared by the benchmarks: percentiles, the machine's description, and where results go.

Only a run given `--record` writes the tracked results (RESULTS.md, results/*.json and *.png);
any other run writes the same files under results/local/, which git ignores.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
RESULTS_DIR = RESULTS.parent / "results"


def recording() -> bool:
    """`--record` on the command line: this run writes the tracked results."""
    return "--record" in sys.argv[1:]


def result_path(name: str) -> Path:
    """Where a result file goes: results/ when recording, results/local/ otherwise."""
    directory = RESULTS_DIR if recording() else RESULTS_DIR / "local"
    directory.mkdir(parents=True, exist_ok=True)
    return directory / name


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def process_median_ms(command: list[str], cwd: Path, stdin: str | None, runs: int) -> float:
    """The median wall time of running `command` to its end, `runs` times."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, cwd=cwd, capture_output=True, check=False, input=stdin, text=True)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def record(markdown: str, marker: str, title: str) -> None:
    """Replace the section between `<!-- marker:start/end -->` in RESULTS.md (results/local/RESULTS.md
    unless recording), or append it as a new `###` section at the end: RESULTS.md is grouped by
    topic, so a new section is then moved under its topic by hand."""
    target = RESULTS if recording() else result_path("RESULTS.md")
    text = target.read_text() if target.exists() else "# Benchmark results\n"
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    block = f"{start}\n{markdown}\n{end}"
    if start in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + f"\n\n### {title}\n\n{block}\n"
    target.write_text(text)
    print(f"recorded in {target.relative_to(RESULTS.parent.parent)}", file=sys.stderr)


def bar_chart(names: list[str], series: list[tuple[str, list[float], str]], title: str, target: Path) -> None:
    """Grouped bars, one group per name, one bar per (label, fractions, colour) series, in percent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / max(len(series), 1)
    middle = (len(series) - 1) / 2
    for k, (label, values, colour) in enumerate(series):
        axes.bar([i + (k - middle) * width for i in range(len(names))], [100 * v for v in values], width, label=label, color=colour)
    axes.set_xticks(range(len(names)), names)
    axes.set_ylabel("% (vs. independent oracle)")
    axes.set_title(title)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(target, dpi=110)
