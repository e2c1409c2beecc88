"""The errors each real language server finds, bound to the text it analysed
(gateway.lsp.diagnostics.errors_of): a two-file project where A defines `helper` and B calls
it, and C has an error of its own. A without `helper` gives B's error at B's line; A restored,
B has none; C's error is there in every call, so a caller comparing two calls sees no change.

No test here is skipped: `make setup` installs these servers, and a missing one fails. One
session per server is shared by the module. The fault-injecting fake server (pygls) stands in
only for a server that never answers or exits."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from gateway.langs import default_registry
from gateway.lsp.adapters import adapter_for
from gateway.lsp.adapters.base import Adapter
from gateway.lsp.adapters.jdtls import JdtlsAdapter
from gateway.lsp.diagnostics import FileErrors, ServerDiagnostic, _errors, errors_of
from gateway.lsp.discovery import planned, search_path
from gateway.lsp.session import LspSession
from tests.conftest import FAKE_SERVER

pytestmark = pytest.mark.usefixtures("servers")

# Generous on a loaded machine: a server's first answer includes loading the project (jdtls: its start).
FIRST_BUDGET = 90.0
BUDGET = 60.0


@dataclass(frozen=True)
class Project:
    language: str  # its langs/*.toml
    files: dict[str, str]  # A, B, C first; then any other file the project needs
    broken_a: str  # A without `helper`
    b_line: int  # the line of B's error once A has no `helper`
    c_line: int  # the line of C's own error
    program: tuple[str, ...] = ()  # a server other than the language's first


PYTHON = {"a.py": "def helper(x):\n    return x\n",
          "b.py": "import os\n\nfrom a import helper\n\nprint(helper(1), os.sep)\n",
          "c.py": "count: int = 'no'\n"}
PROJECTS = {
    "pyright": Project("python", PYTHON, "def other(x):\n    return x\n", 3, 1, ("pyright-langserver", "--stdio")),
    "typescript": Project("typescript", {
        "a.ts": "export function helper(x: number): number {\n  return x;\n}\n",
        "b.ts": "import { helper } from './a';\n\nconsole.log(helper(1));\n",
        "c.ts": "const n: number = 'no';\nexport { n };\n",
        "tsconfig.json": '{"compilerOptions": {"strict": true}}\n'}, "export function other(x: number): number {\n  return x;\n}\n", 1, 1),
    "gopls": Project("go", {
        "a.go": "package m\n\nfunc helper(x int) int { return x }\n",
        "b.go": "package m\n\nfunc use() int {\n\treturn helper(1)\n}\n",
        "c.go": "package m\n\nvar n int = \"no\"\n",
        "go.mod": "module example.com/m\n\ngo 1.21\n"}, "package m\n\nfunc other(x int) int { return x }\n", 4, 3),
    "clangd": Project("c", {
        "a.h": "int helper(int x);\n",
        "b.c": "#include \"a.h\"\n\nint use(void) {\n    return helper(1);\n}\n",
        "c.c": "int n = undefined_name;\n",
        "compile_flags.txt": "-std=c11\n"}, "int other(int x);\n", 4, 1),
}


def start(language: str, root: Path, program: tuple[str, ...] = ()) -> LspSession:
    """The language's server (or `program` on its adapter) started for `root`, as the gateway plans it."""
    spec = default_registry().get(language).server
    if program:  # pyright-langserver has no --version: found on PATH, not by the registry's version check
        found = shutil.which(program[0], path=search_path(root))
        assert found is not None, f"{program[0]} is not installed (make setup installs it)"
        command = (found, *program[1:])
        adapter = adapter_for(spec.adapter_of(command))
    else:
        plan = planned(spec, root)
        assert plan is not None, f"{spec.command[0]} is not installed (make setup installs it)"
        command, adapter, _ = plan
    return LspSession(Path(command[0]).name, command, root, adapter, 120).start()


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, tuple[LspSession, Path]]]:
    """One server per project for the module, started on first use, each in its own folder."""
    started: dict[str, tuple[LspSession, Path]] = {}

    class Started(dict[str, tuple[LspSession, Path]]):
        def __missing__(self, name: str) -> tuple[LspSession, Path]:
            project = PROJECTS[name]
            root = tmp_path_factory.mktemp(name)
            for relative, text in project.files.items():
                (root / relative).write_text(text)
            started[name] = self[name] = (start(project.language, root, project.program), root)
            return started[name]

    yield Started()
    for session, _ in started.values():
        session.close()


