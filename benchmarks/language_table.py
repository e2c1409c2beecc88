"""One row per language the gateway knows (langs/*.toml): the backend used here, the server's
version, the symbol operations verified, the polyglot results and a latency ratio (issue 25).

    python benchmarks/language_table.py [--record] [--runs N] [--languages a,b]

Reads the language matrix's saved results (results/matrix-quick.json: run
`python benchmarks/matrix.py --quick --record` first, which checks each operation per
language) and the polyglot benchmark's (results/polyglot.json). Measures, one language at a
time: the backend and version (`Gateway.servers()`, as `gateway servers` reports them), and a
symbol operation beside its baseline on the same unchanged file in one loop: `replace_symbol`
against the server's own documentSymbol request, or, on tree-sitter, against a full parse of the
file with a new parser tree (no earlier tree to reuse).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import sample  # noqa: E402
from benchmarks.matrix import SEED  # noqa: E402
from benchmarks.matrix_ops import OPERATIONS, doubled_blank  # noqa: E402
from benchmarks.report import RESULTS_DIR, machine, record, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.errors import GatewayError  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.namepath import address_for  # noqa: E402
from gateway.symbols.backends import LspBackend  # noqa: E402
from gateway.symbols.model import Symbol  # noqa: E402
from gateway.syntax import parser_for, utf8  # noqa: E402

RUNS = 30
TRIED = 10  # definitions tried per file before it is given up
FIXTURES = ROOT / "tests" / "fixtures"


def languages() -> list[str]:
    return sorted(p.stem for p in (ROOT / "langs").glob("*.toml"))


def _sources(lang: str) -> list[tuple[str, str, str]]:
    """(name in the workspace, text, where from): the matrix's first file of the language, then
    the test fixture's first file of it (for a language with no third-party source here, or
    none of whose definitions can be replaced)."""
    suffixes = default_registry().get(lang).extensions
    found = sorted(p for p in (FIXTURES / lang).rglob("*") if p.suffix in suffixes)
    fixture = [(found[0].name, found[0].read_text(encoding="utf-8"), f"tests/fixtures/{found[0].relative_to(FIXTURES)}")]
    return [(f.name, f.text, f.origin) for f in sample(lang, 1, SEED)] + fixture


def _targets(symbols: list[Symbol], text: str) -> Iterator[tuple[Symbol, str, str]]:
    """Definitions from the file's middle outwards, each with its text and the matrix's replace
    check's text for it."""
    middle = len(text) // 2
    for symbol in sorted((s for s in symbols if s.has_definition), key=lambda s: abs(s.start - middle)):
        edited = doubled_blank(symbol, text)
        if edited is not None:
            yield symbol, text[symbol.start : symbol.end], edited


def _replaceable(gateway: Gateway, root: Path, name: str) -> tuple[str, str, str, int] | None:
    """(address, edited text, own text, definitions refused before it) of the first definition
    whose replacement and its undoing both go through; the file is as before."""
    view = gateway.symbol_service.symbols(name)
    original = (root / name).read_bytes()
    for refused, (symbol, code, edited) in enumerate(itertools.islice(_targets(view.symbols, view.source.text), TRIED)):
        address = address_for([s.name_path for s in view.symbols], view.symbols.index(symbol))
        try:
            gateway.replace_symbol(address, name, edited)
            gateway.replace_symbol(address, name, code)
            if (root / name).read_bytes() == original:
                return address, edited, code, refused
        except GatewayError:
            pass
        (root / name).write_bytes(original)
    return None


def _ms(action: Any) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def measure(lang: str, runs: int) -> dict[str, Any]:
    """Per language: backend, the server's entry, and replace_symbol beside its baseline."""
    skipped = []
    for name, text, origin in _sources(lang):
        row = _measure_file(lang, name, text, origin, runs)
        if "note" not in row:
            return {**row, "skipped": skipped}
        skipped.append(f"{Path(origin.split('!')[-1]).name}: {row['note']}")
    return {**row, "skipped": skipped[:-1]}


