"""Shared by the benchmarks: percentiles, the machine's description, and RESULTS.md sections."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


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
    """Replace (or append) the section between `<!-- marker:start/end -->` in RESULTS.md."""
    text = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    start, end = f"<!-- {marker}:start -->", f"<!-- {marker}:end -->"
    block = f"{start}\n{markdown}\n{end}"
    if start in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + f"\n\n## {title}\n\n{block}\n"
    RESULTS.write_text(text)
