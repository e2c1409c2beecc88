"""The gate against an independent oracle: Python's `ast`, on edits made from real stdlib files.

The oracle applies the gate's rule with definition names located by `ast`, never by our
queries; every generated edit must get the same decision from both.
"""

from __future__ import annotations

import ast
import random
import re
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest

from gateway.gate.checker import classify_edit
from gateway.gate.effect import spans_lines

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = ["difflib.py", "argparse.py", "dataclasses.py", "textwrap.py", "json/decoder.py", "functools.py"]
HEADER = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")


@dataclass(frozen=True)
class Edit:
    kind: str
    old: str
    new: str


def _name_spans(source: str, tree: ast.Module) -> list[tuple[int, int]]:
    """Character spans of every def/class name, from ast positions."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    spans = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            offset = starts[node.lineno - 1] + node.col_offset
            match = HEADER.match(source, offset)
            assert match and match.group(1) == node.name
            spans.append(match.span(1))
    return spans


def oracle_blocks(source: str, names: list[tuple[int, int]], old: str, new: str) -> bool | None:
    """The rule's answer from ast positions; None when the edited file does not parse."""
    start = source.index(old)
    edited = source[:start] + new + source[start + len(old) :]
    try:
        edited_tree = ast.parse(edited)
    except SyntaxError:
        return None
    touched = [s for s in names if start <= s[0] and s[1] <= start + len(old)]
    old_names = sorted(source[a:b] for a, b in touched)
    in_new = [edited[a:b] for a, b in _name_spans(edited, edited_tree) if start <= a and b <= start + len(new)]
    remaining = list(old_names)
    added = []
    for name in in_new:
        if name in remaining:
            remaining.remove(name)
        else:
            added.append(name)
    multi_line = spans_lines(old) or (spans_lines(new) and bool(added))
    return multi_line and bool(touched or added)


def _segment(lines: list[str], first: int, last: int) -> str:
    return "".join(lines[first - 1 : last])


def generate(source: str, seed: int) -> list[Edit]:
    rng = random.Random(seed)
    lines = source.splitlines(keepends=True)
    edits: list[Edit] = []
    functions = [
        n for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    ]
    for node in rng.sample(functions, min(20, len(functions))):
        first = min([d.lineno for d in node.decorator_list] + [node.lineno])
        last = node.end_lineno or node.lineno
        indent = lines[node.lineno - 1][: len(lines[node.lineno - 1]) - len(lines[node.lineno - 1].lstrip())]
        whole = _segment(lines, first, last)
        edits.append(Edit("whole", whole, whole.replace("(", "( ", 1)))
        edits.append(Edit("remove", whole, ""))
        edits.append(Edit("header", _segment(lines, node.lineno, node.lineno + 1), _segment(lines, node.lineno, node.lineno + 1) + f"{indent}    pass\n"))
        edits.append(Edit("insert_after", whole, whole + f"\n\n{indent}def added_{node.lineno}():\n{indent}    return 1\n"))
        body = [s for s in node.body if not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
        if len(body) >= 2 and body[0].end_lineno and body[0].end_lineno < body[1].lineno:
            span = _segment(lines, body[0].lineno, body[1].end_lineno or body[1].lineno)
            edits.append(Edit("body", span, span.replace("\n", "  # edited\n", 1)))
        if ast.get_docstring(node, clean=False):
            doc = node.body[0]
            span = _segment(lines, doc.lineno, doc.end_lineno or doc.lineno)
            edits.append(Edit("docstring", span, span.replace("\n", " def class\n", 1)))
    comments = [i for i, line in enumerate(lines[:-1]) if line.lstrip().startswith("#") and lines[i + 1].strip()]
    for i in rng.sample(comments, min(15, len(comments))):
        span = lines[i] + lines[i + 1]
        edits.append(Edit("comment", span, lines[i].rstrip("\n") + " class Foo: def bar\n" + lines[i + 1]))
    for line in rng.sample(lines, min(30, len(lines))):
        if line.strip() and not line.rstrip().endswith("\\"):
            edits.append(Edit("single_line", line, line.rstrip("\n") + "  # x\n"))
    return [e for e in edits if source.count(e.old) == 1 and e.old != e.new]


@pytest.mark.parametrize("name", FILES)
def test_gate_agrees_with_ast_oracle(name: str) -> None:
    source = (STDLIB / name).read_text(encoding="utf-8")
    edits = generate(source, seed=len(name))
    names = _name_spans(source, ast.parse(source))
    wrong, judged = [], 0
    for edit in edits:
        expected = oracle_blocks(source, names, edit.old, edit.new)
        if expected is None:
            continue
        judged += 1
        got = classify_edit(name, edit.old, edit.new, content=source).blocked
        if got != expected:
            wrong.append((edit.kind, edit.old[:60], expected, got))
    assert judged > 50
    assert not wrong, f"{len(wrong)} of {judged} edits judged differently from the ast oracle: {wrong[:5]}"
    kinds = {e.kind for e in edits}
    assert {"whole", "remove", "header", "insert_after", "single_line"} <= kinds
