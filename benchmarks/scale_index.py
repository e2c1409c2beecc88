"""Workspace-wide `find-symbol` at issue 36's sizes: the definition index's cold build, its warm
answers with and without the daemon, and a check that the index answers what a fresh parse does.

Run: `python benchmarks/scale_index.py [--files 100,1000,10000] [--record]`. Each size gets a
workspace of standard-library files (`scale_corpus.python_workspace`; past the library's 580
files its layout repeats under copy2/…, each repeated file given a comment line naming its copy
so that every file is a content of its own, as in a real repository: the table says how many
contents are distinct) and a state directory of its own, so the first call builds the index
from nothing.
Process timings of one size are interleaved with `python -c pass`, so the ratios compare runs
made side by side.

The check (the run exits 1 when it fails): for a sample of names, the matches (path, name path,
kind, lines, in order) and the nearest names of the CLI without a daemon and of the daemon equal
those of a fresh tree-sitter parse of every file, before and after files are changed (one with
its size and mtime kept), deleted and added between calls.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, record  # noqa: E402
from benchmarks.scale_corpus import python_workspace  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.namepath import NamePath  # noqa: E402
from gateway.symbols.model import nearest_name_paths  # noqa: E402
from gateway.symbols.structure import structure  # noqa: E402
from gateway.workspace import Workspace  # noqa: E402

GATEWAY = [sys.executable, str(ROOT / "scripts" / "gateway")]
NAMES = ["TextWrapper/_split_chunks", "dedent", "/TextWrapper", "Popen/communicate", "__init__[7]", "nothing_like_this_name"]
RUNS = 9
SKIPPED_DIRS = {"node_modules", "__pycache__", "venv", "build", "dist", "target", "vendor"}
ADDED = "def added_by_the_benchmark(value):\n    return value\n\n\nclass AddedShape:\n    def area(self):\n        return 0\n"


def _oracle(root: Path, names: list[str]) -> dict[str, object]:
    """What each name finds by parsing every regular source file afresh (links and anything else
    left out), in the walk's order: the answer `find-symbol --json` must give."""
    registry = default_registry()
    workspace = Workspace(root, registry)
    files = []
    parsed: dict[bytes, list] = {}  # identical bytes parsed once: the copies repeat the library
    for directory, subdirs, entries in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(entries):
            path = Path(directory) / name
            lang = registry.for_path(name)
            if lang is None or not lang.symbol_backend or path.is_symlink() or not path.is_file():
                continue
            source = workspace.read(path)
            data = path.read_bytes()
            if data not in parsed:
                parsed[data] = structure(lang, source.text)
            files.append((source.display, parsed[data]))
    answers: dict[str, object] = {}
    for name in names:
        pattern = NamePath.parse(name)
        found = [(display, s) for display, symbols in files for s in symbols if pattern.matches(s.name_path)]
        if pattern.index is not None:
            found = found[pattern.index : pattern.index + 1]
        nearest = [] if found else nearest_name_paths([s for _, symbols in files for s in symbols], pattern)
        answers[name] = ([[d, s.name_path, s.kind, s.start_line, s.end_line] for d, s in found], nearest)
    return answers


def _find(root: Path, name: str, env: dict[str, str]) -> tuple[object, float, str]:
    """(the answer, seconds, stderr) of `gateway find-symbol NAME --json` as a process."""
    started = time.perf_counter()
    done = subprocess.run([*GATEWAY, "find-symbol", name, "--json", "--workspace", str(root)], env=env, capture_output=True, text=True,
                          check=False)
    elapsed = time.perf_counter() - started
    try:
        result = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"find-symbol {name} failed: {done.stderr.strip()[-500:]}") from None
    answer = ([[m["path"], m["name_path"], m["kind"], m["start_line"], m["end_line"]] for m in result["matches"]], result["nearest"])
    return answer, elapsed, done.stderr


def _check(root: Path, envs: dict[str, dict[str, str]], names: list[str], when: str) -> list[str]:
    expected = _oracle(root, names)
    wrong = []
    for how, env in envs.items():
        for name in names:
            answer = _find(root, name, env)[0]
            if json.loads(json.dumps(answer)) != json.loads(json.dumps(expected[name])):
                wrong.append(f"{when}, {how}: find-symbol {name} differs from a fresh parse")
    return wrong


def _change(root: Path) -> list[str]:
    """Change files between calls: one edited with its size and mtime kept (a function renamed
    by one letter), one deleted, one added, one given a new definition; the names to ask then."""
    first, gone, grown = sorted(p for p in root.glob("*.py") if "\ndef " in p.read_text())[:3]
    text = first.read_text()
    name = text.split("\ndef ", 1)[1].split("(", 1)[0]
    renamed = name[:-1] + ("Q" if name[-1] != "Q" else "R")
    info = first.stat()
    first.write_text(text.replace(f"\ndef {name}(", f"\ndef {renamed}(", 1))
    os.utime(first, ns=(info.st_atime_ns, info.st_mtime_ns))
    gone.unlink()
    (root / "added_by_bench.py").write_text(ADDED)
    grown.write_text(grown.read_text() + "\n\ndef dedent(text):\n    return text\n")
    return [name, renamed, "added_by_the_benchmark", "AddedShape/area"]


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def _pass_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def _distinct(root: Path) -> None:
    """Every repeated file made a content of its own (a comment line naming its copy), as the
    files of a real repository are: the build parses each of them, none is shared by content."""
    for copy in root.glob("copy*"):
        for path in copy.rglob("*.py"):
            with path.open("a") as handle:
                handle.write(f"# {copy.name}\n")


