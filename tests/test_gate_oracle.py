"""The gate against an independent oracle: Python's `ast`, on edits made from real stdlib files.

The oracle compares the definitions `ast` finds before and after each edit (name paths,
headers, bodies); an edit is structural when the oracle says a definition was added,
removed or renamed, or, for a multi-line edit, re-headed. Every generated edit, with whatever
context it carries, must get the same decision from the gate.
"""

from __future__ import annotations

import ast
import random
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchmarks.oracle import AstOracle, label, structural
from gateway.gate.checker import classify_edit
from gateway.gate.effect import edit_effect

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = ["textwrap.py", "json/decoder.py", "shlex.py"]
ORACLE = AstOracle()


@dataclass(frozen=True)
class Edit:
    kind: str
    old: str
    new: str


def _segment(lines: list[str], first: int, last: int) -> str:
    return "".join(lines[first - 1 : last])


def _edits_for(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, lines: list[str]) -> list[Edit]:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    last = node.end_lineno or node.lineno
    header_line = lines[node.lineno - 1]
    indent = header_line[: len(header_line) - len(header_line.lstrip())]
    whole = _segment(lines, first, last)
    edits = [
        Edit("whole_header", whole, whole.replace("(", "(_extra=None, ", 1) if "(" in header_line else whole),
        Edit("whole_body", whole, whole.rstrip("\n") + "  # edited\n"),
        Edit("remove", whole, ""),
        Edit("rename", _segment(lines, node.lineno, node.lineno + 1),
             _segment(lines, node.lineno, node.lineno + 1).replace(f" {node.name}", f" {node.name}_renamed", 1)),
        Edit("insert_after", whole, whole + f"\n\n{indent}def added_{node.lineno}():\n{indent}    return 1\n"),
    ]
    if node.decorator_list:
        edits.append(Edit("decorator", _segment(lines, first, node.lineno), _segment(lines, first + 1, node.lineno)))
    body = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if body and body[0].lineno > node.lineno:
        span = _segment(lines, node.lineno, body[0].end_lineno or body[0].lineno)
        edits.append(Edit("body_with_header_context", span, span.rstrip("\n") + "  # edited\n"))
    if len(body) >= 2 and body[0].end_lineno and body[0].end_lineno < body[1].lineno:
        span = _segment(lines, body[0].lineno, body[1].end_lineno or body[1].lineno)
        edits.append(Edit("body", span, span.replace("\n", "  # edited\n", 1)))
    if ast.get_docstring(node, clean=False):
        doc = node.body[0]
        span = _segment(lines, doc.lineno, doc.end_lineno or doc.lineno)
        edits.append(Edit("docstring", span, span.replace("\n", " def class\n", 1)))
    return edits


def generate(source: str, seed: int) -> list[Edit]:
    rng = random.Random(seed)
    lines = source.splitlines(keepends=True)
    nodes = [n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    edits = [edit for node in rng.sample(nodes, min(10, len(nodes))) for edit in _edits_for(node, lines)]
    comments = [i for i, line in enumerate(lines[:-1]) if line.lstrip().startswith("#") and lines[i + 1].strip()]
    for i in rng.sample(comments, min(8, len(comments))):
        edits.append(Edit("comment", lines[i] + lines[i + 1], lines[i].rstrip("\n") + " class Foo: def bar\n" + lines[i + 1]))
    for line in rng.sample(lines, min(15, len(lines))):
        if line.strip() and not line.rstrip().endswith("\\"):
            edits.append(Edit("single_line", line, line.rstrip("\n") + "  # x\n"))
    return [e for e in edits if source.count(e.old) == 1 and e.old != e.new]


@pytest.mark.parametrize("name", FILES)
def test_gate_agrees_with_ast_oracle(name: str) -> None:
    source = (STDLIB / name).read_text(encoding="utf-8")
    path = Path(name)
    before = ORACLE.definitions(path, source)
    assert before is not None
    wrong, judged, blocked = [], 0, 0
    for edit in generate(source, seed=len(name)):
        effect = edit_effect(name, source, edit.old, edit.new)
        after = ORACLE.definitions(path, effect.after)
        if after is None:
            continue
        judged += 1
        expected = structural(label(before, after), effect.multi_line)
        blocked += expected
        got = classify_edit(name, edit.old, edit.new, content=source).blocked
        if got != expected:
            wrong.append((edit.kind, edit.old[:60], expected, got))
    assert judged > 40 and blocked > 10
    assert not wrong, f"{len(wrong)} of {judged} edits judged differently from the ast oracle: {wrong[:5]}"
