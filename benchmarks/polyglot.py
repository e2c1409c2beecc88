"""Aider's polyglot benchmark, replayed through the gateway: no model, scripted edits.

    python benchmarks/polyglot.py CHECKOUT [--languages a,b] [--limit N] [--modes edits,hunks,...] [--no-tests] [--record]

CHECKOUT is a clone of the public repository Aider-AI/polyglot-benchmark (225 exercises in
C++, Go, Java, JavaScript, Python and Rust, each with a stub, a reference solution in
`.meta/` and tests); it is read, never copied into this repository. No model writes
anything: a script turns every exercise's stub into its reference solution, and what is
measured is fidelity (does the gateway leave the bytes plain replacement leaves) and false
refusals (refused steps whose text parses for the language's own parser).

The same stub → solution change is cut five ways (`--modes`), each sent through the gateway:
- `edits`: one old_string → new_string per definition, cut at the gateway's own tree-sitter
  definitions (polyglot_edits.py; a step the gateway's syntax check dislikes is merged away);
- `hunks`: difflib hunks with random context widths (polyglot_cuts.py, seeded);
- `middle`: old_strings that start and end mid-line, a long change split in two mid-definition;
- `write`: the solution as one whole-file write;
- `formatted`: the solution after the language's formatter (ruff format, gofmt, rustfmt,
  TypeScript's formatDocument for JavaScript) as one write, where one is installed.
Nothing from the gateway decides where a `hunks`, `middle`, `write` or `formatted` cut falls.
An edit goes through `Gateway.edit(..., route=True)`, a write through the gate and router
(polyglot_drive.py); each outcome is compared with plain string replacement on the same
file. Then the exercise's own tests run on what the gateway left, and on the reference.
Languages run one at a time; progress goes to stderr at least every 10 s. Results:
results/local/ unless --record (a whole run only: not with --limit), which writes
results/polyglot.json and a section of RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.polyglot_cuts import formatted, formatter_name, hunk_cuts, middle_cuts, seeded  # noqa: E402
from benchmarks.polyglot_checks import outcome_problems  # noqa: E402
from benchmarks.polyglot_drive import Outcome, send_edit, send_write  # noqa: E402
from benchmarks.polyglot_edits import LANGUAGES, Edit, Exercise, FilePair, definition_edits, exercises, plain  # noqa: E402
from benchmarks.polyglot_report import render  # noqa: E402
from benchmarks.polyglot_syntax import SyntaxCheck  # noqa: E402
from benchmarks.polyglot_tests import Tests  # noqa: E402
from benchmarks.report import RESULTS_DIR, machine, record, recording, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.langs import LanguageRegistry, default_registry  # noqa: E402
from gateway.lsp.discovery import find_server, server_version  # noqa: E402

WORKSPACES = ROOT / "benchmarks" / "results" / "workspace" / "polyglot"
MODES = ("edits", "hunks", "middle", "write", "formatted")
EDIT_MODES = ("edits", "hunks", "middle")


class Progress:
    """Where the run is, on stderr: at every step, and every 10 s while a step lasts."""

    def __init__(self, language: str, total: int) -> None:
        self.language, self.total, self.started = language, total, time.monotonic()
        self.where = "starting"
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def at(self, phase: str, index: int, name: str) -> None:
        self.where = f"{phase}: exercise {index + 1} of {self.total} ({name})"
        self.say()

    def say(self) -> None:
        print(f"polyglot: {self.language}: {self.where}, {time.monotonic() - self.started:.0f} s", file=sys.stderr, flush=True)

    def _tick(self) -> None:
        while not self.stopped.wait(10):
            self.say()

    def stop(self) -> None:
        self.stopped.set()


def _workspace(language: str, mode: str, chosen: list[Exercise]) -> Path:
    """A fresh folder holding every chosen exercise as the agent finds it (no dot folders)."""
    root = WORKSPACES / language / mode
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    for exercise in chosen:
        shutil.copytree(exercise.directory, root / exercise.name, ignore=shutil.ignore_patterns(".*"))
    if language == "cpp":  # clangd: the exercises are C++17 and include their own headers
        (root / "compile_flags.txt").write_text("-xc++\n-std=c++17\n")
    return root


def _servers(gateway: Gateway, language: str, labels: set[str]) -> dict[str, str]:
    """The version of each server that produced routed bytes (`lsp:NAME` among `labels`)."""
    spec = gateway.registry.get(language).server
    command = find_server(spec) if f"lsp:{spec.name}" in labels else None
    version = server_version(command[0], spec.version_args) if command else None
    return {f"lsp:{spec.name}": version} if version else {}


def _cuts(registry: LanguageRegistry, exercise: Exercise, pair: FilePair, mode: str) -> list[Edit]:
    """The edits of an edit mode: at the gateway's definitions (`edits`), or cut without it."""
    assert pair.stub is not None
    if mode == "edits":
        return definition_edits(registry, pair)
    cutter = hunk_cuts if mode == "hunks" else middle_cuts
    cuts = cutter(pair.stub, pair.solution, seeded(exercise.language, exercise.name, pair.path, mode))
    return [Edit(pair.path, cut.kind, cut.label, cut.old, cut.new) for cut in cuts]


