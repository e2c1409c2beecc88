"""The language matrix: accuracy against an independent oracle, latency, routing, memory.

    python benchmarks/matrix.py [--quick] [--corpus DIR] [--languages a,b] [--fresh]

Per language: edits generated from real third-party files, judged by our gate, by a keyword
gate as widely deployed, and by an oracle that shares nothing with our gate. Finished
languages are kept in results/partial/<profile>/ so an interrupted run resumes; --fresh
starts over. Writes results/matrix.json and results/matrix.png (matrix-quick.* for --quick) and a table in RESULTS.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tqdm import tqdm  # noqa: E402

from benchmarks.corpus import sample  # noqa: E402
from benchmarks.generate import generate  # noqa: E402
from benchmarks.keyword_gate import keyword_gate_blocks  # noqa: E402
from benchmarks.matrix_ops import OperationTally, check_definition, check_symbols  # noqa: E402
from benchmarks.matrix_oracles import definition_oracle, reference_oracle  # noqa: E402
from benchmarks.oracle import Oracle, OracleDefinition, label, structural  # noqa: E402
from benchmarks.report import bar_chart, machine, percentile, record, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.gate.checker import classify_edit  # noqa: E402
from gateway.gate.effect import edit_effect  # noqa: E402
from gateway.errors import Blocked, GatewayError  # noqa: E402
from gateway.reaper import descendants  # noqa: E402
from tests.roundtrip import definition_count, round_trip  # noqa: E402

LANGUAGES = ["python", "typescript", "tsx", "javascript", "go", "rust", "java", "kotlin", "c", "cpp", "csharp", "ruby", "bash"]
PROFILES = {
    "quick": {"files": 3, "per_kind": 3, "round_trips": 2},
    "full": {"files": 16, "per_kind": 6, "round_trips": 4},
}
RESULTS_DIR = ROOT / "benchmarks" / "results"
SEED = 20261120


class Tally:
    """Decisions of one gate against the oracle's."""

    def __init__(self) -> None:
        self.false_block = self.missed = self.oracle_allow = self.oracle_block = 0

    def add(self, blocked: bool, truth: bool) -> None:
        if truth:
            self.oracle_block += 1
            self.missed += not blocked
        else:
            self.oracle_allow += 1
            self.false_block += blocked

    def to_json(self) -> dict[str, Any]:
        return {
            "false_block_rate": self.false_block / self.oracle_allow if self.oracle_allow else None,
            "missed_definition_rate": self.missed / self.oracle_block if self.oracle_block else None,
            "false_blocks": self.false_block,
            "missed_definitions": self.missed,
        }


def _peak_rss_mb(pid: int | None) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _route(gateway: Gateway, root: Path, name: str, text: str, old: str, new: str) -> tuple[bool, bool, str | None]:
    """(routed, exactly the text edit's result, failure) for one blocked edit, file restored after."""
    path = root / name
    path.write_text(text)
    try:
        gateway.edit(name, old, new, route=True)
        return True, path.read_text() == text.replace(old, new, 1), None
    except Blocked:
        return False, False, None
    except GatewayError as error:
        return False, False, f"{name}: {error.kind}: {error}"
    finally:
        path.write_text(text)