def _measure_file(lang: str, name: str, text: str, origin: str, runs: int) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix=f"langtable-{lang}-"))
    (root / "compile_flags.txt").write_text("-std=c++17\n" if lang == "cpp" else "-std=c11\n")
    (root / name).write_text(text, encoding="utf-8")
    row: dict[str, Any] = {"language": lang, "file": origin, "lines": text.count("\n")}
    try:
        with Gateway(root) as gateway:
            row["server"] = next(s for s in gateway.servers().to_json()["languages"] if s["language"] == lang)
            view = gateway.symbol_service.symbols(name)
            row["backend"] = view.backend.name
            picked = _replaceable(gateway, root, name)
            if picked is None:
                return {**row, "note": f"none of {TRIED} definitions tried could be replaced"}
            address, edited, code, row["refused_before"] = picked
            row["target"] = address
            row.update(_time(gateway, name, address, (edited, code), runs, view.backend))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return row


def _time(gateway: Gateway, name: str, address: str, bodies: tuple[str, str], runs: int, backend: Any) -> dict[str, Any]:
    """Both timed in one loop, on the same unchanged document; the first round warms up."""
    baseline: list[float] = []
    replace: list[float] = []
    for run in range(runs + 1):
        view = gateway.symbol_service.symbols(name)  # settle after the previous write
        if isinstance(backend, LspBackend):
            session, uri = backend.session, view.source.path.as_uri()
            took = _ms(lambda: session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}})))
        else:
            source, grammar = utf8(view.source.text), view.lang.grammar
            took = _ms(lambda: parser_for(grammar).parse(source))
        spent = _ms(lambda: gateway.replace_symbol(address, name, bodies[run % 2]))
        if run:
            baseline.append(took)
            replace.append(spent)
    kind = "documentSymbol" if isinstance(backend, LspBackend) else "tree-sitter parse"
    return {"baseline": kind, "baseline_p50_ms": statistics.median(baseline), "replace_p50_ms": statistics.median(replace), "runs": runs}


def _count(ops: dict[str, Any]) -> str:
    shown = [f"{op} {ops[op]['passed']}/{ops[op]['tried']}" for op in OPERATIONS if ops.get(op, {}).get("tried")]
    return " · ".join(shown) or "–"


def _operations(matrix: dict[str, Any] | None) -> str:
    """Each operation's passed/tried on the matrix's files, and the routed edits (exact)."""
    if matrix is None or "note" in matrix:
        return "– (no third-party source here)"
    routing = matrix["routing"]
    return f"{_count(matrix.get('operations', {}))} · routed {routing['routed']}/{routing['tried']} ({routing['exact']} exact)"


def _polyglot(entry: dict[str, Any] | None) -> tuple[str, str, str]:
    """(per-definition edits, whole-file writes, tests after the gateway / after plain replacement)."""
    if entry is None:
        return "–", "–", "–"
    summary, cells = entry["summary"], []
    for mode in ("edits", "write"):
        m = summary[mode]
        refused = sum(m["refused"].values())
        cells.append(f"{m['routed_exact']}/{m['structural']} routed exact ({m['judged']} judged, {refused} refused)")
    tests = summary["tests"]
    passed = " · ".join(f"{tests[key]['passed']}/{tests[key]['run']}" for key in ("gateway edits", "gateway write", "plain edits"))
    return cells[0], cells[1], passed


def _backend(row: dict[str, Any], matrix: dict[str, Any] | None) -> str:
    server = row["server"]
    if row["backend"] == "tree-sitter":
        cell = f"tree-sitter ({server['server']} {'not found here' if not server.get('found') else server.get('reason') or server.get('status')})"
    else:
        cell = row["backend"].removeprefix("lsp:") + ("; renames through tree-sitter" if server.get("rename_fallback") else "")
    if matrix and matrix.get("backend") and matrix["backend"] != row["backend"]:
        cell += f" (the matrix ran on {matrix['backend']})"
    return cell


def _target_cell(row: dict[str, Any]) -> str:
    cell = f"{Path(row['file'].split('!')[-1]).name} ({row['lines']} lines)"
    if "target" in row:
        cell += f", `{row['target']}`" + (f" ({row['refused_before']} refused before it)" if row["refused_before"] else "")
    cell += f": {row['note']}" if "note" in row else ""
    return cell + "".join(f" (instead of {skipped})" for skipped in row.get("skipped", []))


def _latency(row: dict[str, Any]) -> tuple[str, str, str]:
    if "replace_p50_ms" not in row:
        return "–", "–", "–"
    ratio = row["replace_p50_ms"] / row["baseline_p50_ms"]
    return f"{row['replace_p50_ms']:.1f}", f"{row['baseline']} {row['baseline_p50_ms']:.1f}", f"{ratio:.1f}x"


