"""The mistakes benchmark keeps its check honest: on a small repository of its own kind (a module
under src/, checks under tests/), judged in process by compiling the module and running the
checks, a gateway that lets everything through catches nothing, one that refuses everything
refuses every correct edit, and the real gate (no language server) catches what it refuses.
Nothing is started: a process started here fails the test."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.mistakes import Row, Through, catalogue, host_apply, run_case, table
from benchmarks.mistakes_cases import LANGUAGES, Edit, cases
from benchmarks.mistakes_judges import Judge, Verdict
from gateway.api import Gateway

SHAPES = '''class Box:
    def __init__(self, side):
        self.side = side
        self.kind = "box"

    @property
    def area(self):
        value = self.side * self.side
        return value

    def scaled(self, factor):
        box = Box(self.side * factor)
        return box


def perimeter(box):
    total = box.side * 4
    return total


def lonely_helper(value):
    doubled = value * 2
    return doubled


def other_lonely(value):
    tripled = value * 3
    return tripled
'''
CHECKS = '''def check_area():
    assert Box(2).area == 4


def check_scaled():
    assert Box(1).scaled(3).side == 3


def check_perimeter():
    assert perimeter(Box(2)) == 8
'''


def _judge(root: Path) -> Verdict:
    """The module compiled and the checks run, in this process."""
    namespace: dict[str, object] = {}
    try:
        exec(compile((root / "src" / "shapes.py").read_text(), "shapes.py", "exec"), namespace)  # noqa: S102 - the fixture's own code
        exec(compile((root / "tests" / "checks.py").read_text(), "checks.py", "exec"), namespace)  # noqa: S102
    except Exception as error:  # noqa: BLE001 - any failure to load is the verdict
        return Verdict(frozenset({f"load: {type(error).__name__}"}), "in process")
    failed = set()
    for name in [n for n in namespace if n.startswith("check_")]:
        try:
            namespace[name]()  # type: ignore[operator]
        except Exception:  # noqa: BLE001
            failed.add(name)
    return Verdict(frozenset(failed), "in process")


JUDGE = Judge("python", "in process", _judge)


@pytest.fixture
def copies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args[:1]}")

    monkeypatch.setattr(subprocess.Popen, "__init__", refused)
    roots = tmp_path / "gateway", tmp_path / "judge"
    for root in roots:
        (root / "src").mkdir(parents=True)
        (root / "tests").mkdir()
        (root / "src" / "shapes.py").write_text(SHAPES)
        (root / "tests" / "checks.py").write_text(CHECKS)
    return roots


def _allow_everything(engine: object, root: Path, edit: Edit) -> Through:
    path = root / edit.path
    after = host_apply(path.read_text(), edit)
    assert after is not None
    path.write_text(after)
    return Through("allowed", "", after)


def _refuse_everything(engine: object, root: Path, edit: Edit) -> Through:
    return Through("refused", "Refused.", (root / edit.path).read_text())


def _rows(roots: tuple[Path, Path], through: Callable[[object, Path, Edit], Through] | None = None) -> list[Row]:
    gateway_root, judge_root = roots
    baseline = _judge(judge_root)
    assert not baseline.failures
    chosen = cases(judge_root, LANGUAGES["python"], limit=3)
    with Gateway(gateway_root, use_servers=False) as gateway:
        found = [run_case(case, gateway, gateway_root, judge_root, JUDGE, baseline, *([through] if through else [])) for case in chosen]
    assert (gateway_root / "src" / "shapes.py").read_text() == SHAPES, "a case was not put back"
    return [row for row in found if row is not None]


def test_a_gateway_that_allows_everything_catches_nothing_and_corrects_nothing(copies: tuple[Path, Path]) -> None:
    rows = _rows(copies, _allow_everything)
    harmed = [r for r in rows if r.harmed and not r.case.correct]
    assert len({r.case.kind for r in harmed}) >= 5, [(r.case.kind, r.case.name) for r in harmed]
    assert not any(r.caught or r.corrected for r in rows)
    assert all(r.gateway_harmed == r.harmed for r in rows)
    assert table(rows, catalogue())[-1].split("|")[4:7] == [f" {len(harmed)} ", " 0 ", " 0 "]


def test_a_gateway_that_refuses_everything_refuses_every_correct_edit(copies: tuple[Path, Path]) -> None:
    rows = _rows(copies, _refuse_everything)
    correct = [r for r in rows if r.counted_correct]
    assert correct and all(r.false_refusal for r in correct)
    assert all(r.caught for r in rows if r.harmed and not r.case.correct)


def test_the_real_gate_catches_what_it_refuses_and_lets_correct_edits_through(copies: tuple[Path, Path]) -> None:
    rows = _rows(copies)
    caught = {r.case.kind for r in rows if r.caught}
    assert {"duplicates_header", "splices_into_wrong_body", "removes_used_code"} <= caught, [
        (r.case.kind, r.through.decision, r.through.said[:80]) for r in rows]
    assert all(r.through.decision == "refused" for r in rows if r.caught)  # no server here: nothing is told after a write
    assert not [r.case.name for r in rows if r.false_refusal]


def test_every_kind_generated_is_in_the_catalogue_with_the_reports_it_comes_from(copies: tuple[Path, Path]) -> None:
    kinds = catalogue()
    generated = {case.kind for case in cases(copies[1], LANGUAGES["python"], limit=3)}
    assert generated == set(kinds)
    for kind in kinds.values():
        assert kind["citations"] and all(str(c["url"]).startswith("https://github.com/") and c["quote"] for c in kind["citations"])  # type: ignore[attr-defined, index]
