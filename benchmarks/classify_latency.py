"""Latency of the gate on ~2,000-line real files, beside a keyword gate, in-process and as a process.

Run with `make bench`. Before timing, the verdicts known by construction are checked (a body-only
edit allowed, a whole definition removed blocked): a wrong verdict fails the run. Prints a Markdown table and records it in benchmarks/RESULTS.md
between the classify-latency markers, and the raw numbers in results/classify_latency.json.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.keyword_gate import keyword_gate_blocks  # noqa: E402
from benchmarks.report import machine, percentile, process_median_ms, record, result_path  # noqa: E402
from gateway.gate.checker import classify_edit  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.syntax import find_definitions  # noqa: E402

LINES = 2000
EDITS_PER_KIND = 40
PROCESS_RUNS = 15
STDLIB = Path(sysconfig.get_paths()["stdlib"])
NODE = ROOT / ".tools" / "node" / "node_modules" / "typescript" / "lib"

# (language, real file, the name the gate sees). Headers are judged as what they contain.
CORPUS = [
    ("python", STDLIB / "difflib.py", "difflib.py"),
    ("go", Path("/usr/lib/go-1.19/src/net/http/server.go"), "server.go"),
    ("javascript", NODE / "typescript.js", "typescript.js"),
    ("typescript", NODE / "lib.dom.d.ts", "lib.dom.d.ts"),
    ("c", Path("/usr/include/gcrypt.h"), "gcrypt.h"),
    ("cpp", Path("/usr/include/c++/12/bits/unordered_set.h"), "unordered_set.hpp"),
]


@dataclass(frozen=True)
class Edit:
    kind: str
    old: str
    new: str


def first_lines(path: Path, count: int) -> str:
    with open(path, encoding="utf-8", errors="replace") as handle:
        return "".join(line for _, line in zip(range(count), handle))


def generate_edits(language: str, name: str, content: str, seed: int = 0) -> list[Edit]:
    """Whole definitions, two lines inside a body, and single lines, as an agent would send them."""
    rng = random.Random(seed)
    lines = content.splitlines(keepends=True)
    definitions = find_definitions(default_registry().get(language), content.encode())
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line.encode()))
    data = content.encode()
    whole, body = [], []
    for d in definitions:
        text = data[d.start_byte : d.end_byte].decode()
        if content.count(text) == 1 and "\n" in text and "(" in text:
            whole.append(Edit("whole_definition", text, text.replace("(", "( ", 1)))
        if d.end_line - d.name_line >= 3:
            first = d.name_line + 1
            pair = "".join(lines[first - 1 : first + 1])
            if content.count(pair) == 1 and pair.strip():
                body.append(Edit("body_only", pair, pair.replace("\n", " \n", 1)))
    single = []
    for line in rng.sample(lines, min(len(lines), 4 * EDITS_PER_KIND)):
        if line.strip() and content.count(line) == 1 and line.endswith("\n"):
            single.append(Edit("single_line", line, line.rstrip("\n") + " \n"))
    picked: list[Edit] = []
    for group in (whole, body, single):
        picked += rng.sample(group, min(len(group), EDITS_PER_KIND))
    return picked


def verdict_problems(language: str, name: str, content: str, edits: list[Edit]) -> list[str]:
    """The gate's verdicts checked where they are known by construction: each body-only edit (a
    blank at the end of a body's line) allowed, and each whole definition removed (up to
    EDITS_PER_KIND, generated here) blocked; what was judged otherwise, one line each."""
    removals = []
    for d in find_definitions(default_registry().get(language), content.encode()):
        text = content.encode()[d.start_byte : d.end_byte].decode()
        if "\n" in text and content.count(text) == 1:
            removals.append(Edit("remove_definition", text, ""))
    expected = [(e, False) for e in edits if e.kind == "body_only"] + [(e, True) for e in removals[:EDITS_PER_KIND]]
    problems = []
    for edit, blocks in expected:
        verdict = classify_edit(name, edit.old, edit.new, content=content)
        if verdict.blocked != blocks:
            problems.append(f"{name}: {edit.kind} at line {content[: content.index(edit.old)].count(chr(10)) + 1} judged "
                            f"{verdict.decision} ({verdict.reason})")
    return problems


def time_in_process(language: str, name: str, content: str, edits: list[Edit]) -> dict[str, float]:
    ours, keyword = [], []
    for edit in edits:
        started = time.perf_counter()
        classify_edit(name, edit.old, edit.new, content=content)
        ours.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        keyword_gate_blocks(language, edit.old, edit.new)
        keyword.append((time.perf_counter() - started) * 1000)
    return {
        "ours_p50_ms": statistics.median(ours),
        "ours_p99_ms": percentile(ours, 0.99),
        "keyword_p50_ms": statistics.median(keyword),
        "keyword_p99_ms": percentile(keyword, 0.99),
    }


def time_process(command: list[str], cwd: Path, stdin: str | None = None) -> float:
    return process_median_ms(command, cwd, stdin, PROCESS_RUNS)


def process_timings(workspace: Path, name: str, edit: Edit) -> dict[str, float]:
    python = sys.executable
    classify = [python, "-m", "gateway", "classify", name, "--old", edit.old, "--new", edit.new, "--json"]
    keyword = [
        python, "-c",
        "import sys; sys.path.insert(0, sys.argv[1]); from benchmarks.keyword_gate import keyword_gate_blocks;"
        " keyword_gate_blocks('python', sys.argv[2], sys.argv[3])",
        str(ROOT), edit.old, edit.new,
    ]
    payload = json.dumps({"tool_name": "Edit", "cwd": str(workspace), "tool_input": {"file_path": name, "old_string": edit.old, "new_string": edit.new}})
    gateway_script = str(Path(python).parent / "gateway")
    return {
        "python_c_pass_ms": time_process([python, "-c", "pass"], workspace),
        "gateway_classify_ms": time_process(classify, workspace),
        "keyword_gate_process_ms": time_process(keyword, workspace),
        "hook_claude_code_ms": time_process([gateway_script, "hook", "claude-code"], workspace, payload),
        "hook_pass_through_ms": time_process([gateway_script, "hook", "claude-code"], workspace, json.dumps({"tool_name": "Bash", "tool_input": {"command": "ls"}})),
    }


SIZES = (100_000, 1_000_000, 8_000_000)


def stdlib_file(size: int) -> str:
    """Real code of about `size` bytes: whole standard-library modules, one after another."""
    parts, total = [], 0
    for path in sorted(STDLIB.rglob("*.py")):
        if "test" in path.parts or path.stat().st_size > size // 4:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        parts.append(text if text.endswith("\n") else text + "\n")
        total += len(text.encode())
        if total >= size:
            break
    return "".join(parts)


def size_scaling() -> list[dict[str, float]]:
    """The gate on one body-only and one header edit in the middle of 100 KB, 1 MB and 8 MB of
    real code, beside one full tree-sitter parse of the same text (medians of 3)."""
    from gateway.syntax import parse

    lang, rows = default_registry().get("python"), []
    for size in SIZES:
        content = stdlib_file(size)
        data = content.encode()
        lines = content.splitlines(keepends=True)
        candidates = (d for d in find_definitions(lang, data) if d.start_byte >= len(data) // 2 and d.end_line - d.start_line >= 3)
        old = next(o for o in ("".join(lines[d.start_line - 1 : d.start_line + 1]) for d in candidates) if content.count(o) == 1)
        edits = {"body": (old, old.rstrip("\n") + "  # edited\n"), "header": (old, old.replace("(", "(extra, ", 1))}
        row: dict[str, float] = {"bytes": len(data), "lines": content.count("\n")}
        for kind, (before, after) in edits.items():
            samples = []
            for _ in range(3):
                started = time.perf_counter()
                classify_edit("big.py", before, after, content=content)
                samples.append((time.perf_counter() - started) * 1000)
            row[f"{kind}_ms"] = statistics.median(samples)
        parses = []
        for _ in range(3):
            started = time.perf_counter()
            parse(lang, data)
            parses.append((time.perf_counter() - started) * 1000)
        row["parse_ms"] = statistics.median(parses)
        rows.append(row)
    return rows


def render_scaling(rows: list[dict[str, float]]) -> str:
    out = [
        "Gate time against file size: an edit in the middle of standard-library modules concatenated to each size "
        "(median of 3), beside one full tree-sitter parse of the same text.",
        "",
        "| size | lines | body-only edit ms | header edit ms | full parse ms | gate / parse | gate ms per MB |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r['bytes'] / 1e6:.1f} MB | {r['lines']:.0f} | {r['body_ms']:.0f} | {r['header_ms']:.0f} | {r['parse_ms']:.0f} "
            f"| {r['body_ms'] / r['parse_ms']:.2f} | {r['body_ms'] / (r['bytes'] / 1e6):.0f} |"
        )
    return "\n".join(out)


def render(rows: list[dict[str, object]], process: dict[str, float]) -> str:
    out = [
        f"Machine: {machine()}. Each file is the first {LINES} lines of a real third-party file; "
        f"up to {EDITS_PER_KIND} edits each of whole definitions, two body lines and single lines.",
        "",
        "| language | file | lines | edits | ours p50 ms | ours p99 ms | keyword p50 ms | keyword p99 ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        out.append(
            f"| {row['language']} | {row['file']} | {row['lines']} | {row['edits']} | {row['ours_p50_ms']:.2f} "
            f"| {row['ours_p99_ms']:.2f} | {row['keyword_p50_ms']:.3f} | {row['keyword_p99_ms']:.3f} |"
        )
    out += [
        "",
        f"Whole process on the {LINES}-line Python file (median of {PROCESS_RUNS} runs):",
        "",
        "| command | ms |",
        "|---|---:|",
        f"| `python3 -c pass` | {process['python_c_pass_ms']:.0f} |",
        f"| keyword gate as a process | {process['keyword_gate_process_ms']:.0f} |",
        f"| `gateway classify --json` | {process['gateway_classify_ms']:.0f} |",
        f"| `gateway hook claude-code` (Edit payload, blocked) | {process['hook_claude_code_ms']:.0f} |",
        f"| `gateway hook claude-code` (Bash payload, passed through) | {process['hook_pass_through_ms']:.0f} |",
    ]
    return "\n".join(out)


def main() -> None:
    rows: list[dict[str, object]] = []
    python_case: tuple[str, str, Edit] | None = None
    for language, path, name in CORPUS:
        if not path.exists():
            print(f"skipping {language}: {path} is not on this machine", file=sys.stderr)
            continue
        content = first_lines(path, LINES)
        edits = generate_edits(language, name, content)
        problems = verdict_problems(language, name, content, edits)
        if problems:  # a fast gate that judges wrong fails the benchmark
            raise SystemExit(f"classify_latency: {len(problems)} verdict(s) wrong:\n" + "\n".join(problems[:20]))
        timings = time_in_process(language, name, content, edits)
        rows.append({"language": language, "file": path.name, "lines": content.count("\n"), "edits": len(edits), **timings})
        print(f"{language}: {timings}", file=sys.stderr)
        if language == "python":
            python_case = (name, content, next(e for e in edits if e.kind == "whole_definition"))
    assert python_case is not None, "the Python standard library is always present"
    name, content, edit = python_case
    workspace = ROOT / "benchmarks" / "results" / "workspace"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / name).write_text(content)
    process = process_timings(workspace, name, edit)
    scaling = size_scaling()
    markdown = render(rows, process) + "\n\n" + render_scaling(scaling)
    print(markdown)
    result_path("classify_latency.json").write_text(
        json.dumps({"machine": machine(), "files": rows, "process": process, "scaling": scaling}, indent=2) + "\n"
    )
    record(markdown, "classify-latency", "Gate latency (`make bench`)")


if __name__ == "__main__":
    main()