def ask(session: LspSession, root: Path, project: Project, a_text: str, budget: float = BUDGET) -> dict[Path, FileErrors]:
    """A (on disk, as a write leaves it) given as `a_text`, and the errors of A, B and C."""
    a, b, c = (root / name for name in list(project.files)[:3])
    a.write_text(a_text)
    language_id = default_registry().get(project.language).server.language_id_for(a)
    return errors_of(session, [(a, a_text, language_id)], [a, b, c], time.monotonic() + budget)


# jdtls's case (an ordered push after a didChange to each file asked) runs through the hook in
# tests/test_jdtls_starting.py, on the one jdtls the suite starts cold.
@pytest.mark.parametrize("name", sorted(PROJECTS))
def test_a_caller_broken_by_the_edit_is_named_and_an_error_there_before_stays(sessions: dict[str, tuple[LspSession, Path]],
                                                                               name: str) -> None:
    session, root = sessions[name]
    project = PROJECTS[name]
    a, b, c = (root / relative for relative in list(project.files)[:3])
    original = project.files[a.name]
    before = ask(session, root, project, original, FIRST_BUDGET)
    assert [result.unknown for result in before.values()] == [None] * 3, before
    assert before[a].errors == () and before[b].errors == (), before
    assert [error.line for error in before[c].errors] == [project.c_line], before[c]

    after = ask(session, root, project, project.broken_a)
    assert [result.unknown for result in after.values()] == [None] * 3, after
    assert [error.line for error in after[b].errors] == [project.b_line], after[b]
    assert "helper" in after[b].errors[0].message and after[b].errors[0].source, after[b]
    assert after[c].errors == before[c].errors, "an error there before is the same error after: no delta"

    restored = ask(session, root, project, original)
    assert restored[b] == FileErrors(b) and restored[c].errors == before[c].errors, restored


@pytest.mark.parametrize(("language", "program", "reason"), [
    ("python", ("jedi-language-server",), "jedi-language-server reports only syntax errors"),
    ("bash", (), "bash-language-server does not check that commands exist"),
])
def test_a_server_whose_diagnostics_cannot_tell_gives_unknown_with_the_reason(tmp_path: Path, language: str,
                                                                              program: tuple[str, ...], reason: str) -> None:
    suffix = ".py" if language == "python" else ".sh"
    a, b = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    a.write_text("x = 1\n" if language == "python" else "helper() { echo hi; }\n")
    b.write_text("undefined_name\n")
    session = start(language, tmp_path, program)
    try:
        found = errors_of(session, [(a, a.read_text(), language if language == "python" else "shellscript")], [a, b],
                          time.monotonic() + BUDGET)
    finally:
        session.close()
    assert found == {a: FileErrors(a, unknown=reason), b: FileErrors(b, unknown=reason)}


def fake_session(root: Path, adapter: Adapter | None = None) -> LspSession:
    return LspSession("fake-lsp", (sys.executable, str(FAKE_SERVER)), root, adapter or Adapter(), 30).start()


