"""Edits an agent would send, generated from a real file's text (seeded).

Kinds: whole definitions (rewritten), definition headers, body-only spans, comment blocks,
string literals, spans across two definitions, single lines, definitions added after an
existing one, and definitions removed. Definition extents come from the oracle.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from benchmarks.oracle import OracleDefinition

COMMENT = {"python": "#", "ruby": "#", "bash": "#"}
NEW_DEFINITION = {
    "python": "def added_helper():\n{i}    return None",
    "ruby": "def added_helper\n{i}  nil\n{i}end",
    "go": "func addedHelper() int {{\n{i}\treturn 0\n{i}}}",
    "rust": "fn added_helper() -> i32 {{\n{i}    0\n{i}}}",
    "c": "static int added_helper(void) {{\n{i}    return 0;\n{i}}}",
    "cpp": "static int added_helper() {{\n{i}    return 0;\n{i}}}",
    "java": "void addedHelper() {{\n{i}}}",
    "kotlin": "fun addedHelper(): Int {{\n{i}    return 0\n{i}}}",
    "csharp": "void AddedHelper() {{\n{i}}}",
    "bash": "added_helper() {{\n{i}  return 0\n{i}}}",
}
JS_LIKE = "function addedHelper() {{\n{i}  return null;\n{i}}}"
STRING = re.compile(r"""(["'])(?:(?!\1).){2,40}\1""")


@dataclass(frozen=True)
class Edit:
    kind: str
    old: str
    new: str


def _lines(text: str, first: int, last: int) -> str:
    lines = text.split("\n")
    return "\n".join(lines[first : last + 1])


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def generate(language: str, text: str, definitions: list[OracleDefinition], per_kind: int, seed: int) -> list[Edit]:
    rng = random.Random(seed)
    lines = text.split("\n")
    line_of = [0] * (len(text) + 1)
    row = 0
    for offset, char in enumerate(text):
        line_of[offset] = row
        row += char == "\n"
    line_of[len(text)] = row
    name_lines = {line_of[d.name_start] for d in definitions}
    candidates: dict[str, list[Edit]] = {}

    def add(kind: str, old: str, new: str) -> None:
        if old.strip() and old != new and text.count(old) == 1:
            candidates.setdefault(kind, []).append(Edit(kind, old, new))

    for d in definitions:
        first, last = line_of[d.start], line_of[max(d.end - 1, d.start)]
        whole = _lines(text, first, last)
        if last > first:
            add("whole_definition", whole, whole.replace("(", "( ", 1) if "(" in whole else whole + " ")
            add("header", _lines(text, first, first + 1), _lines(text, first, first + 1) + " ")
            add("remove_definition", whole + "\n", "")
            template = NEW_DEFINITION.get(language, JS_LIKE)
            indent = _indent(lines[first])
            add("add_definition", whole, whole + "\n\n" + indent + template.format(i=indent))
        body = [n for n in range(line_of[d.name_start] + 1, last - 1) if n not in name_lines and n + 1 not in name_lines]
        if body:
            n = rng.choice(body)
            add("body_only", _lines(text, n, n + 1), _lines(text, n, n + 1).replace("\n", " \n", 1))
    ordered = sorted(definitions, key=lambda d: d.start)
    for upper, lower in zip(ordered, ordered[1:], strict=False):
        a, b = line_of[max(upper.end - 1, upper.start)], line_of[lower.start]
        if a < b and upper.end <= lower.start:
            add("across_definitions", _lines(text, a, b), _lines(text, a, b).replace("\n", " \n", 1))
    marker = COMMENT.get(language, "//")
    for n in range(len(lines) - 1):
        if lines[n].lstrip().startswith(marker) and lines[n + 1].lstrip().startswith(marker):
            add("comment_block", _lines(text, n, n + 1), lines[n] + " def class function fn struct\n" + lines[n + 1])
    for n, line in enumerate(lines[:-1]):
        match = STRING.search(line)
        if match and n not in name_lines:
            quote = match.group(1)
            changed = line[: match.start()] + quote + "class def function" + quote + line[match.end() :]
            add("string_literal", line + "\n" + lines[n + 1], changed + "\n" + lines[n + 1])
    for n in rng.sample(range(len(lines)), min(len(lines), per_kind * 4)):
        add("single_line", lines[n], lines[n] + " ")
    picked: list[Edit] = []
    for kind in sorted(candidates):
        group = candidates[kind]
        picked += rng.sample(group, min(per_kind, len(group)))
    return picked
