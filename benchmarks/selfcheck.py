"""Every benchmark check proves itself against wrong implementations (`make bench-selfcheck`).

    python benchmarks/selfcheck.py [--only a,g] [--sabotage BENCHMARK:CHECK] [--polyglot CHECKOUT]

On a small fixed sample (real files, fixed by name: Python's standard library, Go's, a
TypeScript file the language servers' install brings, a JDK class, an LLVM header, a Rust crate
from the cargo registry), each benchmark's checks run once with the gateway as it is (the
baseline), then once with each deliberately wrong operation swapped in (selfcheck_wrong.py).
A wrong implementation is caught by a check that reports a failure it did not report on the
baseline (or that crashes). It must be caught by at least one check of every benchmark it
applies to; otherwise, or when a check tried nothing on the baseline, the run fails (exit 1).
The polyglot checks run on a stub made from each sample file, or with `--polyglot` on one
exercise per language of a checkout of Aider-AI/polyglot-benchmark. `--sabotage` makes one check lenient (it reports its baseline whatever happens), to show that
the run then fails: the harness is not vacuous.
"""

from __future__ import annotations

import argparse
import functools
import glob
import os
import shutil
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import selfcheck_checks  # noqa: E402
from benchmarks.selfcheck_checks import POLYGLOT_EXERCISES, SampleFile, Score  # noqa: E402
from benchmarks.selfcheck_wrong import WRONG, WrongImplementation  # noqa: E402

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# Go's own source beside the `go` found on PATH (no `go env`: the self-check starts no process).
GOROOT_SRC = Path(os.path.realpath(shutil.which("go") or "/usr/lib/go/bin/go")).parent.parent / "src"
# language: (name in the workspace, candidate places, first found wins; "archive!member" for a zip)
SAMPLE: dict[str, tuple[str, list[str]]] = {
    "python": ("numbers.py", [str(STDLIB / "numbers.py")]),
    "go": ("list.go", [f"{GOROOT_SRC}/container/list/list.go"]),
    "typescript": ("fs.ts", [str(ROOT / ".tools/node/node_modules/bash-language-server/src/util/fs.ts")]),
    "java": ("StringJoiner.java", ["/usr/lib/jvm/*/lib/src.zip!java.base/java/util/StringJoiner.java"]),
    "cpp": ("PointerIntPair.hpp", ["/usr/include/llvm-*/llvm/ADT/PointerIntPair.h"]),
    "rust": ("lifetime.rs", ["/usr/share/cargo/registry/syn-2*/src/lifetime.rs", str(Path.home() / ".cargo/registry/src/*/syn-2*/src/lifetime.rs"),
                             "/usr/share/cargo/registry/serde-1*/src/de/ignored_any.rs"]),
}
Benchmark = Callable[[list[SampleFile]], dict[str, Score]]
BENCHMARKS: dict[str, Benchmark] = {
    "matrix": selfcheck_checks.matrix,
    "round_trips": selfcheck_checks.round_trips,
    "replay": selfcheck_checks.replay,
    "polyglot": selfcheck_checks.polyglot,
    "classify_latency": selfcheck_checks.classify_latency,
    "scale_cxx": selfcheck_checks.scale_cxx,
}
# Wrong implementations a benchmark is known not to catch yet, and why; a gap that is caught
# after all fails the run too, so that it is taken off this list. Without a rename judge (issue 37's
# reference oracles, branch i37-oracles) the matrix's rename check renames and renames back.
_NO_JUDGE = "not caught on BASE: the matrix rename check renames and renames back (issue 37 part 2, branch i37-oracles, judges it)"
KNOWN_GAPS: dict[tuple[str, str], str] = {} if selfcheck_checks.rename_judge() is not None else {
    ("a", "matrix"): _NO_JUDGE,
    ("b", "matrix"): _NO_JUDGE,
}
NOT_RUN = [
    "replay: the gate-against-oracle check on Python only (its other oracles start processes: javac, node, language servers)",
    "scale_hook, scale_shell, scale_cli, scale_index: their checks run the hook, the shell record or the CLI in processes of their own, "
    "which an in-process swap does not reach",
]


def sample() -> tuple[list[SampleFile], list[str]]:
    """The sample's files, and the languages with none of their candidates on this machine."""
    files, missing = [], []
    for language, (name, candidates) in SAMPLE.items():
        text, origin = None, ""
        for candidate in candidates:
            archive, _, member = candidate.partition("!")
            for place in sorted(glob.glob(archive)):
                text, origin = _read(place, member), f"{place}{'!' + member if member else ''}"
                if text is not None:
                    break
            if text is not None:
                break
        if text is None:
            missing.append(language)
        else:
            files.append(SampleFile(language, name, origin, text))
    return files, missing


def _read(place: str, member: str) -> str | None:
    try:
        if member:
            with zipfile.ZipFile(place) as bundle:
                return bundle.read(member).decode("utf-8")
        return Path(place).read_text(encoding="utf-8")
    except (OSError, KeyError, UnicodeDecodeError, zipfile.BadZipFile):
        return None


@dataclass
class Trial:
    """One wrong implementation against one benchmark: the checks that ran, those that caught it."""

    wrong: WrongImplementation
    benchmark: str
    ran: list[str] = field(default_factory=list)
    caught: list[str] = field(default_factory=list)
    crashed: str = ""
    where: set[str] = field(default_factory=set)  # the languages whose files the catching checks named

    @property
    def is_caught(self) -> bool:
        return bool(self.caught or self.crashed)


