"""Running a benchmark by hand leaves the tracked results alone; only --record writes them."""

from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WRITE = """
import sys
sys.path.insert(0, sys.argv[1])
from benchmarks.report import record, result_path
result_path("probe-output.json").write_text("{}")
record("probe", "probe-section", "Probe")
print(result_path("probe-output.json"))
"""


@pytest.mark.usefixtures("processes")
def test_a_benchmark_run_without_record_writes_only_ignored_files() -> None:
    results = ROOT / "benchmarks" / "RESULTS.md"
    before = results.read_bytes()
    done = subprocess.run([sys.executable, "-c", WRITE, str(ROOT)], capture_output=True, text=True, timeout=60, check=True)
    written = Path(done.stdout.strip())
    try:
        assert written.parent == ROOT / "benchmarks" / "results" / "local"
        assert results.read_bytes() == before
        assert "probe-section" in (written.parent / "RESULTS.md").read_text()
        for path in (written, written.parent / "RESULTS.md"):
            assert subprocess.run(["git", "check-ignore", "-q", str(path)], cwd=ROOT).returncode == 0, f"git tracks {path}"
    finally:
        written.unlink(missing_ok=True)


def _runs(target: str) -> list[str]:
    recipe = (ROOT / "Makefile").read_text().split(f"\n{target}:", 1)[1].split("\n\n", 1)[0]
    return [line for line in recipe.splitlines() if line.startswith("\t$(PY) benchmarks/")]


def test_make_bench_records_every_benchmark() -> None:
    """`make bench` records every benchmark but those that need third-party checkouts
    (`make bench-real REAL=paths`, which records too; `make bench-polyglot POLYGLOT=path` and
    `make bench-mistakes REAL=paths`, which record only when asked with RECORD=1: a LIMIT or
    LANGUAGES never implies it)."""
    bench, real = _runs("bench"), _runs("bench-real")
    polyglot = _runs("bench-polyglot") + _runs("bench-mistakes")
    assert bench and all(line.endswith("--record") for line in bench), bench
    assert real and all("--record" in line.split() for line in real), real
    assert polyglot and all("$(if $(RECORD),--record)" in line and "--record" not in line.split() for line in polyglot), polyglot
    runs = {Path(line.split()[1]).name for line in bench + real + polyglot}
    if "scale.py" in runs:  # issue 36's curves, one benchmark after another
        from benchmarks.scale import PARTS

        runs = (runs - {"scale.py"}) | {f"scale_{part}.py" for part in PARTS}
    assert runs == {p.name for p in (ROOT / "benchmarks").glob("*.py") if p.name != "report.py" and "record(" in p.read_text()}
