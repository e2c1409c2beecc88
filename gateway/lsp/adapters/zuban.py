"""zuban (`zuban server`, a Rust type checker on PyPI by jedi's author): Python's first server
(benchmarks/RESULTS.md, "Python language servers"). Beside jedi it answers documentSymbol in
milliseconds, renames in the workspace only (jedi also edits typeshed's stubs outside it) and
reports type errors (an unknown import name, a wrong argument count) through pull diagnostics,
which bind them to the text they are about.

What it reads of a repository is data: mypy's and its own settings (mypy.ini, .mypy.ini,
setup.cfg, `[tool.mypy]`/`[tool.zuban]` in pyproject.toml) and the packages of a venv it finds.
It runs no interpreter (not the venv's, not a `python_executable` a config names) and loads no
mypy plugin: checked with a hostile repository in benchmarks/python_servers.py and
tests/test_untrusted_repos.py.

Its documentSymbol ranges run on to where the next statement starts (blank lines and comments
between definitions included): the extent of a definition is tree-sitter's (`ranges_run_on`).

It keeps nothing on disk, so a CLI command about to exit kills it, and it comes back in
milliseconds, so the daemon restarts it once it has grown.
"""

from __future__ import annotations

from gateway.lsp.adapters.base import Adapter


class ZubanAdapter(Adapter):
    ranges_run_on = True
    restart_when_grown = True
    killed_at_exit = True


ADAPTER = ZubanAdapter()
