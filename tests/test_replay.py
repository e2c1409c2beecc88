"""The replay benchmark's parts: hunks of a real git history as agent edits, and the oracle's labels."""

from __future__ import annotations

import pytest

import subprocess
from pathlib import Path

from benchmarks.hunks import ChangedFile, edit_for, replay_edits
from benchmarks.meter import Meter
from benchmarks.oracle import AstOracle, label, structural
from benchmarks.replay_cuts import file_edits
from gateway.langs import default_registry

BEFORE = "import os\n\n\ndef f(a):\n    return a\n\n\nX = 1\nY = 2\n\n\ndef g(a):\n    return a\n\n\ndef h():\n    return 0\n"
AFTER = "import os\n\n\ndef f(a, b):\n    return a\n\n\nX = 1\nY = 2\n\n\ndef g(a):\n    return a + 1\n\n\ndef h():\n    return 0\n"


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
                        "PATH": "/usr/bin:/bin"})


@pytest.mark.usefixtures("processes")
def test_every_hunk_becomes_an_edit_that_reproduces_it(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "m.py").write_text(BEFORE)
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "one")
    (tmp_path / "m.py").write_text(AFTER)
    _git(tmp_path, "commit", "-qam", "two")
    edits = list(replay_edits(tmp_path, 5, default_registry(), None))
    assert [(e.path, e.language) for e in edits] == [("m.py", "python")] * 2
    for edit in edits:
        assert BEFORE.count(edit.old) == 1 and edit.old != edit.new
    first = edits[0]
    assert "def f(a):" in first.old and "def f(a, b):" in first.new


def test_context_widens_until_old_string_is_unique() -> None:
    before = "x = 1\ny = 2\nz = 3\nx = 1\ny = 2\nw = 4\n"
    after = "x = 1\ny = 2\nz = 3\nx = 1\ny = 5\nw = 4\n"
    old, new, line = edit_for(before, after, (5, 1, 5, 1))  # line 5 alone: `y = 2` occurs twice
    assert before.count(old) == 1 and line <= 5
    assert before.replace(old, new) == after


def test_oracle_labels() -> None:
    oracle, path = AstOracle(), Path("m.py")
    base = oracle.definitions(path, BEFORE)
    assert base is not None
    header = oracle.definitions(path, BEFORE.replace("def f(a):", "def f(a, b):"))
    body = oracle.definitions(path, BEFORE.replace("    return a\n\n\nX = 1", "    return a + 1\n\n\nX = 1"))
    renamed = oracle.definitions(path, BEFORE.replace("def h():", "def k():"))
    comment = oracle.definitions(path, BEFORE.replace("import os\n", "import os  # why\n"))
    assert header and body and renamed and comment
    assert [label(base, other) for other in (header, body, renamed, comment)] == ["header", "body", "definition", "none"]
    assert structural("definition", False) and structural("header", True)
    assert not structural("header", False) and not structural("body", True)


PLATFORMS = "int a;\n#ifdef _WIN32\nint f(void) { return 1; }\n#else\nint g(void) { return 2; }\n#endif\n"


def test_edits_clangd_on_linux_cannot_see_are_counted_apart() -> None:
    from benchmarks.blind import DIRECTIVES, INACTIVE, MACROS, macros_only, oracle_blind
    from gateway.gate.checker import classify_edit
    from gateway.gate.effect import edit_effect

    def blind(old: str, new: str, text: str = PLATFORMS) -> str | None:
        effect = edit_effect("x.c", text, old, new)
        return oracle_blind("c", effect) or macros_only("c", classify_edit("x.c", old, new, content=text), effect)

    assert blind("return 1;", "return 3;") == INACTIVE
    assert blind("int a;\n", "int a;\n#if defined(__APPLE__) || defined(_WIN32)\nint h(void);\n#endif\n") == INACTIVE
    assert blind("#ifdef _WIN32", "#if defined(_WIN32) || defined(__linux__)") == DIRECTIVES
    assert blind("return 2;", "return 3;") is None
    assert blind("int a;\n", "int a;\nint b;\n") is None
    macro = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\nint a;\n"
    assert blind("#define MAX(a, b) ((a)", "#define MAX(a, \\\n            b, c) ((a)", macro) == MACROS
    assert blind("int a;\n", "int a;\n#define MIN(a, b) ((a) < (b) ? (a) : (b))\n", macro) == MACROS
    assert blind("int a;\n", "int a;\nint f(void) { return 0; }\n", macro) is None


