"""`make bench-selfcheck` (benchmarks/selfcheck.py): the benchmarks' checks against wrong
implementations, in process and on tree-sitter alone (it starts nothing)."""

from __future__ import annotations

from benchmarks.selfcheck import selfcheck
from benchmarks.selfcheck_wrong import WRONG
from gateway.gate import checker
from gateway.symbols import operations, routing, service


def test_a_check_made_lenient_fails_the_selfcheck() -> None:
    """classify_latency has one check: made to pass everything, nothing of that benchmark catches (g)."""
    report, passed = selfcheck(only={"g"}, sabotaged={"classify_latency:verdicts"})
    assert not passed
    assert "(g) a gate that allows everything: no check of classify_latency caught it" in report


def test_bench_selfcheck_passes() -> None:
    """The whole of `make bench-selfcheck`: every wrong implementation caught by every benchmark it
    applies to (the known gaps aside, which say so), on each language of the sample found here;
    among them (g), a gate that allows everything, by the four benchmarks it applies to."""
    report, passed = selfcheck()
    assert passed, report
    rows = [line for line in report.splitlines() if line.startswith("| (g)")]
    assert [row.split(" | ")[1] for row in rows] == ["replay", "polyglot", "classify_latency", "scale_cxx"], report
    assert all("NOT CAUGHT" not in row for row in rows), report
    assert "| replay | gate against the oracle, routed exact, backend label | gate against the oracle (in python) |" in report
    assert "| (e) remove that leaves the decorator or the leading comment | round_trips | round trip | round trip (in " in report
    assert all("not caught on BASE" in line for line in report.splitlines() if "**NOT CAUGHT**" in line), report


def test_the_swaps_are_undone() -> None:
    originals = (checker.classify_effect, operations.remove_text, operations.insert_text, service.replace_text, routing.plan_route)
    for wrong in WRONG:
        with wrong.swap():
            pass
    assert (checker.classify_effect, operations.remove_text, operations.insert_text, service.replace_text, routing.plan_route) == originals
