"""Aider's polyglot benchmark, solved by edits sent through the gateway.

    python benchmarks/polyglot.py CHECKOUT [--languages a,b] [--limit N] [--modes edits,write] [--no-tests] [--record]

CHECKOUT is a clone of the public repository Aider-AI/polyglot-benchmark (225 exercises in
C++, Go, Java, JavaScript, Python and Rust, each with a stub, a reference solution in
`.meta/` and tests); it is read, never copied into this repository.

For every exercise the stub is turned into the reference solution twice, as agents do it:
- `edits`: one old_string → new_string replacement per definition (polyglot_edits.py), each
  sent through `Gateway.edit(..., route=True)`: allowed, routed as symbol operations, or
  refused with its reason;
- `write`: one whole-file write per file, judged by the gate and routed when structural.
Each outcome is compared with plain string replacement on the same file. Then the
exercise's own tests run on what the gateway left, and on the reference solution (which
the plain replacements reproduce byte for byte). Languages run one at a time; progress goes
to stderr at least every 10 s. Results: results/polyglot.json and a section of RESULTS.md
with --record, else under results/local/.
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

from benchmarks.polyglot_drive import Outcome, send_edit, send_write  # noqa: E402
from benchmarks.polyglot_edits import LANGUAGES, Exercise, definition_edits, exercises, plain  # noqa: E402
from benchmarks.polyglot_report import render  # noqa: E402
from benchmarks.polyglot_tests import Tests  # noqa: E402
from benchmarks.report import RESULTS_DIR, machine, record, recording, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.errors import GatewayError  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.lsp.discovery import find_server, server_version  # noqa: E402

WORKSPACES = ROOT / "benchmarks" / "results" / "workspace" / "polyglot"


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


def _backend(gateway: Gateway, exercise: Exercise) -> str:
    """The backend the gateway picks for the exercise's first source file, with its server's version."""
    path = next((f"{exercise.name}/{p.path}" for p in exercise.files if p.stub is not None and not p.path.endswith(".toml")), None)
    try:
        backend = str(gateway.symbols(path).to_json()["backend"]) if path else "–"
    except GatewayError as error:
        return f"none ({error.kind})"
    lang = gateway.registry.get(exercise.language)
    command = find_server(lang.server) if backend.startswith("lsp:") else None
    version = server_version(command[0], lang.server.version_args) if command else None
    return f"{backend} {version}" if version else backend


def _send(gateway: Gateway, exercise: Exercise, mode: str) -> list[Outcome]:
    registry, outcomes = gateway.registry, []
    for pair in exercise.files:
        path = f"{exercise.name}/{pair.path}"
        if pair.stub is None or mode == "write":
            if pair.stub != pair.solution:
                outcomes.append(send_write(gateway, path, pair.solution, exercise.language))
            continue
        for edit in definition_edits(registry, pair):
            outcomes.append(send_edit(gateway, replace(edit, path=path), exercise.language))
    return outcomes


def _files(root: Path, exercise: Exercise) -> dict[str, str]:
    found = {}
    for pair in exercise.files:
        target = root / exercise.name / pair.path
        found[pair.path] = target.read_bytes().decode("utf-8") if target.exists() else ""
    return found


def _mode(language: str, mode: str, chosen: list[Exercise]) -> tuple[str, dict[str, dict[str, Any]]]:
    """Every exercise's edits (or writes) through one gateway on one workspace: (backend, per exercise)."""
    root = _workspace(language, mode, chosen)
    progress = Progress(language, len(chosen))
    found: dict[str, dict[str, Any]] = {}
    with Gateway(root) as gateway:
        backend = _backend(gateway, chosen[0]) if chosen else "–"
        for index, exercise in enumerate(chosen):
            progress.at(mode, index, exercise.name)
            outcomes = _send(gateway, exercise, mode)
            files = _files(root, exercise)
            found[exercise.name] = {"outcomes": outcomes, "files": files,
                                    "solution": all(files[p.path] == p.solution for p in exercise.files)}
    progress.stop()
    return backend, found


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
    backends, runs = {}, {}
    for mode in modes:
        backends[mode], runs[mode] = _mode(language, mode, chosen)
    tests = _tests(language, chosen, runs) if with_tests else {}
    per_exercise = []
    for exercise in chosen:
        entry: dict[str, Any] = {"exercise": exercise.name}
        for mode in modes:
            done = runs[mode][exercise.name]
            entry[mode] = {"outcomes": [o.to_json() for o in done["outcomes"]], "solution": done["solution"]}
        entry["tests"] = {k: (v.to_json() if v else None) for k, v in tests.get(exercise.name, {}).items()}
        per_exercise.append(entry)
    return {"language": language, "backend": backends.get("edits") or next(iter(backends.values()), "–"),
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
            "route_backends": dict(Counter(o["reason"] for o in routed)),
            "refused": dict(Counter(o["reason"] for o in refused)),
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
    parser.add_argument("--modes", default="edits,write", help="edits (one per definition), write (whole files), or both")
    parser.add_argument("--no-tests", action="store_true", help="judge and route only; do not run the exercises' tests")
    parser.add_argument("--report-only", action="store_true", help="run nothing: render the saved results again")
    parser.add_argument("--record", action="store_true", help="write results/polyglot.json and RESULTS.md, not results/local/")
    args = parser.parse_args()
    if not (args.checkout / "python" / "exercises").is_dir():
        parser.error(f"{args.checkout}: not a checkout of Aider-AI/polyglot-benchmark")
    modes = [m for m in args.modes.split(",") if m]
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
    record(markdown, "polyglot", "Aider polyglot benchmark (issue 25)")


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
