"""The polyglot benchmark's independent cuts (seeded, owing nothing to the gateway) and its honest labels."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import benchmarks
from benchmarks import polyglot, polyglot_cuts
from benchmarks.polyglot_cuts import Cut, hunk_cuts, middle_cuts, occurs_once, plain, seeded
from benchmarks.polyglot_drive import bytes_from
from benchmarks.polyglot_edits import Exercise, FilePair
from benchmarks.polyglot_report import NOT_EXPLAINED, explanations, render
from benchmarks.polyglot_syntax import SyntaxCheck
from gateway.langs import default_registry
from gateway.symbols.routing import RoutedOperation
from tests.conftest import langs_with_python_server

STUB = '''import os


class Cell:
    def __init__(self, value):
        pass

    def get(self):
        pass


def helper():
    pass
'''
SOLUTION = '''import os
import sys


class Base:
    pass


class Cell(Base):
    def __init__(self, value):
        self.value = value
        self.seen = []

    def get(self):
        self.seen.append(self.value)
        return self.value

    def set(self, value):
        self.value = value
'''
JS_STUB = "export const f = () => {\n  throw new Error('x');\n};\n\nexport class List {\n  constructor() {\n    throw new Error('x');\n  }\n}\n"
JS_SOLUTION = ("export const f = () => {\n  return 1;\n};\n\nconst Null = {\n  push(item) {\n    return item;\n  },\n};\n\n"
               "export class List {\n  constructor() {\n    this.head = Null;\n    this.size = 0;\n  }\n\n  get length() {\n    return this.size;\n  }\n}\n")
PAIRS = [(STUB, SOLUTION), (JS_STUB, JS_SOLUTION), (SOLUTION, STUB), ("a\n" * 30, "a\n" * 10 + "b\n" + "a\n" * 19 + "c")]
CUTTERS = [hunk_cuts, middle_cuts]


def _cuts(cutter, before: str, after: str, seed: str) -> list[Cut]:  # type: ignore[no-untyped-def]
    return cutter(before, after, seeded("test", seed))


@pytest.mark.parametrize("cutter", CUTTERS)
@pytest.mark.parametrize(("before", "after"), PAIRS)
def test_cuts_applied_in_order_give_the_after_text_each_old_string_once(cutter, before: str, after: str) -> None:  # type: ignore[no-untyped-def]
    for seed in map(str, range(20)):
        cuts, text = _cuts(cutter, before, after, seed), before
        assert cuts
        for cut in cuts:
            assert cut.old.strip() and occurs_once(text, cut.old) and cut.old != cut.new, cut
            text = text.replace(cut.old, cut.new, 1)
        assert text == after == plain(before, cuts)


@pytest.mark.parametrize("cutter", CUTTERS)
def test_cuts_are_seeded(cutter) -> None:  # type: ignore[no-untyped-def]
    runs = {seed: _cuts(cutter, STUB, SOLUTION, seed) for seed in map(str, range(12))}
    assert all(_cuts(cutter, STUB, SOLUTION, seed) == cuts for seed, cuts in runs.items())
    assert len({tuple(cuts) for cuts in runs.values()}) > 1  # other seeds, other cuts


def test_hunks_have_random_context_widths() -> None:
    """Each hunk is whole lines, with 0 to 4 lines of context that vary from seed to seed."""
    before = "".join(f"line {n}\n" for n in range(30))
    widths = set()
    for seed in map(str, range(30)):
        (cut,) = _cuts(hunk_cuts, before, before.replace("line 15\n", "changed\n"), seed)
        assert cut.old.endswith("\n") and cut.new.count("changed") == 1 and cut.old.startswith("line ")
        widths.add(cut.old.count("\n"))
    assert len(widths) >= 4


def test_middle_cuts_start_and_end_mid_line_and_split_long_changes() -> None:
    starts_mid = ends_mid = splits = 0
    for seed in map(str, range(20)):
        text = STUB
        cuts = _cuts(middle_cuts, STUB, SOLUTION, seed)
        splits += len(cuts) > len(_cuts(hunk_cuts, STUB, SOLUTION, seed))
        for cut in cuts:
            at = text.index(cut.old)
            starts_mid += at > 0 and text[at - 1] != "\n"
            ends_mid += not cut.old.endswith("\n")
            text = text.replace(cut.old, cut.new, 1)
    assert starts_mid >= 20 and ends_mid >= 20 and splits >= 10


def test_the_cut_points_owe_nothing_to_the_gateway(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cutters give the same cuts with every gateway module unimportable (so its symbols,
    syntax and definitions play no part); today's cut, by definitions, cannot run so."""
    expected = {cutter.__name__: _cuts(cutter, STUB, SOLUTION, "same") for cutter in CUTTERS}
    for name in [name for name in sys.modules if name == "gateway" or name.startswith("gateway.")]:
        monkeypatch.setitem(sys.modules, name, None)  # type: ignore[arg-type]
    monkeypatch.delitem(sys.modules, "benchmarks.polyglot_cuts")
    monkeypatch.setattr(benchmarks, "polyglot_cuts", polyglot_cuts)  # put back after the fresh import
    fresh = importlib.import_module("benchmarks.polyglot_cuts")
    assert fresh is not polyglot_cuts
    assert {name: getattr(fresh, name)(STUB, SOLUTION, fresh.seeded("test", "same")) for name in expected} == {
        name: [fresh.Cut(**cut.__dict__) for cut in cuts] for name, cuts in expected.items()}
    monkeypatch.delitem(sys.modules, "benchmarks.polyglot_edits", raising=False)
    with pytest.raises(ImportError):
        importlib.import_module("benchmarks.polyglot_edits")