def target(pair: FilePair, mode: str, language: str) -> str:
    """What a mode turns the file into: the solution, or for `formatted` the solution formatted."""
    done = formatted(language, pair.solution) if mode == "formatted" else None
    return done.text if done is not None else pair.solution


def _send(gateway: Gateway, exercise: Exercise, mode: str, check: SyntaxCheck) -> tuple[list[Outcome], list[str]]:
    """The outcomes of an exercise's edits (or writes), and what `outcome_problems` finds wrong with them."""
    outcomes, problems = [], []
    include = gateway.workspace.root / exercise.name
    for pair in exercise.files:
        path, wanted = f"{exercise.name}/{pair.path}", target(pair, mode, exercise.language)
        edits = _cuts(gateway.registry, exercise, pair, mode) if pair.stub is not None and mode in EDIT_MODES else []
        if not edits and pair.stub != wanted:
            outcomes.append(_checked(send_write(gateway, path, wanted, exercise.language), wanted, check, include))
        for edit in edits:
            file = gateway.workspace.root / path
            before = file.read_bytes().decode("utf-8") if file.is_file() else ""
            outcome = send_edit(gateway, replace(edit, path=path), exercise.language)
            problems += outcome_problems(gateway, exercise.language, before, replace(edit, path=path), outcome)
            outcomes.append(_checked(outcome, before.replace(edit.old, edit.new, 1), check, include))
    return outcomes, problems


def _checked(outcome: Outcome, wanted: str, check: SyntaxCheck, include: Path) -> Outcome:
    """A refusal, with whether the text it refused to leave (plain replacement's) parses for the language's own parser."""
    return replace(outcome, parses=check.parses(outcome.path, wanted, include)) if outcome.status == "refused" else outcome


def _files(root: Path, exercise: Exercise) -> dict[str, str]:
    found = {}
    for pair in exercise.files:
        file = root / exercise.name / pair.path
        found[pair.path] = file.read_bytes().decode("utf-8") if file.exists() else ""
    return found


