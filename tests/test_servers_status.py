"""`gateway servers` tells the truth about each server in this workspace: the real gopls is
called broken, with its own reason, when the Go toolchain cannot load the module, and
working only when it can."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.lsp.discovery import find_server
from gateway.langs import LanguageRegistry, data_dir, default_registry
from gateway.symbols.servers import census, prestart
from tests.test_cli import gateway


@pytest.mark.usefixtures("servers")
def test_gopls_is_installed_by_setup() -> None:
    assert find_server(default_registry().get("go").server) is not None, "make setup installs gopls"


MAIN = "package main\n\nfunc main() {}\n\nfunc Add(a, b int) int { return a + b }\n"
GO_MODS = {
    "good": ("module example.com/good\n\ngo 1.21\n", None),
    "newer_go": ("module example.com/newer\n\ngo 1.99\n", r"^go: go\.mod requires go >= 1\.99 \(running go [\d.]+"),
    # Go's lazy module loading needs no requirement that no package imports: gopls loads the
    # module (and warns that the requirement is unused).
    "unused_missing_module": ("module example.com/missing\n\ngo 1.21\n\nrequire example.com/does/not/exist v1.0.0\n", None),
    "syntax_error": ("module example.com/syntax\n\ngo 1.21\nrequire (\n", r"^go\.mod:5: syntax error \(unterminated block started at go\.mod:4:1\)"),
}


def _module(root: Path, case: str) -> Path:
    (root / "go.mod").write_text(GO_MODS[case][0])
    (root / "main.go").write_text(MAIN)
    return root


def _go(rows: list[dict[str, object]]) -> dict[str, object]:
    return next(row for row in rows if row["language"] == "go")


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("case", sorted(GO_MODS))
def test_gopls_is_working_only_where_the_module_loads(tmp_path: Path, case: str) -> None:
    with Gateway(_module(tmp_path, case)) as gw:
        row = _go(gw.servers().to_json()["languages"])
    expected = GO_MODS[case][1]
    assert (row["backend"], row["probed"]) == ("lsp:gopls", "main.go")
    if expected is None:
        assert (row["status"], row["reason"]) == ("working", None)
    else:
        assert row["status"] == "broken" and re.search(expected, str(row["reason"])), row["reason"]
        assert "\n" not in str(row["reason"]) and str(tmp_path) not in str(row["reason"])


@pytest.mark.usefixtures("processes")
def test_the_cli_says_broken_and_why_in_text_and_json(tmp_path: Path) -> None:
    root = _module(tmp_path, "newer_go")
    text = gateway("servers", cwd=root)
    assert text.returncode == 0, text.stderr
    line = next(line for line in text.stdout.splitlines() if line.startswith("go "))
    assert re.search(r"backend: lsp:gopls; BROKEN: go: go\.mod requires go >= 1\.99 \(running go [\d.]+", line), line
    rows = json.loads(gateway("servers", "--json", cwd=root).stdout)["languages"]
    assert _go(rows)["status"] == "broken" and "requires go >= 1.99" in str(_go(rows)["reason"])
    python = next(row for row in rows if row["language"] == "python")
    assert python["status"] == "not started"  # no Python file here: nothing to say about it


@pytest.mark.usefixtures("processes")
def test_the_cli_says_working_once_the_module_is_fixed(tmp_path: Path) -> None:
    root = _module(tmp_path, "syntax_error")
    assert "BROKEN: go.mod:5: syntax error" in gateway("servers", cwd=root).stdout
    shutil.copy(root / "go.mod", root / "go.mod.bak")
    (root / "go.mod").write_text(GO_MODS["good"][0])
    line = next(line for line in gateway("servers", cwd=root).stdout.splitlines() if line.startswith("go "))
    assert line.endswith("backend: lsp:gopls; working (asked about main.go)"), line


def test_the_census_ranks_languages_by_files_and_finds_each_ones_newest(tmp_path: Path) -> None:
    files = {"a.py": 1, "pkg/b.py": 3, "c.py": 2, "main.go": 5, "util.go": 4, "web/app.ts": 9, "node_modules/x/y.ts": 10, ".hidden/z.ts": 11,
             "notes.txt": 12}
    for name, age in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n" if name.endswith(".py") else "package main\n" if name.endswith(".go") else "export const x = 1\n")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    with Gateway(tmp_path) as gateway:
        ranked = [(lang.name, count, path.relative_to(tmp_path).as_posix()) for lang, count, path in census(gateway.symbol_service)]
        assert ranked == [("python", 3, "pkg/b.py"), ("go", 2, "main.go"), ("typescript", 1, "web/app.ts")]
        assert [lang.name for lang, _, _ in census(gateway.symbol_service, limit=2)] == ["python"]  # a.py, c.py: walked in order


@pytest.mark.usefixtures("servers")
def test_a_server_is_started_ahead_even_when_its_newest_file_cannot_be_read(tmp_path: Path) -> None:
    (tmp_path / ".gateway").mkdir()
    (tmp_path / ".gateway" / "config.toml").write_text("[gate]\nmax_file_bytes = 1000\n")
    (tmp_path / "small.py").write_text("x = 1\n")
    (tmp_path / "big.py").write_text("x = 1\n" * 1000)
    os.utime(tmp_path / "small.py", (1_000_000, 1_000_000))
    told: list[tuple[str, str]] = []
    with Gateway(tmp_path) as gateway:
        prestart(gateway.symbol_service, 1, lambda language, file: told.append((language, file)))
        assert told == [("python", "big.py")]
        assert [session.name for session in gateway.sessions.running()] == ["zuban"]


@pytest.mark.usefixtures("servers")
def test_a_file_named_first_is_started_ahead_before_the_newest_and_a_bad_name_is_passed_over(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "old.py").write_text("x = 1\n")
    (root / "new.py").write_text("y = 1\n")
    (root / "notes.txt").write_text("z\n")
    os.utime(root / "old.py", (1_000_000, 1_000_000))
    (tmp_path / "outside.py").write_text("w = 1\n")
    with Gateway(root) as gateway:
        for first, expected in (("old.py", "old.py"), ("../outside.py", "new.py"), ("notes.txt", "new.py"), ("gone.py", "new.py"),
                                (".", "new.py")):
            told: list[tuple[str, str]] = []
            prestart(gateway.symbol_service, 1, lambda language, file: told.append((language, file)), first)
            assert told == [("python", expected)], first
        told = []
        prestart(gateway.symbol_service, 2, lambda language, file: told.append((language, file)), "old.py")
        assert told == [("python", "old.py")]  # its language is not started again for its newest file


def _path_without(program: str) -> str:
    return os.pathsep.join(entry for entry in os.environ["PATH"].split(os.pathsep) if not os.path.exists(os.path.join(entry, program)))


NO_GO = "gopls cannot load the workspace: no `go` on PATH"


@pytest.mark.usefixtures("processes")
def test_gopls_without_go_on_path_is_not_started_and_tree_sitter_routes_saying_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gopls found but no `go` on the caller's PATH answers every request "no views": the Go
    operations and routed edits run on tree-sitter's symbols (verified by re-parse), the result
    says why, and `gateway servers` says the server cannot run and what is missing."""
    root = _module(tmp_path, "good")
    monkeypatch.setenv("PATH", _path_without("go"))
    with Gateway(root) as gw:
        row = _go(gw.servers().to_json()["languages"])
        assert (row["found"], row["backend"], row["status"], row["reason"]) == (True, "tree-sitter", "cannot run", NO_GO), row
        replaced = gw.replace_symbol("Add", "main.go", "func Add(a, b, c int) int { return a + b + c }").to_json()
        assert replaced["backend"] == "tree-sitter" and f"via tree-sitter ({NO_GO}; symbols from tree-sitter)" in replaced["message"]
        routed = gw.edit("main.go", "func main() {}\n", "func main() {\n\tprintln(Add(1, 2, 3))\n}\n\nfunc Sub(a, b int) int { return a - b }\n",
                         route=True).to_json()
        assert routed["decision"] == "routed" and routed["backend"] == "tree-sitter" and NO_GO in routed["message"], routed
        assert gw.sessions.running() == []
    assert "func Sub(a, b int) int" in (root / "main.go").read_text()
    line = next(line for line in gateway("servers", cwd=root).stdout.splitlines() if line.startswith("go "))
    assert line.endswith(f"backend: tree-sitter; CANNOT RUN: {NO_GO} (put it on PATH; tree-sitter answers meanwhile)"), line


