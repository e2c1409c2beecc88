"""C++ classification against a bare tree-sitter parse, on real C++ files of 1k–10k lines (issue 36).

Run: `python benchmarks/scale_cxx.py [--record]`. Side by side in one run, per file, the median of
(a) the floor: two whole-file parses from scratch with the pinned tree-sitter-language-pack's
cpp parser, of the text before and the text after the edit (what any judgement of an edit has to
read, with no tree reused), and (b) `Gate.check_edit` (what the hook's classification computes)
on a realistic header edit: a parameter added to a method of a class, in the middle of the file.
Each run gets a fresh text (a comment at the end names the run), so no tree or reading cached by
text is reused from an earlier run. The verdict is asserted each run (blocked as structural, the
method's header the one touched definition), so a fast but wrong gate fails the benchmark.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tree_sitter import Node, Parser  # noqa: E402
from tree_sitter_language_pack import get_parser  # noqa: E402

from benchmarks.report import machine, record, result_path  # noqa: E402
from gateway.gate.checker import Gate  # noqa: E402
from gateway.gate.verdict import Classification  # noqa: E402

RUNS = 15
# Real C++ nobody here wrote, 1k–10k lines (headers judged as C++ by a .hpp name). libstdc++'s own
# headers are not among them: tree-sitter reads `namespace std _GLIBCXX_VISIBILITY(default) {` as an
# error holding the whole file, so no method there reads cleanly enough to say which one an edit touches.
FILES = [
    Path("/usr/include/llvm-14/llvm/ADT/StringRef.h"),
    Path("/usr/include/llvm-14/llvm/ADT/SmallVector.h"),
    Path("/usr/include/llvm-14/llvm/ADT/APInt.h"),
    Path("/usr/include/llvm-14/llvm/IR/IRBuilder.h"),
    Path("/usr/include/llvm-14/llvm/CodeGen/TargetLowering.h"),
    Path("/usr/include/llvm-14/llvm/IR/Instructions.h"),
    Path("/usr/src/googletest/googlemock/include/gmock/gmock-matchers.h"),
    Path("/usr/src/googletest/googletest/src/gtest.cc"),
    Path("/usr/src/googletest/googletest/test/gtest_unittest.cc"),
]
PARAMETER = "int __added = 0"


@dataclass(frozen=True)
class HeaderEdit:
    """A parameter added to `method` (old → new, two whole lines: the one closing its parameter
    list and the next), as an agent's Edit sends it."""

    method: str
    line: int
    old: str
    new: str


def _clean(method: Node) -> bool:
    """Whether the parse has no error in the method's class (its body read as written)."""
    holder = method.parent.parent if method.parent is not None else None
    return holder is not None and holder.type in ("class_specifier", "struct_specifier") and not holder.has_error


def _methods(node: Node) -> list[Node]:
    """Function definitions directly in a class body, with at least one parameter."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "function_definition" and current.parent is not None and current.parent.type == "field_declaration_list":
            declarator = current.child_by_field_name("declarator")
            params = declarator.child_by_field_name("parameters") if declarator is not None and declarator.type == "function_declarator" else None
            name = declarator.child_by_field_name("declarator") if declarator is not None else None
            if params is not None and params.named_child_count and name is not None and name.type == "field_identifier" and _clean(current):
                found.append(current)
        stack.extend(current.children)
    return found


def header_edit(parser: Parser, text: str) -> HeaderEdit:
    """The method nearest the file's middle whose edit is unique in the file."""
    data = text.encode()
    tree = parser.parse(data)
    middle = len(data) // 2
    for method in sorted(_methods(tree.root_node), key=lambda n: abs(n.start_byte - middle)):
        declarator = method.child_by_field_name("declarator")
        assert declarator is not None
        params = declarator.child_by_field_name("parameters")
        name = declarator.child_by_field_name("declarator")
        assert params is not None and name is not None
        close = params.end_byte - 1
        start = data.rfind(b"\n", 0, close) + 1
        end = data.find(b"\n", data.find(b"\n", close) + 1) + 1
        old = data[start:end].decode()
        new = data[start:close].decode() + ", " + PARAMETER + data[close:end].decode()
        if end > 0 and old.splitlines()[1].strip() and text.count(old) == 1:
            return HeaderEdit((name.text or b"").decode(), method.start_point[0] + 1, old, new)
    raise RuntimeError("no method with parameters whose edit is unique")


