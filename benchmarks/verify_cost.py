"""The warm cost of the errors an edit's delta is made of, per language, beside the same
server's warm documentSymbol on the same file (issue 35: "the delta costs at most one warm
round trip per edited file").

For each language: a real file (given by path, or the default below) copied into a fresh
project with one caller; the server started; then, warm, RUNS times: one `errors_of` pair (the
file's text before, then after an appended line, each asking the file and its caller) and the
server's raw documentSymbol round trip on the same, unchanged document, side by side in one run.
`python benchmarks/verify_cost.py [--record] [LANGUAGE=PATH ...]`; recorded in RESULTS.md and
results/verify_cost.json.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, record, result_path  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.lsp.adapters import adapter_for  # noqa: E402
from gateway.lsp.diagnostics import errors_of  # noqa: E402
from gateway.lsp.discovery import planned, search_path  # noqa: E402
from gateway.lsp.session import LspSession  # noqa: E402

RUNS = 20
BUDGET = 30.0
NODE_MODULES = ROOT / ".tools" / "node" / "node_modules"


@dataclass(frozen=True)
class Target:
    language: str  # langs/*.toml
    source: Path  # the real file, copied in as `name`
    name: str
    caller: tuple[str, str]  # (file name, text) of a file that uses it
    appended: str  # the edit: a line added at the end
    program: tuple[str, ...] = ()  # a server other than the language's first (found on PATH)
    extra: tuple[tuple[str, str], ...] = ()  # other files the project needs


TARGETS = {
    "python (pyright)": Target("python", Path(sysconfig.get_paths()["stdlib"]) / "argparse.py", "argparse.py",
                               ("b.py", "from argparse import ArgumentParser\n\nparser = ArgumentParser()\n"), "# edited\n",
                               ("pyright-langserver", "--stdio")),
    "python (zuban)": Target("python", Path(sysconfig.get_paths()["stdlib"]) / "argparse.py", "argparse.py",
                             ("b.py", "from argparse import ArgumentParser\n\nparser = ArgumentParser()\n"), "# edited\n", ("zuban", "server")),
    "python (ty)": Target("python", Path(sysconfig.get_paths()["stdlib"]) / "argparse.py", "argparse.py",
                          ("b.py", "from argparse import ArgumentParser\n\nparser = ArgumentParser()\n"), "# edited\n", ("ty", "server")),
    "typescript": Target("typescript", NODE_MODULES / "bash-language-server" / "src" / "analyser.ts", "analyser.ts",
                         ("b.ts", "import Analyzer from './analyser';\n\nexport const made: typeof Analyzer = Analyzer;\n"), "// edited\n",
                         extra=(("tsconfig.json", "{}\n"),)),
    "go": Target("go", Path("/usr/local/go/src/container/list/list.go"), "list.go",
                 ("b.go", "package list\n\nfunc use() *List { return New() }\n"), "// edited\n", extra=(("go.mod", "module example.com/list\n\ngo 1.21\n"),)),
    "c": Target("c", Path("/usr/include/argp.h"), "argp.h", ("b.c", '#include "argp.h"\n\nint use(void) { return argp_parse(0, 0, 0, 0, 0, 0); }\n'),
                "/* edited */\n"),
    "java": Target("java", ROOT / "benchmarks" / "JavaDefinitions.java", "JavaDefinitions.java",
                   ("B.java", "class B {\n    Object made = new JavaDefinitions();\n}\n"), "// edited\n"),
}


def start(target: Target, root: Path) -> LspSession | None:
    spec = default_registry().get(target.language).server
    if target.program:
        found = shutil.which(target.program[0], path=search_path(root))
        if found is None:
            return None
        command, adapter = (found, *target.program[1:]), adapter_for(spec.adapter)
    else:
        plan = planned(spec, root)
        if plan is None:
            return None
        command, adapter, _ = plan
    return LspSession(Path(command[0]).name, command, root, adapter, 120).start()


def way(session: LspSession) -> str:
    """How the server gave its errors (gateway.lsp.diagnostics): pull, command or push."""
    if session.capabilities.get("diagnosticProvider") or "textDocument/diagnostic" in session.reports.registered.values():
        return "pull"
    return "command" if session.adapter.diagnostic_requests(Path("x")) else "push"


def measure(label: str, target: Target) -> dict[str, object] | None:
    root = Path(tempfile.mkdtemp(prefix="verify-cost-"))
    edited, caller = root / target.name, root / target.caller[0]
    before = target.source.read_text(encoding="utf-8")
    after = before + target.appended
    caller.write_text(target.caller[1])
    for name, text in target.extra:
        (root / name).write_text(text)
    edited.write_text(before)
    session = start(target, root)
    if session is None:
        print(f"{label}: no server installed", file=sys.stderr)
        return None
    language_id = default_registry().get(target.language).server.language_id_for(edited)
    try:
        def pair() -> dict[Path, object]:
            edited.write_text(before)
            errors_of(session, [(edited, before, language_id)], [edited, caller], time.monotonic() + BUDGET)
            edited.write_text(after)
            return errors_of(session, [(edited, after, language_id)], [edited, caller], time.monotonic() + BUDGET)  # type: ignore[return-value]

        first = pair()  # cold: the project loaded, every file analysed once
        unknown = sorted({str(result.unknown) for result in first.values() if result.unknown})  # type: ignore[attr-defined]
        pairs: list[float] = []
        symbols: list[float] = []
        uri = edited.as_uri()
        for _ in range(RUNS):
            started = time.perf_counter()
            pair()
            pairs.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}}))
            symbols.append((time.perf_counter() - started) * 1000)
        return {"language": label, "server": session.name, "way": way(session), "file": str(target.source),
                "lines": before.count("\n"), "pair_p50_ms": statistics.median(pairs), "pair_p95_ms": percentile(pairs, 0.95),
                "document_symbol_p50_ms": statistics.median(symbols), "unknown": unknown}
    finally:
        session.close()
        shutil.rmtree(root, ignore_errors=True)


def render(rows: list[dict[str, object]]) -> str:
    out = [
        f"Machine: {machine()}. {RUNS} warm runs per language; one pair is `errors_of` before and after an appended line, "
        "each asking the edited file and one caller; documentSymbol is the same server's raw round trip on the same document.",
        "",
        "| language | server | how | file (lines) | errors_of pair p50 / p95 ms | documentSymbol p50 ms | pair ÷ documentSymbol |",
        "|---|---|---|---|---:|---:|---:|",
    ]
    for r in rows:
        raw, pair = float(r["document_symbol_p50_ms"]), float(r["pair_p50_ms"])  # type: ignore[arg-type]
        unknown = f" (unknown: {'; '.join(r['unknown'])})" if r["unknown"] else ""  # type: ignore[arg-type]
        out.append(f"| {r['language']} | {r['server']} | {r['way']} | {Path(str(r['file'])).name} ({r['lines']}){unknown} | "
                   f"{pair:.1f} / {float(r['pair_p95_ms']):.1f} | {raw:.1f} | {pair / raw if raw else float('nan'):.1f}x |")  # type: ignore[arg-type]
    return "\n".join(out)


def main() -> None:
    targets = dict(TARGETS)
    for argument in sys.argv[1:]:
        if "=" in argument:
            label, path = argument.split("=", 1)
            targets[label] = Target(**{**targets[label].__dict__, "source": Path(path)})
    rows = []
    for label, target in targets.items():
        row = measure(label, target)
        if row is not None:
            print(f"{label}: {json.dumps({k: round(v, 1) if isinstance(v, float) else v for k, v in row.items()})}", file=sys.stderr)
            rows.append(row)
    markdown = render(rows)
    print(markdown)
    result_path("verify_cost.json").write_text(json.dumps({"machine": machine(), "languages": rows}, indent=2) + "\n")
    record(markdown, "verify-cost", "Verification cost per language")


if __name__ == "__main__":
    main()