def run_language(lang: str, profile: dict[str, int], corpus: Path | None) -> dict[str, Any]:
    files = sample(lang, profile["files"], SEED, corpus)
    row: dict[str, Any] = {"language": lang, "files": len(files)}
    if not files:
        return {**row, "note": "no third-party source for this language on this machine"}
    root = Path(tempfile.mkdtemp(prefix=f"matrix-{lang}-"))
    (root / "compile_flags.txt").write_text("-std=c++17\n" if lang == "cpp" else "-std=c11\n")
    for source in files:
        (root / source.name).write_text(source.text)
    ours, keyword = Tally(), Tally()
    latencies: dict[str, list[float]] = {"small": [], "medium": [], "large": []}
    edits_total = judged = routed = route_exact = route_tried = trips = trips_exact = 0
    failures: list[str] = []
    kinds: dict[str, int] = {}
    operations = OperationTally()
    with contextlib.ExitStack() as oracles, Gateway(root) as gateway:
        oracle, references = definition_oracle(oracles, lang), reference_oracle(lang)
        backend = gateway.symbols(files[0].name).to_json()["backend"]
        row["oracle"] = oracle.name if oracle else None
        row["rename_judge"] = references.name if references else None
        for source in tqdm(files, desc=f"{lang:<10}", unit="file", leave=True, file=sys.stderr):
            path = root / source.name
            before = oracle.definitions(path, source.text) if oracle else None
            if oracle and before is None:
                continue
            edits = generate(lang, source.text, before or _our_definitions(gateway, source.name), profile["per_kind"], SEED)
            size = "small" if source.text.count("\n") < 500 else "medium" if source.text.count("\n") < 1500 else "large"
            for edit in edits:
                edits_total += 1
                kinds[edit.kind] = kinds.get(edit.kind, 0) + 1
                started = time.perf_counter()
                blocked = classify_edit(source.name, edit.old, edit.new, content=source.text).blocked
                latencies[size].append((time.perf_counter() - started) * 1000)
                truth = _truth(oracle, path, source.text, before, edit.old, edit.new) if oracle and before is not None else None
                if truth is not None:
                    judged += 1
                    ours.add(blocked, truth)
                    keyword.add(keyword_gate_blocks(lang, edit.old, edit.new), truth)
                if blocked and route_tried < profile["per_kind"] * 4:
                    route_tried += 1
                    done, exact, failure = _route(gateway, root, source.name, source.text, edit.old, edit.new)
                    routed, route_exact = routed + done, route_exact + exact
                    failures += [failure] if failure else []
            check_symbols(gateway, source.name, before, operations)
            count = definition_count(gateway, source.name)
            for index in sorted(set(range(0, count, max(1, count // profile["round_trips"]))))[: profile["round_trips"]]:
                check_definition(gateway, root, source.name, index, operations, references)
                try:
                    outcome = round_trip(gateway, root, source.name, index)
                except GatewayError as error:
                    failures.append(f"{source.name}: round trip #{index}: {error.kind}: {error}")
                    operations.add("remove+insert", False)
                    (root / source.name).write_text(source.text)
                    continue
                if outcome is not None:
                    trips += 1
                    trips_exact += outcome[1]
                    operations.add("remove+insert", outcome[1])
                    if not outcome[1]:
                        failures.append(f"{source.name}: round trip of {outcome[0]} did not restore the bytes")
        # The session's pid is its reaper's: the server is below it (jdtls's java two levels down).
        server_rss = [sum(filter(None, map(_peak_rss_mb, descendants(s.pid)))) if s.pid else None for s in gateway.sessions._sessions.values()]
    shutil.rmtree(root, ignore_errors=True)
    all_latency = [v for values in latencies.values() for v in values]
    return {
        **row,
        "backend": backend,
        "edits": edits_total,
        "judged": judged,
        "kinds": kinds,
        "ours": ours.to_json(),
        "keyword": keyword.to_json(),
        "classify_ms": {
            size: {"p50": statistics.median(v), "p99": percentile(v, 0.99), "n": len(v)} for size, v in latencies.items() if v
        },
        "classify_p50_ms": statistics.median(all_latency) if all_latency else None,
        "routing": {"tried": route_tried, "routed": routed, "exact": route_exact},
        "round_trips": {"checked": trips, "exact": trips_exact},
        "operations": operations.to_json(),
        "operation_failures": operations.failures,
        "failures": failures,
        "server_peak_rss_mb": max((r for r in server_rss if r is not None), default=None),
    }


def _truth(oracle: Oracle, path: Path, text: str, before: list[OracleDefinition], old: str, new: str) -> bool | None:
    """The gate's rule on the oracle's definitions; None when the edited text does not parse for it."""
    effect = edit_effect(path.name, text, old, new)
    after = oracle.definitions(path, effect.after)
    return None if after is None else structural(label(before, after), effect.multi_line)


def _our_definitions(gateway: Gateway, name: str) -> list[OracleDefinition]:
    """Without an oracle, edits are still generated around definitions (ours), for latency and routing."""
    view = gateway.symbol_service.symbols(name)
    return [OracleDefinition(s.name_start, s.name_start + len(s.name), s.start, s.end) for s in view.symbols if s.has_definition]


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _renames(row: dict[str, Any]) -> str:
    """Renames that passed of those tried, and how many a reference oracle judged."""
    rename = row.get("operations", {}).get("rename", {})
    if not rename.get("tried"):
        return "–"
    judged = rename.get("judged", 0)
    return f"{rename['passed']}/{rename['tried']}" + (f" ({judged} judged)" if judged else " (rename back only)")


def render(rows: list[dict[str, Any]], profile_name: str) -> str:
    out = [
        f"Machine: {machine()}. Profile `{profile_name}`, seed {SEED}. Oracles, each the language's own and none the gateway's "
        "session: Python's `ast`, TypeScript's compiler API (TypeScript, TSX, JavaScript), Go's go/parser (benchmarks/gooracle), "
        "clang's AST (libclang) for C and C++, the Kotlin compiler's PSI, Ruby's Ripper, javac's parser, bash's own "
        "(`bash --pretty-print`); where none is reachable (Rust, C#), the server's documentSymbol from a server process of the "
        "oracle's own, labelled not independent. Renames are proven (every reference renamed, no namesake, no new error) by "
        "Python's symtable, go/types, TypeScript's checker, clang's referencedDecl and javac's attribution; elsewhere by the "
        "rename back alone. `–` where no oracle or no corpus exists here.",
        "",
        "| language | files | edits (judged) | oracle | ours false-block | ours missed | keyword false-block | keyword missed "
        "| classify p50 ms | routed (exact) | round trips exact | renames proven | server peak RSS MB |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "note" in r:
            out.append(f"| {r['language']} | 0 | – | – | – | – | – | – | – | – | – | – | – |")
            continue
        routing, trips = r["routing"], r["round_trips"]
        rss = f"{r['server_peak_rss_mb']:.0f}" if r["server_peak_rss_mb"] else "–"
        out.append(
            f"| {r['language']} | {r['files']} | {r['edits']} ({r['judged']}) | {r['oracle'] or '–'} "
            f"| {_percent(r['ours']['false_block_rate'])} | {_percent(r['ours']['missed_definition_rate'])} "
            f"| {_percent(r['keyword']['false_block_rate'])} | {_percent(r['keyword']['missed_definition_rate'])} "
            f"| {r['classify_p50_ms']:.1f} | {routing['routed']}/{routing['tried']} ({routing['exact']}) "
            f"| {trips['exact']}/{trips['checked']} | {_renames(r)} | {rss} |"
        )
    failures = [f for r in rows for f in r.get("failures", [])]
    missing = [r["language"] for r in rows if "note" in r]
    out += ["", f"Languages without third-party source on this machine: {', '.join(missing) or 'none'}."]
    out += [f"Failures ({len(failures)}):"] + [f"- {f}" for f in failures[:30]] if failures else ["Failures: none."]
    return "\n".join(out)


def chart(rows: list[dict[str, Any]], target: Path) -> None:
    shown = [r for r in rows if "note" not in r and r["judged"]]
    bar_chart([r["language"] for r in shown], [
        ("ours: false block", [r["ours"]["false_block_rate"] or 0 for r in shown], "#2b8cbe"),
        ("ours: missed definition", [r["ours"]["missed_definition_rate"] or 0 for r in shown], "#045a8d"),
        ("keyword: false block", [r["keyword"]["false_block_rate"] or 0 for r in shown], "#fdae6b"),
        ("keyword: missed definition", [r["keyword"]["missed_definition_rate"] or 0 for r in shown], "#e6550d"),
    ], "Gate errors per language: ours vs. a keyword gate", target)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer samples, same code path")
    parser.add_argument("--corpus", type=Path, help="measure on this repository instead of the machine's corpus")
    parser.add_argument("--languages", help="comma-separated subset")
    parser.add_argument("--fresh", action="store_true", help="ignore finished languages of an earlier run")
    parser.add_argument("--record", action="store_true", help="write the tracked results (RESULTS.md, results/matrix.*), not results/local/")
    args = parser.parse_args()
    profile_name = "quick" if args.quick else "full"
    partial = RESULTS_DIR / "partial" / (profile_name + ("-corpus" if args.corpus else ""))
    if args.fresh:
        shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True, exist_ok=True)
    rows = []
    for lang in args.languages.split(",") if args.languages else LANGUAGES:
        saved = partial / f"{lang}.json"
        if saved.exists():
            rows.append(json.loads(saved.read_text()))
            continue
        row = run_language(lang, PROFILES[profile_name], args.corpus)
        saved.write_text(json.dumps(row, indent=2))
        rows.append(row)
    result = {"machine": machine(), "profile": profile_name, "seed": SEED, "languages": rows,
              "benchmark_peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    stem = "matrix" if profile_name == "full" else f"matrix-{profile_name}"
    result_path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    chart(rows, result_path(f"{stem}.png"))
    markdown = render(rows, profile_name)
    print(markdown)
    if not args.corpus:
        if profile_name == "full":
            record(markdown, "matrix", "Language matrix (`make bench`, `make bench-quick`)")
        else:
            record(markdown, "matrix-quick", "Language matrix, quick profile (`make bench-quick`)")


if __name__ == "__main__":
    main()