def _mode(language: str, mode: str, chosen: list[Exercise], check: SyntaxCheck) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Every exercise's edits (or writes) through one gateway on one workspace: (the versions
    of the servers whose answers produced routed bytes, per exercise)."""
    root = _workspace(language, mode, chosen)
    progress = Progress(language, len(chosen))
    found: dict[str, dict[str, Any]] = {}
    with Gateway(root) as gateway:
        for index, exercise in enumerate(chosen):
            progress.at(mode, index, exercise.name)
            outcomes, problems = _send(gateway, exercise, mode, check)
            files = _files(root, exercise)
            found[exercise.name] = {"outcomes": outcomes, "files": files, "problems": problems,
                                    "solution": all(files[p.path] == target(p, mode, language) for p in exercise.files)}
        servers = _servers(gateway, language, {o.via for done in found.values() for o in done["outcomes"]})
    progress.stop()
    return servers, found


def _tests(language: str, chosen: list[Exercise], runs: dict[str, dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per exercise: the tests on the reference, on the plain edits' result, and on each mode's result."""
    tests, registry = Tests(language, WORKSPACES / language / "tests"), default_registry()
    progress = Progress(language, len(chosen))
    results: dict[str, dict[str, Any]] = {}
    for index, exercise in enumerate(chosen):
        progress.at("tests", index, exercise.name)
        reference = {p.path: p.solution for p in exercise.files}
        edited = {p.path: plain(p.stub, definition_edits(registry, p)) if p.stub is not None else p.solution for p in exercise.files}
        variants = {"reference": reference, "plain edits": edited, **{f"gateway {mode}": runs[mode][exercise.name]["files"] for mode in runs}}
        results[exercise.name] = {name: tests.run(exercise, files) for name, files in variants.items()}
    progress.stop()
    return results


def run_language(checkout: Path, language: str, limit: int | None, modes: list[str], with_tests: bool) -> dict[str, Any]:
    chosen = exercises(checkout, language)[:limit]
    formatter = formatter_name(language)
    modes = [m for m in modes if m != "formatted" or formatter]
    servers: dict[str, str] = {}
    runs, check = {}, SyntaxCheck(language)
    for mode in modes:
        answered, runs[mode] = _mode(language, mode, chosen, check)
        servers |= answered
    tests = _tests(language, chosen, runs) if with_tests else {}
    per_exercise = []
    for exercise in chosen:
        entry: dict[str, Any] = {"exercise": exercise.name}
        for mode in modes:
            done = runs[mode][exercise.name]
            entry[mode] = {"outcomes": [o.to_json() for o in done["outcomes"]], "solution": done["solution"], "problems": done["problems"]}
        entry["tests"] = {k: (v.to_json() if v else None) for k, v in tests.get(exercise.name, {}).items()}
        per_exercise.append(entry)
    return {"language": language, "servers": servers, "formatter": formatter, "syntax_check": check.name,
            "exercises": len(chosen), "modes": modes, "summary": summarize(per_exercise, modes), "per_exercise": per_exercise}


