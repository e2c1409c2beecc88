"""The polyglot benchmark's agent edits: one per definition, unique, parseable, and together the solution."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.polyglot_edits import FilePair, anchored, definition_edits, exercises, plain
from gateway.langs import default_registry
from gateway.symbols.operations import syntax_errors
from gateway.syntax import language_for

STUB = '''import os


class Cell:
    def __init__(self, value):
        pass

    def get(self):
        pass


def helper():
    pass
'''
SOLUTION = '''import os
import sys


class Base:
    pass


class Cell(Base):
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value

    def set(self, value):
        self.value = value
'''
# An object literal's methods are definitions without a container: inserting them alone would not parse.
JS_STUB = "export class List {\n  constructor() {\n    throw new Error('x');\n  }\n}\n"
JS_SOLUTION = "const Null = {\n  get value() {\n    return undefined;\n  },\n  push(item) {\n    return item;\n  },\n};\n\nexport class List {\n  constructor() {\n    this.head = Null;\n  }\n}\n"


def _check(pair: FilePair) -> list[tuple[str, str]]:
    registry = default_registry()
    lang = language_for(registry, Path(pair.path), pair.solution)
    assert lang is not None and pair.stub is not None
    edits, text = definition_edits(registry, pair), pair.stub
    for edit in edits:
        assert text.count(edit.old) == 1 and edit.old.strip() and edit.old != edit.new
        after = text.replace(edit.old, edit.new, 1)
        assert len(syntax_errors(lang, after)) <= len(syntax_errors(lang, text)), edit
        text = after
    assert text == pair.solution == plain(pair.stub, edits)
    return [(e.kind, e.label) for e in edits]


def test_one_edit_per_definition_then_hunks() -> None:
    steps = _check(FilePair("m.py", STUB, SOLUTION))
    assert ("insert", "Base") in steps and ("insert", "Cell/set") in steps and ("remove", "helper") in steps
    assert ("replace", "Cell/__init__") in steps and ("replace", "Cell/get") in steps
    kinds = [kind for kind, _ in steps]
    assert "lines" in kinds and set(kinds[kinds.index("lines") :]) == {"lines"}  # `import sys`, `Cell(Base)`, blank lines


def test_an_edit_that_would_not_parse_is_left_to_a_larger_hunk() -> None:
    steps = _check(FilePair("list.js", JS_STUB, JS_SOLUTION))
    assert ("replace", "List/constructor") in steps
    assert not any(label in ("value", "push") for _, label in steps)


def test_old_string_grows_to_whole_unique_lines() -> None:
    text = "a = 1\nb = 2\na = 1\nc = 3\n"
    old, new = anchored(text, text.index("a = 1\nc"), text.index("a = 1\nc") + 5, "a = 9")
    assert text.count(old) == 1 and text.replace(old, new) == "a = 1\nb = 2\na = 9\nc = 3\n"


def test_exercises_pair_reference_files_with_solution_files(tmp_path: Path) -> None:
    folder = tmp_path / "java" / "exercises" / "practice" / "bowling"
    (folder / ".meta" / "src" / "reference" / "java").mkdir(parents=True)
    (folder / "src" / "main" / "java").mkdir(parents=True)
    (folder / "src" / "main" / "java" / "BowlingGame.java").write_text("class BowlingGame {}\n")
    for name in ("BowlingGame", "Frame"):
        (folder / ".meta" / "src" / "reference" / "java" / f"{name}.java").write_text(f"class {name} {{ int x; }}\n")
    files = {"solution": ["src/main/java/BowlingGame.java"],
             "example": [".meta/src/reference/java/BowlingGame.java", ".meta/src/reference/java/Frame.java"]}
    (folder / ".meta" / "config.json").write_text(json.dumps({"files": files}))
    (found,) = exercises(tmp_path, "java")
    assert [(p.path, p.stub is not None) for p in found.files] == [("src/main/java/BowlingGame.java", True), ("src/main/java/Frame.java", False)]
