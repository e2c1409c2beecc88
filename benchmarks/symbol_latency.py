"""Symbol operations against warm language servers, beside the server's own documentSymbol round trip.

Run with `make bench`. For each language with a server installed here: the cold start
(process start, initialize, first documentSymbol), then warm p50/p95 of the raw
documentSymbol request and of each gateway operation on the fixture project, so the
gateway's own overhead shows as a ratio. Recorded in RESULTS.md and results/symbol_latency.json.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, record, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.symbols.backends import LspBackend  # noqa: E402

RUNS = 30
FIXTURES = ROOT / "tests" / "fixtures"
# language: (file, symbol to replace, two bodies to alternate, anchor for insert/remove)
TARGETS = {
    "python": ("pkg/shapes.py", "area", ("def area(width, height):\n    return width * height * 1", "def area(width, height):\n    return width * height"), "perimeter"),
    "typescript": ("src/shapes.ts", "Circle/scale", ("scale(factor: number): Circle {\n  return new Circle(this.radius * factor * 1);\n}", "scale(factor: number): Circle {\n  return new Circle(this.radius * factor);\n}"), "double"),
    "tsx": ("src/App.tsx", "Greeting", ("export function Greeting({ name }: Props) {\n  return <h2>{name}</h2>;\n}", "export function Greeting({ name }: Props) {\n  return <h1>Hello {name}</h1>;\n}"), "Card"),
    "javascript": ("src/store.js", "Store/add", ("add(item) {\n  this.items.unshift(item);\n}", "add(item) {\n  this.items.push(item);\n}"), "createStore"),
    "go": ("shapes.go", "Describe", ('func Describe(r *Rect) string {\n\treturn "box"\n}', 'func Describe(r *Rect) string {\n\treturn "rect"\n}'), "Describe"),
    "c": ("geometry.c", "square", ("static int square(int v) {\n    return v * v * 1;\n}", "static int square(int v) {\n    return v * v;\n}"), "distance2"),
    "cpp": ("circle.cpp", "Circle/name", ('std::string name() const { return "round"; }', 'std::string name() const { return "circle"; }'), "/Circle/scale[3]"),
}
EXTRA = {
    "python": "def extra():\n    return 0",
    "typescript": "export const extra = (): number => 0;",
    "tsx": "export const Extra = () => <i />;",
    "javascript": "export function extra() {\n  return 0;\n}",
    "go": "func Extra() int {\n\treturn 0\n}",
    "c": "int extra(void) {\n    return 0;\n}",
    "cpp": "int extra() {\n    return 0;\n}",
}

EXTRA_NAME = {"tsx": "Extra", "go": "Extra"}


def timed(samples: list[float], action: Callable[[], object]) -> None:
    started = time.perf_counter()
    action()
    samples.append((time.perf_counter() - started) * 1000)


def measure(lang: str) -> dict[str, object]:
    path, target, bodies, anchor = TARGETS[lang]
    root = Path(tempfile.mkdtemp(prefix=f"bench-{lang}-"))
    shutil.copytree(FIXTURES / lang, root, dirs_exist_ok=True)
    with Gateway(root) as gateway:
        started = time.perf_counter()
        listing = gateway.symbols(path).to_json()
        cold = (time.perf_counter() - started) * 1000
        view = gateway.symbol_service.symbols(path)
        assert isinstance(view.backend, LspBackend), f"{lang}: no server"
        session, uri = view.backend.session, view.source.path.as_uri()
        samples: dict[str, list[float]] = {k: [] for k in ("documentSymbol", "symbols", "replace_symbol", "insert_code", "remove_symbol")}
        for run in range(RUNS):
            gateway.symbols(path)  # let the server settle after the previous write; both below see the same document
            timed(samples["documentSymbol"], lambda: session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}})))
            timed(samples["symbols"], lambda: gateway.symbols(path))
            timed(samples["replace_symbol"], lambda: gateway.replace_symbol(target, path, bodies[run % 2]))
            timed(samples["insert_code"], lambda: gateway.insert_code(anchor, path, EXTRA[lang], "after"))
            timed(samples["remove_symbol"], lambda: gateway.remove_symbol(EXTRA_NAME.get(lang, "extra"), path))
    shutil.rmtree(root)
    row: dict[str, object] = {"language": lang, "backend": listing["backend"], "cold_start_ms": cold}
    for name, values in samples.items():
        row[f"{name}_p50_ms"] = statistics.median(values)
        row[f"{name}_p95_ms"] = percentile(values, 0.95)
    return row


def render(rows: list[dict[str, object]]) -> str:
    out = [
        f"Machine: {machine()}. Fixture projects from tests/fixtures, {RUNS} warm runs of each operation; "
        "every write is a real atomic write followed by didChange/didSave.",
        "",
        "| language | server | cold start ms | documentSymbol p50 | symbols p50 / p95 | replace p50 / p95 | insert p50 / p95 | remove p50 / p95 | replace ÷ documentSymbol |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        raw = float(r["documentSymbol_p50_ms"])  # type: ignore[arg-type]
        cells = [f"{float(r[f'{op}_p50_ms']):.1f} / {float(r[f'{op}_p95_ms']):.1f}" for op in ("symbols", "replace_symbol", "insert_code", "remove_symbol")]  # type: ignore[arg-type]
        ratio = float(r["replace_symbol_p50_ms"]) / raw if raw else float("nan")  # type: ignore[arg-type]
        out.append(f"| {r['language']} | {str(r['backend']).removeprefix('lsp:')} | {float(r['cold_start_ms']):.0f} | {raw:.1f} | " + " | ".join(cells) + f" | {ratio:.1f}x |")  # type: ignore[arg-type]
    return "\n".join(out)


def main() -> None:
    rows = []
    for lang in TARGETS:
        row = measure(lang)
        print(f"{lang}: {json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in row.items()})}", file=sys.stderr)
        rows.append(row)
    markdown = render(rows)
    print(markdown)
    result_path("symbol_latency.json").write_text(json.dumps({"machine": machine(), "languages": rows}, indent=2) + "\n")
    record(markdown, "symbol-latency", "Symbol operations on warm servers (`make bench`)")


if __name__ == "__main__":
    main()