def test_if_conditions_are_decided_in_three_values() -> None:
    import re

    from gateway.langs import Preprocessor
    from gateway.preprocessor import decided

    spec = Preprocessor(frozenset({"__cplusplus"}), frozenset({"_WIN32", "__APPLE__"}), re.compile(b""))
    source = (b"#if defined(__APPLE__) || defined(_WIN32)\nint a;\n#elif defined(__cplusplus) && !defined(_WIN32)\nint b;\n"
              b"#else\nint c;\n#endif\n#if defined(X) || defined(__APPLE__)\nint d;\n#endif\n#if (X > 1) && defined(__cplusplus)\nint e;\n#endif\n")
    dead, directives = decided(spec, source)
    assert sorted(source[s:e].strip().decode() for s, e in dead) == ["int a;", "int c;"]
    assert len(directives) == 8


def test_definitions_clangd_sees_appear_outside_the_edit_are_counted_apart() -> None:
    from benchmarks.blind import OUTSIDE, outside_change
    from benchmarks.oracle import OracleDefinition, _spelled
    from gateway.gate.effect import edit_effect

    before = "#include <a.h>\n\nint f(void) { return 0; }\n"
    effect = edit_effect("x.c", before, "#include <a.h>\n", "#include <a.h>\n#include <b.h>\n")
    start = len(effect.after)
    f_b = OracleDefinition(before.index("f("), before.index("f(") + 1, before.index("int f"), len(before) - 1, "f")
    shift = len(effect.after) - len(before)
    f_a = OracleDefinition(f_b.name_start + shift, f_b.name_end + shift, f_b.start + shift, f_b.end + shift, "f")
    g_a = OracleDefinition(start, start, start, start, "g")  # an expansion clangd now resolves, after the edit
    assert outside_change("c", [f_b], [f_a, g_a], effect) == OUTSIDE
    inside = OracleDefinition(15, 16, 15, 29, "h")  # on the added line
    assert outside_change("c", [f_b], [f_a, inside], effect) is None
    assert _spelled('TEST_CASE( "a (b)", "[x]" ) {\n', 0) == 'TEST_CASE( "a (b)", "[x]" )'


def test_the_replay_says_which_commit_it_is_at_and_how_long_is_left() -> None:
    now = [0.0]
    meter = Meter(clock=lambda: now[0])
    meter.stage = "collecting edits from git"
    assert meter() == "collecting edits from git"
    meter.start(50)
    meter.stage = "go"
    assert meter() == "go: commit 1 of 50, 0 edits judged"
    now[0], meter.done, meter.edits = 120.0, 4, 31
    assert meter() == "go: commit 5 of 50, 31 edits judged, about 23 min 00 s left"


@pytest.mark.parametrize("cut", ["hunks", "middle"])
def test_independent_cuts_replay_the_change_one_edit_after_another(cut: str) -> None:
    changed = ChangedFile(Path("r"), "p" * 40, "c" * 40, "m.py", "python", BEFORE, AFTER)
    edits, text = list(file_edits(cut, changed)), BEFORE
    assert edits
    for edit in edits:
        assert edit.before == text and text.count(edit.old) == 1 and edit.old != edit.new
        assert edit.line == text.count("\n", 0, text.index(edit.old)) + 1
        text = text.replace(edit.old, edit.new, 1)
    assert text == AFTER and edits == list(file_edits(cut, changed))  # seeded


def test_the_write_cut_sends_the_whole_file_as_one_edit() -> None:
    (edit,) = file_edits("write", ChangedFile(Path("r"), "p" * 40, "c" * 40, "m.py", "python", BEFORE, AFTER))
    assert (edit.before, edit.old, edit.new, edit.line) == (BEFORE, BEFORE, AFTER, 1)