def _fresh(text: str, run: int) -> str:
    return f"{text}// scale_cxx run {run}\n"


@dataclass(frozen=True)
class Row:
    file: str
    lines: int
    method: str
    method_line: int
    floor_ms: float
    gate_ms: float


def measure(path: Path, workspace: Path) -> Row:
    text = path.read_text(encoding="utf-8")
    parser = get_parser("cpp")
    edit = header_edit(parser, text)
    name = str(workspace / (path.stem + (".cc" if path.suffix == ".cc" else ".hpp")))
    floor, gate_ms = [], []
    Gate(root=workspace).check_edit(name, _fresh(text, -1), edit.old, edit.new)  # warm: queries compiled, headers read
    for run in range(RUNS):
        before = _fresh(text, run)
        after = before.replace(edit.old, edit.new, 1)
        started = time.perf_counter()
        parser.parse(before.encode())
        parser.parse(after.encode())
        floor.append((time.perf_counter() - started) * 1000)
        before = _fresh(text, RUNS + run)
        gate = Gate(root=workspace)
        started = time.perf_counter()
        _, verdict = gate.check_edit(name, before, edit.old, edit.new)
        gate_ms.append((time.perf_counter() - started) * 1000)
        problem = verdict_problem(path, edit, verdict)
        if problem is not None:
            raise AssertionError(problem)
    return Row(path.name, text.count("\n"), edit.method, edit.line, statistics.median(floor), statistics.median(gate_ms))


def verdict_problem(path: Path, edit: HeaderEdit, verdict: Classification) -> str | None:
    """What is wrong with the verdict on the header edit (blocked as structural, the method's
    header the one touched definition), or None."""
    touched = [(t.name, t.change) for t in verdict.definitions]
    if verdict.decision != "block" or verdict.reason != "definition" or touched != [(edit.method, "header")]:
        return (f"{path}: adding a parameter to {edit.method} (line {edit.line}) was judged "
                f"{verdict.decision}/{verdict.reason} {touched}: {verdict.message}")
    return None


def render(rows: list[Row]) -> str:
    out = [
        f"Machine: {machine()}. Median of {RUNS} runs per file, side by side in one run. Floor: two whole-file parses from "
        "scratch with tree-sitter-language-pack's cpp parser (the text before and after the edit). Gate: `Gate.check_edit` "
        f"on a parameter (`{PARAMETER}`) added to the class method nearest the file's middle, judged blocked as a header "
        "change of that method (asserted each run); a fresh text each run.",
        "",
        "| file | lines | method (line) | floor ms | gate ms | gate / floor |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for row in rows:
        out.append(f"| {row.file} | {row.lines} | {row.method} ({row.method_line}) | {row.floor_ms:.1f} | {row.gate_ms:.1f} "
                   f"| {row.gate_ms / row.floor_ms:.2f}× |")
    floor, gate = sum(r.floor_ms for r in rows), sum(r.gate_ms for r in rows)
    ratios = [r.gate_ms / r.floor_ms for r in rows]
    out.append(f"| **all** (sums of the medians; median ratio {statistics.median(ratios):.2f}×) | {sum(r.lines for r in rows)} | "
               f"| {floor:.1f} | {gate:.1f} | **{gate / floor:.2f}×** |")
    return "\n".join(out)


def main() -> None:
    present = [p for p in FILES if p.is_file()]
    if len(present) < 3:
        raise SystemExit(f"scale_cxx: needs at least 3 of {[str(p) for p in FILES]} (libstdc++ 12's headers, googletest's sources)")
    with tempfile.TemporaryDirectory() as directory:
        rows = [measure(path, Path(directory)) for path in present]
    report = render(rows)
    print(report)
    result_path("scale_cxx.json").write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=2) + "\n")
    if "--record" in sys.argv[1:]:
        record(report, "scale-cxx", "C++ classification against a bare parse")


if __name__ == "__main__":
    main()