def _in_process(root: Path, state: Path) -> tuple[float, float]:
    """Median seconds of the index's own work for `find-symbol` in this process, without a
    process's start and imports: (read from disk by a new service, as a CLI does; warm in memory,
    as the daemon has it)."""
    from gateway.lsp.manager import SessionManager
    from gateway.symbols.service import SymbolService

    os.environ["XDG_STATE_HOME"] = str(state)
    registry = default_registry()
    workspace = Workspace(root, registry)
    disk, memory = [], []
    for run in range(RUNS):
        service = SymbolService(workspace, registry, SessionManager(root, use_servers=False))
        started = time.perf_counter()
        service.find(NAMES[run % 4], None)
        disk.append(time.perf_counter() - started)
        started = time.perf_counter()
        service.find(NAMES[(run + 1) % 4], None)
        memory.append(time.perf_counter() - started)
    return statistics.median(disk), statistics.median(memory)


def measure(files: int, base: Path) -> tuple[dict[str, float | str], list[str]]:
    root = python_workspace(base / f"ws-{files}", files)
    _distinct(root)
    state = base / f"state-{files}"
    env = {k: v for k, v in os.environ.items() if k != "GATEWAY_NO_DAEMON"}
    env.update(XDG_STATE_HOME=str(state), GATEWAY_NO_SERVERS="1", GATEWAY_PROGRESS_AFTER="0")
    direct = {**env, "GATEWAY_NO_DAEMON": "1"}
    distinct = len({p.read_bytes() for p in root.rglob("*.py")})
    time.sleep(2.1)  # past the racy window: the first warm call trusts every file's stat
    _, cold, stderr = _find(root, NAMES[0], direct)
    said = [line for line in stderr.splitlines() if "indexing definitions" in line]
    subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(root)], env=env, check=True, capture_output=True)
    try:
        _, daemon_first, _ = _find(root, NAMES[0], env)
        samples: dict[str, list[float]] = {"warm, no daemon": [], "warm, daemon": [], "python -c pass": []}
        for run in range(RUNS):
            name = NAMES[run % len(NAMES)]
            samples["warm, no daemon"].append(_find(root, name, direct)[1])
            samples["warm, daemon"].append(_find(root, name, env)[1])
            samples["python -c pass"].append(_pass_seconds())
        from_disk, in_memory = _in_process(root, state)
        wrong = _check(root, {"no daemon": direct, "daemon": env}, NAMES, "before changes")
        changed = _change(root)
        wrong += _check(root, {"daemon": env, "no daemon": direct}, NAMES + changed, "after changes")
    finally:
        subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(root)], env=env, capture_output=True, check=False)
    row: dict[str, float | str] = {"files": files, "distinct contents": distinct, "cold build (s)": round(cold, 2),
                                   "progress lines on stderr": len(said), "daemon's first call (ms)": round(daemon_first * 1000)}
    for label, values in samples.items():
        row[f"{label} (ms)"] = round(_median_ms(values))
    row["index alone, from disk (ms)"] = round(from_disk * 1000)
    row["index alone, in memory (ms)"] = round(in_memory * 1000)
    row["warm, no daemon / python -c pass"] = round(_median_ms(samples["warm, no daemon"]) / _median_ms(samples["python -c pass"]), 1)
    row["warm, daemon / python -c pass"] = round(_median_ms(samples["warm, daemon"]) / _median_ms(samples["python -c pass"]), 1)
    return row, wrong


def _table(rows: list[dict[str, float | str]]) -> str:
    keys = list(rows[0])
    lines = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    lines += ["| " + " | ".join(str(row[k]) for k in keys) + " |" for row in rows]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description="Workspace-wide find-symbol at issue 36's sizes (the definition index).")
    parser.add_argument("--files", default="100,1000,10000", help="workspace sizes, comma-separated")
    parser.add_argument("--record", action="store_true", help="write the tracked RESULTS.md section")
    sizes = [int(size) for size in parser.parse_args().files.split(",")]
    base = Path(tempfile.mkdtemp(prefix="gateway-scale-index-"))
    rows, wrong = [], []
    try:
        for files in sizes:
            row, problems = measure(files, base)
            rows.append(row)
            wrong += problems
            print(_table(rows), file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    checked = "the index's answers equal a fresh parse's" if not wrong else "WRONG: " + "; ".join(wrong)
    report = (f"{machine()}. `find-symbol` across a workspace (tree-sitter definition index, state directory fresh per size; "
              f"process times are medians of {RUNS}, interleaved with `python -c pass`). Check: {checked}.\n\n{_table(rows)}")
    print(report)
    record(report, "scale_index", "Workspace-wide find-symbol: the definition index")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
