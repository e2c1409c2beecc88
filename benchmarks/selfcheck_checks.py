"""The benchmarks' own checks, run on the self-check's fixed sample (`benchmarks/selfcheck.py`).

Each function takes the sample's files, runs one benchmark's checks on them, by the names the
benchmark itself calls them, in a fresh workspace with tree-sitter alone (no language server, no
process: the swaps are in-process), and returns a `Score` per check: what it tried, and the
failures it reported, one line each.
"""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from tree_sitter_language_pack import get_parser

from benchmarks.classify_latency import EDITS_PER_KIND, generate_edits, verdict_problems
from benchmarks.hunks import ReplayEdit
from benchmarks.matrix_ops import OPERATIONS, OperationTally, check_definition, check_symbols
from benchmarks.oracle import AstOracle
from benchmarks.polyglot_drive import Outcome, send_edit, send_write
from benchmarks.polyglot_checks import outcome_problems
from benchmarks.polyglot_edits import Exercise, FilePair, definition_edits, exercises
from benchmarks.replay import LanguageRun, OracleCache, judge
from benchmarks.round_trips import Trips, round_trip_file
from benchmarks.scale_cxx import header_edit, verdict_problem
from gateway.api import Gateway
from gateway.errors import GatewayError
from gateway.gate.checker import Gate
from gateway.langs import default_registry
from gateway.syntax import Definition, find_definitions
from tests.roundtrip import definition_count, round_trip

PER_FILE = 5  # definitions per file, spread over it, for the matrix's checks and the round trips


@dataclass(frozen=True)
class SampleFile:
    language: str
    name: str  # in the workspace
    origin: str
    text: str


@dataclass(frozen=True)
class Score:
    tried: int
    failures: tuple[str, ...]