def summarize(per_exercise: list[dict[str, Any]], modes: list[str]) -> dict[str, Any]:
    """Counts per mode (judged, structural, routed exact/different, refused by reason) and tests."""
    summary: dict[str, Any] = {}
    for mode in modes:
        outcomes = [o for e in per_exercise for o in e[mode]["outcomes"]]
        judged = [o for o in outcomes if o["status"] in ("allowed", "routed", "refused", "created")]
        routed = [o for o in outcomes if o["status"] == "routed"]
        refused = [o for o in outcomes if o["status"] == "refused"]
        times = [o["ms"] for o in judged if o.get("ms")]
        summary[mode] = {
            "sent": len(outcomes), "judged": len(judged), "structural": sum(o["structural"] for o in judged),
            "allowed": sum(o["status"] in ("allowed", "created") for o in judged),
            "allowed_exact": sum(bool(o["exact"]) for o in judged if o["status"] in ("allowed", "created")),
            "routed": len(routed), "routed_exact": sum(bool(o["exact"]) for o in routed),
            "bytes_from": dict(Counter(o.get("via", "unknown") for o in routed)),
            "refused": dict(Counter(o["reason"] for o in refused)),
            "refused_text_parses": sum(o.get("parses") is True for o in refused),
            "refusals_unchecked": sum(o.get("parses") is None for o in refused),
            "not_applied": sum(o["status"] == "not_applied" for o in outcomes),
            "by_kind": dict(Counter(o["kind"] for o in outcomes)),
            "solution_reached": sum(e[mode]["solution"] for e in per_exercise),
            "ms_p50": statistics.median(times) if times else None,
        }
    variants = sorted({k for e in per_exercise for k in e["tests"]})
    summary["tests"] = {
        v: {"passed": sum(bool(e["tests"].get(v) and e["tests"][v]["passed"]) for e in per_exercise),
            "run": sum(e["tests"].get(v) is not None for e in per_exercise)} for v in variants
    }
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkout", type=Path, help="a clone of Aider-AI/polyglot-benchmark")
    parser.add_argument("--languages", default=",".join(LANGUAGES), help=f"comma-separated subset of {','.join(LANGUAGES)}")
    parser.add_argument("--limit", type=int, help="the first N exercises of each language (by name)")
    parser.add_argument("--modes", default=",".join(MODES), help=f"a comma-separated subset of {','.join(MODES)} (the module's docstring)")
    parser.add_argument("--no-tests", action="store_true", help="judge and route only; do not run the exercises' tests")
    parser.add_argument("--report-only", action="store_true", help="run nothing: render the saved results again")
    parser.add_argument("--record", action="store_true", help="write results/polyglot.json and RESULTS.md, not results/local/")
    args = parser.parse_args()
    if not (args.checkout / "python" / "exercises").is_dir():
        parser.error(f"{args.checkout}: not a checkout of Aider-AI/polyglot-benchmark")
    if args.record and args.limit is not None:
        parser.error("--record records whole runs only: drop --limit (a partial run writes results/local/)")
    modes = [m for m in args.modes.split(",") if m]
    if set(modes) - set(MODES):
        parser.error(f"--modes: unknown {', '.join(sorted(set(modes) - set(MODES)))} (known: {', '.join(MODES)})")
    target = result_path("polyglot.json")
    source = target if target.exists() or not args.report_only else RESULTS_DIR / "local" / "polyglot.json"
    result = json.loads(source.read_text()) if source.exists() else {}
    rows = {row["language"]: row for row in result.get("languages", [])}
    for language in [] if args.report_only else args.languages.split(","):
        rows[language] = run_language(args.checkout, language, args.limit, modes, not args.no_tests)
        result = {"machine": machine(), "checkout": _commit(args.checkout),
                  "languages": [rows[name] for name in LANGUAGES if name in rows]}
        target.write_text(_dump(result))  # after each language: a long run keeps what it did
    if not result:
        parser.error(f"no saved results in {source}")
    target.write_text(_dump(result))
    markdown = render(result["languages"], result["machine"], result["checkout"])
    print(markdown)
    problems = [p for row in result["languages"] for e in row["per_exercise"] for m in row["modes"] for p in e.get(m, {}).get("problems", [])]
    if problems:  # a verdict the oracle contradicts, or a route labelled by a server that was not running
        raise SystemExit("polyglot: the checks failed, nothing recorded:\n" + "\n".join(problems[:20]))
    record(markdown, "polyglot", "Aider polyglot benchmark")


def _dump(result: dict[str, Any]) -> str:
    """The results as JSON; recorded, only the outcomes the report lists (refused, not applied,
    routed otherwise than plain replacement) are kept beside the counts, in one line."""
    if not recording():
        return json.dumps(result, indent=1) + "\n"
    kept = json.loads(json.dumps(result))
    for row in kept["languages"]:
        for entry in row["per_exercise"]:
            for mode in row["modes"]:
                outcomes = entry[mode]["outcomes"]
                entry[mode]["outcomes"] = [o for o in outcomes if o["status"] in ("refused", "not_applied") or o["exact"] is False]
                entry[mode].setdefault("sent", len(outcomes))
            # passed or not: what failed is in the refusals, and test output quotes third-party code
            entry["tests"] = {variant: run.get("passed") if isinstance(run, dict) else run for variant, run in entry["tests"].items()}
    return json.dumps(kept, separators=(",", ":")) + "\n"


def _commit(checkout: Path) -> str:
    import subprocess

    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    main()