def _run(benchmark: Benchmark, files: list[SampleFile]) -> dict[str, Score] | str:
    try:
        return benchmark(files)
    except Exception as error:  # a benchmark that crashes on a wrong implementation has caught it: said as such
        return f"{type(error).__name__}: {str(error)[:200]}"


def against(wrong: WrongImplementation, benchmark: str, run: Benchmark, files: list[SampleFile], baseline: dict[str, Score],
            sabotaged: set[str]) -> Trial:
    trial = Trial(wrong, benchmark, ran=list(baseline))
    with wrong.swap():
        scores = _run(run, files)
    if isinstance(scores, str):
        trial.crashed = scores
        return trial
    for check, score in scores.items():
        if f"{benchmark}:{check}" in sabotaged:
            score = baseline[check]
        new = set(score.failures) - set(baseline[check].failures)
        if new:
            trial.caught.append(check)
            trial.where |= {f.language for f in files if any(f.name in failure for failure in new)}
    return trial


def render(files: list[SampleFile], missing: list[str], baselines: dict[str, dict[str, Score]], trials: list[Trial],
           problems: list[str], seconds: float, polyglot: Path | None) -> str:
    out = ["Sample: " + "; ".join(f"{f.language} {f.name} ({f.origin}, {f.text.count(chr(10))} lines)" for f in files)]
    out += [f"Not on this machine: {', '.join(missing)} (its checks did not run)."] if missing else []
    out += ["", "Baseline (the gateway as it is): " + "; ".join(
        f"{b}:{c} tried {s.tried}, {len(s.failures)} failing" for b, scores in baselines.items() for c, s in scores.items())]
    out += ["", "| wrong implementation | benchmark | checks run | caught by |", "|---|---|---|---|"]
    for v in trials:
        gap = KNOWN_GAPS.get((v.wrong.key, v.benchmark))
        where = f" (in {', '.join(sorted(v.where))})" if v.where else ""
        caught = ", ".join(v.caught) + where if v.caught else (f"crashed ({v.crashed})" if v.crashed else "**NOT CAUGHT**")
        if gap and not v.is_caught:
            caught += f" ({gap})"
        out.append(f"| ({v.wrong.key}) {v.wrong.title} | {v.benchmark} | {', '.join(v.ran)} | {caught} |")
    exercises = (f"one exercise per language of {polyglot} ({', '.join(f'{k} {v}' for k, v in POLYGLOT_EXERCISES.items())}); "
                 "their own tests did not run (they start compilers and test runners)") if polyglot else (
        "no checkout of Aider-AI/polyglot-benchmark given (--polyglot): a stub made from each sample file instead, and no "
        "exercise's own tests ran")
    out += ["", f"Polyglot: {exercises}.", "", "Not run: " + "; ".join(NOT_RUN) + "."]
    out += ["", f"{len(trials)} pairs in {seconds:.1f} s: " + ("FAILED:" if problems else "every wrong implementation caught "
                                                               "(known gaps aside).")]
    out += [f"- {p}" for p in problems]
    return "\n".join(out)


def selfcheck(only: set[str] | None = None, sabotaged: set[str] | None = None, polyglot: Path | None = None) -> tuple[str, bool]:
    """The report and whether it passed; `polyglot`: a checkout of Aider-AI/polyglot-benchmark."""
    started = time.perf_counter()
    files, missing = sample()
    runs = {**BENCHMARKS, "polyglot": functools.partial(selfcheck_checks.polyglot, checkout=polyglot)}
    wrongs = [w for w in WRONG if only is None or w.key in only]
    needed = sorted({b for w in wrongs for b in w.applies_to}, key=list(BENCHMARKS).index)
    baselines: dict[str, dict[str, Score]] = {}
    problems: list[str] = []
    for benchmark in needed:
        scores = _run(runs[benchmark], files)
        if isinstance(scores, str):
            problems.append(f"{benchmark}: crashed on the baseline: {scores}")
            continue
        baselines[benchmark] = scores
        problems += [f"{benchmark}:{check} tried nothing on the baseline" for check, score in scores.items() if not score.tried]
    trials = [against(w, b, runs[b], files, baselines[b], sabotaged or set()) for w in wrongs for b in w.applies_to if b in baselines]
    for v in trials:
        gap = (v.wrong.key, v.benchmark) in KNOWN_GAPS
        if not v.is_caught and not gap:
            problems.append(f"({v.wrong.key}) {v.wrong.title}: no check of {v.benchmark} caught it")
        elif v.is_caught and gap:
            problems.append(f"({v.wrong.key}) is caught by {v.benchmark} now: take it off KNOWN_GAPS in benchmarks/selfcheck.py")
    return render(files, missing, baselines, trials, problems, time.perf_counter() - started, polyglot), not problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated keys of the wrong implementations to try (default: all)")
    parser.add_argument("--sabotage", action="append", default=[], metavar="BENCHMARK:CHECK",
                        help="make one check lenient (it reports its baseline): the run must then fail")
    parser.add_argument("--polyglot", type=Path, metavar="CHECKOUT", help="a clone of Aider-AI/polyglot-benchmark for the polyglot checks")
    args = parser.parse_args()
    if args.polyglot is not None and not (args.polyglot / "python" / "exercises").is_dir():
        parser.error(f"{args.polyglot}: not a checkout of Aider-AI/polyglot-benchmark")
    with tempfile.TemporaryDirectory(prefix="selfcheck-state-") as state:
        os.environ["XDG_STATE_HOME"] = state  # what the removals remember stays out of the user's state
        report, passed = selfcheck(set(args.only.split(",")) if args.only else None, set(args.sabotage), args.polyglot)
    print(report)
    sys.exit(0 if passed else 1)


if __name__ == "__main__":
    main()