def render(rows: list[dict[str, Any]], matrix: dict[str, Any], polyglot: dict[str, Any], load: str) -> str:
    by_lang = {r["language"]: r for r in matrix.get("languages", [])}
    poly = {r["language"]: r for r in polyglot.get("languages", [])}
    runs = rows[0].get("runs", RUNS) if rows else RUNS
    out = [
        f"Machine: {machine()}. Operations: matrix profile `{matrix.get('profile')}`, seed {matrix.get('seed')} "
        f"({'results/matrix.json' if matrix.get('profile') == 'full' else 'results/matrix-quick.json'}). Polyglot: results/polyglot.json (Aider-AI/polyglot-benchmark at {polyglot.get('checkout', '?')}). "
        f"Latency: p50 of {runs} runs after one warm-up, replace_symbol and its baseline alternating on the same unchanged file; "
        f"load average (1 min) {load} (other work shared the machine).",
        "",
        "| language | backend here | server version | operations verified (passed/tried) | polyglot: one edit per definition "
        "| polyglot: whole-file writes | polyglot tests passing: gateway edits · gateway writes · plain | file, definition replaced "
        "| replace p50 ms | baseline p50 ms | replace ÷ baseline |",
        "|---|---|---|---|---|---|---|---|---:|---|---:|",
    ]
    for row in rows:
        edits, writes, tests = _polyglot(poly.get(row["language"]))
        version = row["server"].get("version") if row["backend"] != "tree-sitter" else None
        out.append(
            f"| {row['language']} | {_backend(row, by_lang.get(row['language']))} | {version or '–'} | {_operations(by_lang.get(row['language']))} "
            f"| {edits} | {writes} | {tests} | {_target_cell(row)} | " + " | ".join(_latency(row)) + " |"
        )
    return "\n".join(out)


_PHRASES = ("renamed in no file", "listed afterwards", "renamed back, bytes differ", "replaced back, bytes differ",
            "result differs from the text given", "not listed")


def _reason(failure: str) -> str:
    """What kind of failure: the check's own words, else the gateway error's kind."""
    found = next((phrase for phrase in _PHRASES if phrase in failure), None)
    if found:
        return found
    kind = re.search(r": (server_failed|collision|ambiguous|not_found|syntax_error|shadowed|usage|[a-z]+_error): ", failure)
    return kind.group(1) if kind else "other"


def _failures(matrix: dict[str, Any]) -> list[str]:
    """Per language, operation and reason: how many, and the first one."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in matrix.get("languages", []):
        for failure in r.get("operation_failures", []):
            op, _, message = failure.partition(": ")
            groups.setdefault((r["language"], op, _reason(message)), []).append(message)
    return [f"- {lang} {op}, {reason} ({len(found)}): {found[0][:240]}" for (lang, op, reason), found in groups.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--languages", help="comma-separated subset")
    parser.add_argument("--matrix", type=Path, default=RESULTS_DIR / "matrix-quick.json", help="the matrix's saved results")
    parser.add_argument("--record", action="store_true", help="write RESULTS.md and results/language_table.json")
    parser.add_argument("--report-only", action="store_true", help="measure nothing: the saved rows with the matrix's and polyglot's results as they are now")
    args = parser.parse_args()
    matrix = json.loads(args.matrix.read_text())
    polyglot = json.loads((RESULTS_DIR / "polyglot.json").read_text())
    if args.report_only:
        saved = json.loads(result_path("language_table.json").read_text())
        rows, load = saved["languages"], saved.get("load", "–")
    else:
        rows, loads = [], [os.getloadavg()[0]]
        for lang in args.languages.split(",") if args.languages else languages():
            row = measure(lang, args.runs)
            print(f"{lang}: {row['backend']} {row.get('replace_p50_ms', 0):.1f} / {row.get('baseline_p50_ms', 0):.1f} ms", file=sys.stderr)
            rows.append(row)
            loads.append(os.getloadavg()[0])
        load = f"{min(loads):.1f}–{max(loads):.1f}"
    failures = _failures(matrix)
    markdown = render(rows, matrix, polyglot, load) + "\n\n" + ("Operations that did not pass, by language, operation and reason (count, first case; all in the matrix's JSON):\n" + "\n".join(failures) if failures else "Operations that did not pass: none.")
    print(markdown)
    result_path("language_table.json").write_text(json.dumps({"machine": machine(), "load": load, "languages": rows}, indent=2) + "\n")
    record(markdown, "language-table", "Language table")


if __name__ == "__main__":
    main()