def test_a_language_without_a_formatter_sends_no_formatted_write() -> None:
    assert polyglot_cuts.formatted("cpp", "int main() {}\n") is None
    assert polyglot_cuts.formatted("java", "class A {}\n") is None


def _operation(tool: str, backend: str) -> RoutedOperation:
    return RoutedOperation(tool, "f", "m.py", 1, 2, backend)


def test_bytes_from_names_a_server_only_where_its_answer_placed_a_definition() -> None:
    assert bytes_from([_operation("replace_symbol", "lsp:zuban"), _operation("text", "lsp:zuban")]) == "lsp:zuban"
    assert bytes_from([_operation("text", "lsp:zuban")]) == "tree-sitter"  # a text change: no server placed it
    assert bytes_from([_operation("insert_code", "tree-sitter")]) == "tree-sitter"


def test_with_every_server_hidden_the_routes_are_labelled_tree_sitter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run whose Python server is not installed routes by tree-sitter, and says so."""
    monkeypatch.setenv("GATEWAY_LANGS_DIR", str(langs_with_python_server(tmp_path, ["no-such-python-server"])))
    default_registry.cache_clear()  # the registry of the language data above, not one read before
    try:
        _route_with_servers_hidden(tmp_path, monkeypatch)
    finally:
        default_registry.cache_clear()


def _route_with_servers_hidden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(polyglot, "WORKSPACES", tmp_path / "workspaces")
    folder = tmp_path / "cell"
    folder.mkdir()
    (folder / "cell.py").write_text(STUB)
    exercise = Exercise("python", "cell", folder, (FilePair("cell.py", STUB, SOLUTION),))
    modes = ["edits", "hunks", "write"]
    per_exercise = []
    for mode in modes:
        servers, found = polyglot._mode("python", mode, [exercise], SyntaxCheck("python"))
        outcomes = found["cell"]["outcomes"]
        assert servers == {} and found["cell"]["solution"]
        assert {o.via for o in outcomes if o.status == "routed"} == {"tree-sitter"}, outcomes
        per_exercise.append({mode: {"outcomes": [o.to_json() for o in outcomes], "solution": True}})
    entry = {"exercise": "cell", "tests": {}, **{k: v for e in per_exercise for k, v in e.items()}}
    row = {"language": "python", "servers": {}, "formatter": None, "syntax_check": "python ast", "exercises": 1,
           "modes": modes, "summary": polyglot.summarize([entry], modes), "per_exercise": [entry]}
    table = render([row], "m", "c")
    assert table.startswith("No model is involved")
    assert "| lsp:" not in table and table.count("| tree-sitter: ") == len(modes)


def test_a_refusal_without_its_own_explanation_is_not_yet_explained() -> None:
    outcome = {"path": "pov/pov.go", "kind": "write", "label": "pov/pov.go", "status": "refused", "reason": "not routed: rename",
               "structural": True, "exact": None, "ms": 1.0}
    other = {**outcome, "path": "x/x.go", "label": "x/x.go"}
    entry = {"exercise": "pov", "tests": {}, "write": {"outcomes": [outcome, other], "solution": False}}
    row = {"language": "go", "servers": {}, "exercises": 1, "modes": ["write"],
           "summary": polyglot.summarize([entry], ["write"]), "per_exercise": [entry]}
    table = render([row], "m", "c")
    written = explanations()[("go", "pov", "write", "pov/pov.go", "pov/pov.go", "not routed: rename")]
    assert table.count(written) == 1 and table.count(NOT_EXPLAINED) == 1


def test_a_partial_run_is_never_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "python" / "exercises").mkdir(parents=True)
    monkeypatch.setattr(sys, "argv", ["polyglot.py", str(tmp_path), "--limit", "5", "--record"])
    with pytest.raises(SystemExit) as refused:
        polyglot.main()
    assert refused.value.code == 2 and "--record records whole runs only" in capsys.readouterr().err


def test_a_refusal_is_checked_by_the_languages_own_parser(tmp_path: Path) -> None:
    check = SyntaxCheck("python")
    assert check.parses("m.py", SOLUTION, tmp_path) is True
    assert check.parses("m.py", SOLUTION.replace("    def get(self):\n", "    def get(self:\n"), tmp_path) is False