@pytest.fixture
def fake_files(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("def f():\n    return 1\n")
    b.write_text("f()\n")
    return a, b


def test_a_server_that_never_answers_a_pull_gives_unknown_by_the_deadline(monkeypatch: pytest.MonkeyPatch,
                                                                          fake_files: tuple[Path, Path]) -> None:
    monkeypatch.setenv("FAKE_LSP_MODE", "pull-hang")
    a, b = fake_files
    session = fake_session(a.parent)
    try:
        started = time.monotonic()
        found = errors_of(session, [(a, a.read_text(), "python")], [a, b], started + 1.0)
        took = time.monotonic() - started
        assert not session.broken and psutil.pid_exists(session.server_pid or -1), "a late answer does not cost the server"
    finally:
        session.close()
    assert found == {path: FileErrors(path, unknown="fake-lsp gave no answer within the 1000 ms left of the check's budget ([verify] budget_ms)") for path in (a, b)}
    assert took < 2.5, f"answered {took:.1f} s after a 1 s deadline"


def test_a_server_that_exits_gives_unknown_and_raises_nothing(monkeypatch: pytest.MonkeyPatch, fake_files: tuple[Path, Path]) -> None:
    monkeypatch.setenv("FAKE_LSP_MODE", "pull-crash")
    a, b = fake_files
    session = fake_session(a.parent)
    try:
        found = errors_of(session, [(a, a.read_text(), "python")], [a, b], time.monotonic() + BUDGET)
        again = errors_of(session, [(a, a.read_text(), "python")], [a], time.monotonic() + BUDGET)
    finally:
        session.close()
    assert found[b].unknown == "the language server failed (fake-lsp: the server exited (code 4))" and not found[b].errors
    assert again[a].unknown == "the language server failed (fake-lsp: the server exited (code 4))"


def test_a_server_still_loading_the_workspace_is_never_clean(monkeypatch: pytest.MonkeyPatch, fake_files: tuple[Path, Path]) -> None:
    """As jdtls before `ServiceReady`: unknown, with what it says of its loading, by the deadline."""
    monkeypatch.setenv("FAKE_LSP_MODE", "loading")
    a, b = fake_files
    loading = type("Loading", (Adapter,), {"announces_ready": True, "readiness": JdtlsAdapter.readiness})()
    session = fake_session(a.parent, loading)
    try:
        found = errors_of(session, [(a, a.read_text(), "python")], [a, b], time.monotonic() + 1.0)
    finally:
        session.close()
    assert found[a] == FileErrors(a, unknown="fake-lsp is still loading the workspace (42% Importing projects)")


def test_positions_are_characters_though_the_server_counts_utf16_units() -> None:
    text = "s = '😀é'; undefined_name\n"
    diagnostic = {"range": {"start": {"line": 0, "character": 11}, "end": {"line": 0, "character": 25}},
                  "message": "undefined_name\n  is not defined", "severity": 1}
    warning = {**diagnostic, "severity": 2}
    assert _errors([diagnostic, warning], text, "srv", Path("/w")) == (ServerDiagnostic(1, 11, 1, "undefined_name is not defined", "srv"),)


def test_a_path_in_the_workspace_is_said_relative_in_a_message() -> None:
    """clangd's notes name the header by its absolute path: said as the gateway says places."""
    note = {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "severity": 1,
            "message": "too few arguments to function call\n\n/w/inc/a.h:1:19: note: 'helper' declared here"}
    [error] = _errors([note], "x\n", "clangd", Path("/w"))
    assert error.message == "too few arguments to function call inc/a.h:1:19: note: 'helper' declared here", error


def test_jdtls_saying_a_file_gets_only_syntax_errors_makes_it_unknown() -> None:
    """jdtls on a file of a Maven build it did not import pushes only this warning (seen on gson):
    the file's errors are unknown, never "no new error"."""
    pushed = [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "severity": 2, "code": "16",
               "source": "Java", "message": "Primitives.java is a non-project file, only syntax errors are reported"}]
    why = JdtlsAdapter().syntax_only(pushed)
    assert why is not None and why.startswith("jdtls reports only syntax errors for a file outside its source folders")
    assert JdtlsAdapter().syntax_only([{**pushed[0], "message": "x cannot be resolved"}]) is None
    assert Adapter().syntax_only(pushed) is None