@contextlib.contextmanager
def workspace(files: list[SampleFile]) -> Iterator[tuple[Gateway, Path]]:
    root = Path(tempfile.mkdtemp(prefix="selfcheck-"))
    try:
        for source in files:
            (root / source.name).write_text(source.text)
        with Gateway(root, use_servers=False) as gateway:
            yield gateway, root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _spread(count: int) -> list[int]:
    return sorted(set(range(0, count, max(1, count // PER_FILE))))[:PER_FILE]


def rename_judge() -> object | None:
    """Python's rename judge (its compiler's symbol tables, in process), which the matrix's rename
    check takes once issue 37's reference oracles are in (benchmarks/references_python.py, branch
    i37-oracles); None before: the rename check then renames and renames back, and no more."""
    try:
        from benchmarks.references_python import PythonScopes  # type: ignore[import-not-found]
    except ImportError:
        return None
    return PythonScopes()


def matrix(files: list[SampleFile]) -> dict[str, Score]:
    """matrix_ops's check_symbols (Python, against its `ast` oracle), check_definition (find,
    replace, rename, judged for Python by `rename_judge` where there is one) and the round trip
    (remove+insert), as matrix.run_language calls them."""
    tally = OperationTally()
    judge = rename_judge()
    with workspace(files) as (gateway, root):
        for source in files:
            if source.language == "python":
                check_symbols(gateway, source.name, AstOracle().definitions(root / source.name, source.text), tally)
            judged = [judge] if judge is not None and source.language == "python" else []
            for index in _spread(definition_count(gateway, source.name)):
                check_definition(gateway, root, source.name, index, tally, *judged)
                try:
                    outcome = round_trip(gateway, root, source.name, index)
                except GatewayError as error:
                    tally.add("remove+insert", False, f"{source.name}: round trip #{index}: {error.kind}: {error}")
                    (root / source.name).write_text(source.text)
                    continue
                if outcome is not None:
                    tally.add("remove+insert", outcome[1], f"{source.name}: round trip of {outcome[0]}")
    return {op: Score(tally.counts[op][1], tuple(f for f in tally.failures if f.startswith(f"{op}: "))) for op in OPERATIONS}


def round_trips(files: list[SampleFile]) -> dict[str, Score]:
    trips = Trips()
    with workspace(files) as (gateway, root):
        for source in files:
            round_trip_file(gateway, root, source.name, PER_FILE, trips)
    return {"round trip": Score(trips.checked + trips.refused, (*trips.misses, *(["removal refused"] * trips.refused)))}


def _unique_multiline(text: str, found: list[Definition]) -> list[tuple[Definition, str]]:
    data = text.encode()
    picked = []
    for d in found:
        code = data[d.start_byte : d.end_byte].decode()
        if "\n" in code and text.count(code) == 1:
            picked.append((d, code))
    return picked


def _comment(language: str) -> str:
    return "# selfcheck: a note" if language == "python" else "// selfcheck: a note"


def _body_line(text: str, d: Definition) -> tuple[str, str] | None:
    """(old, new): two lines inside the definition's body, with a comment line put between them."""
    lines = text.splitlines(keepends=True)
    for first in range(d.name_line, d.end_line - 2):  # 0-based: the lines after the name's
        old = lines[first] + lines[first + 1]
        indent = lines[first + 1][: len(lines[first + 1]) - len(lines[first + 1].lstrip())]
        if lines[first].strip() and lines[first + 1].strip() and text.count(old) == 1:
            return old, lines[first] + indent + _comment("") + "\n" + lines[first + 1]
    return None


def _replay_edits(source: SampleFile) -> list[ReplayEdit]:
    """Edits an agent sends, cut from the file: two definitions removed, two bodies changed by a
    comment line, one definition copied under a new name beside itself."""
    lang = default_registry().get(source.language)
    picked = _unique_multiline(source.text, find_definitions(lang, source.text.encode()))
    edits: list[tuple[str, str]] = [(code, "") for _, code in picked[1:3]]
    for d, _ in picked[3:]:
        body = _body_line(source.text, d)
        if body is not None and len(edits) < 4:
            body = (body[0], body[1].replace(_comment(""), _comment(source.language)))
            edits.append(body)
    if picked:
        d, code = picked[-1]
        at = source.text.encode()[d.start_byte : d.name_start_byte].decode()
        copy = code[: len(at)] + d.name + "Copy" + code[len(at) + len(d.name) :]
        indent = source.text[: source.text.index(code)].rsplit("\n", 1)[-1]
        edits.append((code, code + "\n\n" + indent + copy))
    return [ReplayEdit(Path("selfcheck"), "", "", source.name, source.text[: source.text.index(old)].count("\n") + 1, source.language,
                       source.text, old, new) for old, new in edits]


def replay(files: list[SampleFile]) -> dict[str, Score]:
    """replay.judge on each edit (the gate against Python's `ast` oracle; every blocked edit routed)."""
    gate: list[str] = []
    routing: list[str] = []
    labels: list[str] = []
    judged = routed = 0
    with workspace(files) as (gateway, root):
        for source in files:
            run = LanguageRun(source.language, None)
            path = root / source.name
            cache = OracleCache(AstOracle(), path) if source.language == "python" else None
            for edit in _replay_edits(source):
                judge(run, edit, cache, gateway, path)
            judged += run.judged
            gate += [f"{d['path']}:{d['line']}: {d['outcome']}" for d in run.disagreements]
            routes = run.routes
            routed += routes.blocked
            routing += [f"{source.name}: {routes.different} routed, different"] * bool(routes.different)
            routing += [f"{source.name}: refused ({reason}): {n}" for reason, n in routes.refused.items()]
            labels += [f"{source.name}: {routes.mislabeled} route(s) named a server that was not running"] * bool(routes.mislabeled)
    return {"gate against the oracle": Score(judged, tuple(gate)), "routed exact": Score(routed, tuple(routing)),
            "backend label": Score(routed, tuple(labels))}


def _stub(source: SampleFile) -> str:
    """The file as an exercise's stub: one definition taken out, a comment line put into another's body."""
    lang = default_registry().get(source.language)
    picked = _unique_multiline(source.text, find_definitions(lang, source.text.encode()))
    stub = source.text
    if len(picked) > 2:
        stub = stub.replace(picked[1][1], "", 1)
    for d, _ in picked[2:]:
        body = _body_line(source.text, d)
        if body is not None and body[0] in stub:
            return stub.replace(body[0], body[1].replace(_comment(""), _comment(source.language)), 1)
    return stub


# With a checkout of Aider-AI/polyglot-benchmark: one exercise per language, fixed by name.
POLYGLOT_EXERCISES = {"python": "book-store", "go": "book-store", "javascript": "book-store", "java": "book-store", "rust": "book-store",
                      "cpp": "clock"}


def _built_in_exercises(files: list[SampleFile]) -> list[Exercise]:
    """Each sample file as an exercise: its stub (`_stub`) to be turned into the file itself."""
    return [Exercise(f.language, f"sample-{f.language}", Path(f.origin), (FilePair(f.name, _stub(f), f.text),)) for f in files]


def _checkout_exercises(checkout: Path) -> list[Exercise]:
    """The fixed exercises, named by language too (the same exercise of two languages shares a workspace)."""
    return [dataclasses.replace(e, name=f"{language}-{name}") for language, name in POLYGLOT_EXERCISES.items()
            for e in exercises(checkout, language) if e.name == name]


def _send(gateway: Gateway, exercise: Exercise) -> tuple[list[Outcome], list[str]]:
    """What polyglot's `edits` mode sends for the exercise (polyglot_edits' edits through
    polyglot_drive.send_edit, a new file through send_write), each edit's outcome checked by
    polyglot_checks."""
    outcomes, problems = [], []
    for pair in exercise.files:
        path = f"{exercise.name}/{pair.path}"
        if pair.stub is None:
            outcomes.append(send_write(gateway, path, pair.solution, exercise.language))
            continue
        for edit in definition_edits(gateway.registry, pair):
            edit = dataclasses.replace(edit, path=path)
            before = (gateway.workspace.root / path).read_bytes().decode("utf-8")
            outcomes.append(send_edit(gateway, edit, exercise.language))
            problems += outcome_problems(gateway, exercise.language, before, edit, outcomes[-1])
    return outcomes, problems


def polyglot(files: list[SampleFile], checkout: Path | None = None) -> dict[str, Score]:
    """Polyglot's edits (`_send`) on the built-in exercises, or on `checkout`'s fixed ones; then
    whether each exercise reached its solution."""
    chosen = _checkout_exercises(checkout) if checkout is not None else _built_in_exercises(files)
    outcomes: list[Outcome] = []
    problems: list[str] = []
    with workspace([]) as (gateway, root):
        for exercise in chosen:
            if checkout is not None:
                shutil.copytree(exercise.directory, root / exercise.name, ignore=shutil.ignore_patterns(".*"))
            for pair in exercise.files:
                if checkout is None:
                    (root / exercise.name).mkdir(exist_ok=True)
                    (root / exercise.name / pair.path).write_text(pair.stub or "")
            sent, found = _send(gateway, exercise)
            outcomes += sent
            problems += found
            for pair in exercise.files:
                if (root / exercise.name / pair.path).read_text() != pair.solution:
                    outcomes.append(Outcome(f"{exercise.name}/{pair.path}", "file", pair.path, "not_applied", "the solution was not reached",
                                            False, None, 0.0))
    said = [f"{o.path}: {o.kind} {o.label}: {o.status} ({o.reason})" for o in outcomes]
    return {
        "exact": Score(len(outcomes), tuple(s for s, o in zip(said, outcomes, strict=True) if o.status == "not_applied" or o.exact is False)),
        "false refusals": Score(len(outcomes), tuple(s for s, o in zip(said, outcomes, strict=True) if o.status == "refused")),
        "definition edits judged structural": Score(
            len(outcomes), tuple(s for s, o in zip(said, outcomes, strict=True) if o.kind in ("insert", "remove") and o.status == "allowed")),
        "backend label": Score(len(outcomes), tuple(p for p in problems if "which was not running" in p)),
        "verdict against the oracle (Python)": Score(
            sum(o.path.endswith(".py") for o in outcomes), tuple(p for p in problems if "python ast" in p)),
    }


def classify_latency(files: list[SampleFile]) -> dict[str, Score]:
    tried, problems = 0, []
    for source in files:
        edits = generate_edits(source.language, source.name, source.text)
        tried += sum(e.kind == "body_only" for e in edits) + EDITS_PER_KIND
        problems += verdict_problems(source.language, source.name, source.text, edits)
    return {"verdicts": Score(tried, tuple(problems))}


def scale_cxx(files: list[SampleFile]) -> dict[str, Score]:
    problems, tried = [], 0
    for source in (f for f in files if f.language == "cpp"):
        edit = header_edit(get_parser("cpp"), source.text)
        with tempfile.TemporaryDirectory(prefix="selfcheck-cxx-") as root:
            verdict = Gate(root=Path(root)).check_edit(str(Path(root) / source.name), source.text, edit.old, edit.new)[1]
        tried += 1
        problem = verdict_problem(Path(source.origin), edit, verdict)
        problems += [problem] if problem else []
    return {"header edit verdict": Score(tried, tuple(problems))}
