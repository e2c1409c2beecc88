"""Files the gate must leave alone, extension mapping, and edits judged without a file."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gateway.errors import NotFound
from gateway.gate.checker import classify_edit
from gateway.gate.effect import spans_lines
from gateway.langs import LanguageRegistry, data_dir, default_registry
from gateway.surfaces import render
from tests.gate_cases import PYTHON, commands

DEFINITION_TEXT = "def handler(request):\n    return request\n"


@pytest.mark.parametrize(
    "filename", ["README.md", "docs/guide.rst", "pyproject.toml", "package.json", "ci.yaml", "notes.txt", "Makefile"]
)
def test_prose_and_config_are_allowed(filename: str) -> None:
    content = "intro\n" + DEFINITION_TEXT
    result = classify_edit(filename, DEFINITION_TEXT, "", content=content)
    assert (result.decision, result.reason, result.language) == ("allow", "not_source", None)


def test_language_without_symbol_backend_is_allowed(tmp_path: Path) -> None:
    shutil.copytree(data_dir("langs"), tmp_path / "langs")
    toml = tmp_path / "langs" / "bash.toml"
    toml.write_text(toml.read_text().replace("symbol_backend = true", "symbol_backend = false"))
    registry = LanguageRegistry(tmp_path / "langs", data_dir("queries"))
    content = "greet() {\n  echo hi\n}\n"
    result = classify_edit("run.sh", content, "", content=content, registry=registry)
    assert (result.decision, result.reason, result.language) == ("allow", "no_symbol_backend", "bash")


@pytest.mark.parametrize(
    ("filename", "language"),
    [
        ("stubs/api.pyi", "python"),
        ("a.mjs", "javascript"),
        ("a.cjs", "javascript"),
        ("App.jsx", "javascript"),
        ("App.tsx", "tsx"),
        ("lib.mts", "typescript"),
        ("x.h", "c"),
        ("x.hpp", "cpp"),
        ("x.cc", "cpp"),
        ("X.CPP", "cpp"),
        ("build.gradle.kts", "kotlin"),
        ("Rakefile.rake", "ruby"),
        ("P.cs", "csharp"),
    ],
)
def test_extensions(filename: str, language: str) -> None:
    lang = default_registry().for_path(filename)
    assert lang is not None and lang.name == language


def test_stub_file_is_gated() -> None:
    content = "def f(x: int) -> int: ...\ndef g() -> None: ...\n"
    result = classify_edit("api.pyi", content, "def f(x: str) -> str: ...\n", content=content)
    assert result.blocked and result.suggested_tool == "replace_symbol"


def test_spans_lines() -> None:
    assert not spans_lines("x = 1\n")
    assert not spans_lines("\nx = 1\n")
    assert spans_lines("x = 1\ny = 2")


def test_creating_a_file_is_allowed(tmp_path: Path) -> None:
    result = classify_edit(tmp_path / "new.py", "", "import os\n\n\ndef main():\n    return os.getcwd()\n")
    assert (result.decision, result.reason) == ("allow", "new_file")


def test_old_string_of_a_missing_file_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="does not exist"):
        classify_edit(tmp_path / "absent.py", "def main():\n    return 1\n", "def main():\n    return 2\n")


def test_old_string_not_in_the_file_names_the_nearest_lines() -> None:
    with pytest.raises(NotFound) as raised:
        classify_edit("account.py", "    def fee(amount, extra):\n        return amount // 100", "", content=PYTHON.source)
    assert "nearest: line 18 'def fee(amount):'" in str(raised.value)


def test_file_is_read_when_content_is_not_given(tmp_path: Path) -> None:
    path = tmp_path / "account.py"
    path.write_text(PYTHON.source)
    old = "    def inner():\n        return 1"
    result = classify_edit(path, old, "    def inner(x):\n        return 2")
    assert result.blocked and [d.name_path for d in result.definitions] == ["outer/inner"]


def test_crlf_content_is_matched() -> None:
    content = PYTHON.source.replace("\n", "\r\n")
    old = "    def inner():\r\n        return 1"
    result = classify_edit("account.py", old, "    def inner(x):\r\n        return 2", content=content)
    assert result.blocked and result.definitions[0].line == 32
    body = classify_edit("account.py", old, "    def inner():\r\n        return 2", content=content)
    assert (body.decision, body.reason) == ("allow", "body_only")


def test_replace_all_judges_every_occurrence() -> None:
    content = "x = 1\ny = 2\n\n\ndef f():\n    x = 1\n    y = 2\n"
    old = "x = 1\ny = 2"
    single = classify_edit("m.py", old, "x = 3\ny = 4", content=content)
    assert not single.blocked
    content = "def f():\n    pass\n\n\ndef f():\n    pass\n"
    every = classify_edit("m.py", "def f():\n    pass", "def f(a):\n    return 1", content=content, replace_all=True)
    assert every.blocked and [d.line for d in every.definitions] == [1, 5]
    assert commands(every) == (
        "gateway replace-symbol 'f[0]' m.py --body-file NEW_DEFINITION_FILE",
        "gateway replace-symbol 'f[1]' m.py --body-file NEW_DEFINITION_FILE",
    )


def test_refusal_names_definition_line_and_command() -> None:
    old = "    async def refresh(self):\n        # class Foo: a comment mentioning class and def"
    result = classify_edit("account.py", old, "    async def refresh(self, force):\n        pass", content=PYTHON.source)
    assert result.message.startswith(
        "Blocked: this multi-line edit to account.py changes the header of method `Account/refresh` (line 21)"
    )
    assert "gateway replace-symbol Account/refresh account.py --body-file NEW_DEFINITION_FILE" in render.hook_text(result.message, result.suggested)
    assert "\n" not in result.message
    assert [c.to_json() for c in result.changed_lines] == [{"before": {"start": 21, "lines": 2}, "after": {"start": 21, "lines": 2}}]


@pytest.mark.parametrize("old, new, expected", [
    ("b = 2", "b = 2 + 1", ((2, 1), (2, 1))),  # text added inside a line changes that line
    ("b = 2", "b = 20", ((2, 1), (2, 1))),
    ("= 2\n", "= 2", ((2, 2), (2, 1))),  # two lines joined into one
    ("b = 2\n", "", ((2, 1), (2, 0))),  # a whole line removed
    ("b = 2\n", "b = 2\nx = 9\n", ((3, 0), (3, 1))),  # a line inserted between lines
])
def test_changed_lines_count_the_lines_a_change_touches(old: str, new: str, expected: tuple[tuple[int, int], ...]) -> None:
    result = classify_edit("m.py", old, new, content="a = 1\nb = 2\nc = 3\n")
    [changed] = result.changed_lines
    assert ((changed.before_start, changed.before_lines), (changed.after_start, changed.after_lines)) == expected


def test_module_level_statements_rewritten_into_a_definition() -> None:
    content = "import os\n\nA = 1\nB = 2\n"
    result = classify_edit("m.py", "A = 1\nB = 2\n", "def constants():\n    return 1, 2\n", content=content)
    assert result.blocked and result.suggested_tool == "insert_code"
    assert [(d.name, d.change) for d in result.definitions] == [("constants", "added")]
    assert commands(result) == ("gateway insert-code / m.py --position after --code-file NEW_CODE_FILE",)


def test_incremental_reparse_matches_full_parse() -> None:
    from gateway.syntax import definitions, find_definitions, parse, reparse
    from tests.gate_cases import SAMPLES

    for lang_name, sample in SAMPLES.items():
        lang = default_registry().get(lang_name)
        before = sample.source.encode()
        for case in sample.cases:
            start = before.index(case.old.encode())
            old_end = start + len(case.old.encode())
            after = before[:start] + case.new.encode() + before[old_end:]
            tree = reparse(lang, parse(lang, before), before, after, start, old_end, start + len(case.new.encode()))
            assert definitions(lang, tree) == find_definitions(lang, after), f"{lang_name}: {case.id}"


@pytest.mark.parametrize(
    ("filename", "content", "old", "blocked"),
    [
        ("a.js", "var getProto = Object.getPrototypeOf || function (o) {\n  return o.__proto__\n}\n",
         "var getProto = Object.getPrototypeOf || function (o) {\n  return o.__proto__\n}\n", True),
        ("a.d.ts", "interface A {\n  filter(x: number): A;\n\n  map(y: string): A;\n}\n", "  filter(x: number): A;\n\n  map", True),
        ("a.c", "int f(void) {\n    typedef int local_t;\n    return 0;\n}\n", "    typedef int local_t;\n    return 0;", False),
        ("a.cpp", "namespace n {\ntypedef int t;\nusing u = long;\n}\n", "typedef int t;\nusing u = long;", True),
        ("a.cpp", "int f() {\n    using u = long;\n    typedef int t;\n    return 0;\n}\n", "    using u = long;\n    typedef int t;", False),
    ],
    ids=["js-fallback-function", "ts-interface-method-signature", "c-local-typedef", "cpp-namespace-aliases", "cpp-local-aliases"],
)
def test_matrix_findings(filename: str, content: str, old: str, blocked: bool) -> None:
    """Cases the language matrix found against tsserver and clangd: removing these is removing a definition."""
    result = classify_edit(filename, old, "", content=content)
    assert result.blocked is blocked, result.message