def _python_first(tmp_path: Path, program: str) -> Path:
    """Language data whose first Python server is `program`, the rest as shipped."""
    langs = tmp_path / "langs"
    shutil.copytree(data_dir("langs"), langs)
    python = langs / "python.toml"
    python.write_text(re.sub(r'(?m)^command = .*$', f'command = ["{program}", "server"]', python.read_text(), count=1))
    return langs


@pytest.mark.usefixtures("servers")
def test_servers_says_which_python_server_was_chosen_and_why(tmp_path: Path) -> None:
    """zuban first, with the reasons the comparison gave; jedi, its fallback, named as such,
    and named as the one used (with its own adapter's name) when zuban is not installed."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "m.py").write_text("def f():\n    return 1\n")
    with Gateway(tmp_path / "ws") as gw:
        row = next(row for row in gw.servers().to_json()["languages"] if row["language"] == "python")
    assert (row["server"], row["backend"], row["status"]) == ("zuban", "lsp:zuban", "working")
    assert row["chosen"].startswith("zuban: chosen first for python (type errors") and row["chosen"].endswith("jedi-language-server, pyright-langserver, pylsp: fallback")
    registry = LanguageRegistry(_python_first(tmp_path, "no-such-python-server"), data_dir("queries"))
    with Gateway(tmp_path / "ws", registry=registry) as gw:
        row = next(row for row in gw.servers().to_json()["languages"] if row["language"] == "python")
    assert (row["backend"], row["status"]) == ("lsp:jedi-language-server", "working")
    assert row["chosen"] == "jedi-language-server: fallback, because no-such-python-server is not installed (pip install zuban==0.10.2)"
