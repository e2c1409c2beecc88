"""The Python language servers side by side on code nobody here wrote (issue 35, item 6).

    python benchmarks/python_servers.py --checkout . [--requests DIR/requests] [--stdlib DIR] [--runs 3] [--record]

`--checkout`: the gateway checkout whose `.venv/bin` holds the servers (jedi-language-server,
pyright-langserver, zuban, ty, pyrefly; one not installed there is left out, and said so; `make
setup` installs them all, ty and pyrefly with the `bench` extra). `--requests`: the
`requests` package as installed from PyPI (by default pip installs requests 2.32.3 into a
temporary folder). `--stdlib`: the folder of
`argparse.py` (this Python's standard library by default). Nothing is committed of either: each
run copies them into temporary workspaces.

Two workspaces: argparse.py with a second file that imports it (`cli.py`, written here), and
the requests package. For each server, in one run, with one client (`benchmarks/lsp_probe.py`):

- symbols: documentSymbol on argparse.py and requests/utils.py against Python's own `ast`: every
  class, function and method with its kind, and its name where the name is (selectionRange);
- rename: `ArgumentParser.add_subparsers` (defined in argparse.py, called in cli.py) and
  `get_auth_from_url` (defined in utils.py, imported and called in three other files): complete
  (every occurrence, as Python's tokenizer finds them, renamed), and in the workspace only;
- references: `get_auth_from_url`'s nine places;
- diagnostics bound to the version (a pull, or a push carrying the version): after utils.py
  loses `get_auth_from_url`, an error at adapters.py's import of it; after it gains a required
  parameter, an error at adapters.py's call; after it is restored, neither (nothing stale);
- speed: initialize, the first documentSymbol on argparse.py, a warm one after a one-line
  change, each rename; memory: the resident size of the server's process tree at the end.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
import tokenize
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.lsp_probe import Probe, ProbeError  # noqa: E402
from benchmarks.python_hostile import safety_check  # noqa: E402
from benchmarks.report import machine, record, result_path  # noqa: E402

# The command that says each server's version, where it is not the server's own with --version.
VERSION_COMMANDS = {"pyright": ["pyright", "--version"]}
SERVERS = {
    "jedi-language-server": ["jedi-language-server"],
    "pyright": ["pyright-langserver", "--stdio"],
    "zuban": ["zuban", "server"],
    "ty": ["ty", "server"],
    "pyrefly": ["pyrefly", "lsp"],
}
CLI = '''import argparse


def build() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="demo")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run")
    return parser


def main() -> None:
    build().parse_args(["run"])
'''
TARGET = "get_auth_from_url"
REQUESTS = "2.32.3"


@dataclass
class Row:
    server: str
    version: str = ""
    checks: dict[str, str] = field(default_factory=dict)  # check: "ok" or what was wrong
    ms: dict[str, float] = field(default_factory=dict)
    memory_mib: float = 0.0
    diagnostics_from: str = ""


def lines_naming(source: str, name: str) -> list[int]:
    """The (0-based) line of each occurrence of `name` as a name token."""
    return [token.start[0] - 1 for token in tokenize.generate_tokens(io.StringIO(source).readline)
            if token.type == tokenize.NAME and token.string == name]


def names_in(source: str, name: str) -> int:
    return len(lines_naming(source, name))


def expected_symbols(source: str) -> set[tuple[str, str, int, int]]:
    """(container/name, kind, line, column of the name) of every class, function and method."""
    found: set[tuple[str, str, int, int]] = set()

    def visit(body: list[ast.stmt], container: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                keyword = "class " if isinstance(node, ast.ClassDef) else ("async def " if isinstance(node, ast.AsyncFunctionDef) else "def ")
                column = node.col_offset + len(keyword)
                kind = "class" if isinstance(node, ast.ClassDef) else ("method" if container else "function")
                found.add((container + node.name, kind, node.lineno - 1, column))
                if isinstance(node, ast.ClassDef):
                    visit(node.body, container + node.name + "/")

    visit(ast.parse(source).body, "")
    return found


KINDS = {5: "class", 6: "method", 12: "function", 9: "method"}  # 9: constructor


def served_symbols(reply: list[dict[str, Any]]) -> set[tuple[str, str, int, int]]:
    found: set[tuple[str, str, int, int]] = set()

    def visit(items: list[dict[str, Any]], container: str) -> None:
        for item in items:
            kind = KINDS.get(item.get("kind", 0))
            where = (item.get("selectionRange") or item.get("location", {}).get("range") or {}).get("start", {})
            if kind:
                if kind == "function" and container:
                    kind = "method"
                found.add((container + item["name"], kind, where.get("line", -1), where.get("character", -1)))
            visit(item.get("children") or [], container + item["name"] + "/" if kind == "class" else container)

    visit(reply or [], "")
    return found


def symbol_check(probe: Probe, path: Path) -> tuple[str, float]:
    started = time.perf_counter()
    reply = probe.request("textDocument/documentSymbol", {"textDocument": {"uri": path.as_uri()}}, timeout=60)
    took = time.perf_counter() - started
    want, got = expected_symbols(path.read_text()), served_symbols(reply)
    missing = sorted(want - got)
    return ("ok" if not missing else f"{len(missing)} of {len(want)} wrong or missing, e.g. {missing[:3]}"), took


def edits_of(reply: Any) -> dict[str, list[dict[str, Any]]]:
    edits: dict[str, list[dict[str, Any]]] = {}
    for change in (reply or {}).get("documentChanges") or []:
        edits.setdefault(change["textDocument"]["uri"], []).extend(change.get("edits", []))
    for uri, changes in ((reply or {}).get("changes") or {}).items():
        edits.setdefault(uri, []).extend(changes)
    return edits


def applied(text: str, edits: list[dict[str, Any]]) -> str:
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(position: dict[str, int]) -> int:  # utf-16 columns: the corpora are ASCII where renamed
        return starts[min(position["line"], len(lines))] + position["character"]

    spans = {(offset(edit["range"]["start"]), offset(edit["range"]["end"]), edit["newText"]) for edit in edits}  # a repeated edit is one, as the gateway applies it
    for start, end, new in sorted(spans, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def rename_check(probe: Probe, root: Path, path: Path, line: int, column: int, old: str, new: str) -> tuple[str, float]:
    """Rename at (line, column) of `path`; whether every occurrence of `old` in the workspace
    was renamed and nothing outside it was touched. The files stay as they were."""
    before = {file: file.read_text() for file in root.rglob("*.py")}
    started = time.perf_counter()
    reply = probe.request("textDocument/rename", {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": column},
                                                   "newName": new}, timeout=120)
    took = time.perf_counter() - started
    edits = {Path(unquote(urlparse(uri).path)): changes for uri, changes in edits_of(reply).items()}
    outside = sorted(str(file).split("site-packages/")[-1] for file in edits if root not in file.parents)
    after = {file: applied(text, edits.get(file, [])) for file, text in before.items()}
    left = {file.name: names_in(after[file], old) for file, text in before.items() if names_in(text, old)}
    wanted = sum(names_in(text, old) for text in before.values())
    problems = []
    if outside:
        problems.append(f"edits outside the workspace: {', '.join(outside)}")
    if sum(names_in(text, new) for text in after.values()) != wanted + sum(names_in(text, new) for text in before.values()):
        problems.append("the new name is not where the old one was")
    if any(left.values()):
        problems.append(f"left {sum(left.values())} of {wanted}: " + ", ".join(f"{name} {n}" for name, n in left.items() if n))
    return ("ok" if not problems else "; ".join(problems)), took


def references_check(probe: Probe, root: Path, path: Path, line: int, column: int, name: str) -> str:
    reply = probe.request("textDocument/references", {"textDocument": {"uri": path.as_uri()}, "position": {"line": line, "character": column},
                                                       "context": {"includeDeclaration": True}}, timeout=60)
    got = {(unquote(urlparse(item["uri"]).path), item["range"]["start"]["line"]) for item in reply or []}
    want = {(str(file), number) for file in root.rglob("*.py") for number in lines_naming(file.read_text(), name)}
    missing = want - got
    return "ok" if not missing else f"{len(missing)} of {len(want)} missing"


def errors_at(diagnostics: list[dict[str, Any]], line: int) -> list[str]:
    return [d.get("message", "") for d in diagnostics if d.get("range", {}).get("start", {}).get("line") == line and d.get("severity", 1) == 1]


def diagnostics_checks(probe: Probe, root: Path, row: Row) -> None:
    """The delta the verification needs, on requests: utils.py changed, adapters.py checked."""
    utils, adapters = root / "requests" / "utils.py", root / "requests" / "adapters.py"
    original = utils.read_text()
    adapter_lines = adapters.read_text().splitlines()
    import_line = next(n for n, text in enumerate(adapter_lines) if text.strip() == f"{TARGET},")
    call_line = next(n for n, text in enumerate(adapter_lines) if f"= {TARGET}(proxy)" in text)
    for file in (utils, adapters):
        probe.open(file)
    source, before = probe.diagnostics(adapters, timeout=30)
    row.diagnostics_from = source
    if source == "none":
        for check in ("diagnostics: unknown import", "diagnostics: argument count", "diagnostics: nothing stale"):
            row.checks[check] = "no diagnostics bound to the version"
        return
    if errors_at(before, import_line) or errors_at(before, call_line):
        row.checks["diagnostics: before"] = f"errors already there: {errors_at(before, import_line) + errors_at(before, call_line)}"
    tree = ast.parse(original)
    definition = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == TARGET)
    lines = original.splitlines(keepends=True)
    removed = "".join(lines[:definition.lineno - 1] + lines[definition.end_lineno or 0:])
    header = original.replace(f"def {TARGET}(url):", f"def {TARGET}(url, strict):")
    for check, text, line in (("diagnostics: unknown import", removed, import_line), ("diagnostics: argument count", header, call_line)):
        probe.change(utils, text)
        started = time.perf_counter()
        _, after = probe.diagnostics(adapters, timeout=30)
        row.ms[check.removeprefix("diagnostics: ")] = (time.perf_counter() - started) * 1000
        found = errors_at(after, line)
        row.checks[check] = "ok" if found else f"no error at adapters.py:{line + 1}"
    probe.change(utils, original)
    _, after = probe.diagnostics(adapters, timeout=30)
    stale = errors_at(after, import_line) + errors_at(after, call_line)
    row.checks["diagnostics: nothing stale"] = "ok" if not stale else f"still: {stale}"


def workspaces(stdlib: Path, requests: Path) -> tuple[Path, Path]:
    base = Path(tempfile.mkdtemp(prefix="pyservers-"))
    (base / "stdlib").mkdir()
    shutil.copy(stdlib / "argparse.py", base / "stdlib" / "argparse.py")
    (base / "stdlib" / "cli.py").write_text(CLI)
    # A checkout's layout: the package a folder below the workspace's root.
    shutil.copytree(requests, base / "checkout" / "requests", ignore=shutil.ignore_patterns("__pycache__"))
    return base / "stdlib", base / "checkout"


def measure(name: str, command: list[str], bin_dir: Path, stdlib: Path, requests: Path) -> Row:
    row = Row(name)
    env = {"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "HOME": tempfile.mkdtemp(prefix="pyservers-home-")}
    program = [str(bin_dir / command[0]), *command[1:]]
    first, second = workspaces(stdlib, requests)
    row.checks["safety: hostile repository"] = safety_check(program, env)
    probe = Probe(program, first, env)
    try:
        row.ms["initialize"] = probe.start() * 1000
        parser, cli = first / "argparse.py", first / "cli.py"
        probe.open(parser)
        probe.open(cli)
        row.checks["symbols: argparse.py"], took = symbol_check(probe, parser)
        row.ms["first documentSymbol"] = took * 1000
        probe.change(parser, parser.read_text() + "\n# changed\n")
        _, took = symbol_check(probe, parser)
        row.ms["warm documentSymbol"] = took * 1000
        probe.change(parser, parser.read_text())
        line = next(n for n, text in enumerate(parser.read_text().splitlines()) if "def add_subparsers(" in text)
        row.checks["rename: argparse add_subparsers"], took = rename_check(probe, first, parser, line, 8, "add_subparsers", "add_commands")
        row.ms["rename argparse (2 files)"] = took * 1000
    except ProbeError as error:
        _failed(row, ("symbols: argparse.py", "rename: argparse add_subparsers"), error)
    finally:
        probe.stop()
    probe = Probe(program, second, env)
    try:
        probe.start()
        utils = second / "requests" / "utils.py"
        probe.open(utils)
        row.checks["symbols: requests/utils.py"], _ = symbol_check(probe, utils)
        line = next(n for n, text in enumerate(utils.read_text().splitlines()) if text.startswith(f"def {TARGET}("))
        row.checks["references: get_auth_from_url"] = references_check(probe, second, utils, line, 4, TARGET)
        row.checks["rename: requests get_auth_from_url"], took = rename_check(probe, second, utils, line, 4, TARGET, "auth_from_url")
        row.ms["rename requests (4 files)"] = took * 1000
        diagnostics_checks(probe, second, row)
        row.memory_mib = probe.memory_mib()
    except ProbeError as error:
        _failed(row, ("symbols: requests/utils.py", "references: get_auth_from_url", "rename: requests get_auth_from_url",
                      "diagnostics: unknown import"), error)
    finally:
        probe.stop()
        shutil.rmtree(first.parent, ignore_errors=True)
    return row


def _failed(row: Row, checks: tuple[str, ...], error: ProbeError) -> None:
    """The server failed (or did not answer) the first of `checks` not yet answered."""
    row.checks[next((check for check in checks if check not in row.checks), checks[-1])] = str(error)


def version_of(bin_dir: Path, name: str) -> str:
    import subprocess

    command = VERSION_COMMANDS.get(name, SERVERS[name][:1])
    try:
        done = subprocess.run([str(bin_dir / command[0]), "--version"], capture_output=True, text=True, timeout=30)
    except OSError:
        return "not installed"
    return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr).strip() else "?"


def merged(runs: list[Row]) -> dict[str, Any]:
    """The first run's checks (the same every run, or each run's answer), the timings' medians."""
    checks = {check: sorted({run.checks.get(check, "not run") for run in runs}) for check in runs[0].checks}
    return {"server": runs[0].server, "version": runs[0].version, "diagnostics_from": runs[0].diagnostics_from,
            "checks": {check: answers[0] if len(answers) == 1 else " / ".join(answers) for check, answers in checks.items()},
            "ms": {what: statistics.median(run.ms[what] for run in runs if what in run.ms) for what in runs[0].ms},
            "ms_range": {what: [min(run.ms.get(what, 0) for run in runs), max(run.ms.get(what, 0) for run in runs)] for what in runs[0].ms},
            "memory_mib": statistics.median(run.memory_mib for run in runs), "runs": [asdict(run) for run in runs]}


def table(results: list[dict[str, Any]]) -> str:
    checks = list(dict.fromkeys(check for result in results for check in result["checks"]))
    head = "| check | " + " | ".join(f"{r['server']} {r['version'].split()[-1] if r['version'] else ''}" for r in results) + " |"
    lines = [head, "|---|" + "---|" * len(results)]
    for check in checks:
        lines.append(f"| {check} | " + " | ".join("✓" if r["checks"].get(check) == "ok" else f"✗ {r['checks'].get(check, 'not run')}" for r in results) + " |")
    lines.append("| diagnostics from | " + " | ".join(r["diagnostics_from"] or "–" for r in results) + " |")
    timings = list(dict.fromkeys(what for result in results for what in result["ms"]))
    for what in timings:
        lines.append(f"| {what}, ms | " + " | ".join(
            f"{r['ms'][what]:.0f} ({r['ms_range'][what][0]:.0f}–{r['ms_range'][what][1]:.0f})" if what in r["ms"] else "–" for r in results) + " |")
    lines.append("| memory at the end, MiB | " + " | ".join(f"{r['memory_mib']:.0f}" for r in results) + " |")
    return "\n".join(lines)


def installed_requests() -> Path:
    """requests from PyPI, installed by pip (its own package only) into a temporary folder."""
    import subprocess

    target = Path(tempfile.mkdtemp(prefix="pyservers-requests-"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps", "--target", str(target),
                    f"requests=={REQUESTS}"], check=True)
    return target / "requests"


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--checkout", type=Path, required=True, help="the gateway checkout whose .venv/bin holds the servers")
    options.add_argument("--requests", type=Path, help=f"the requests package folder, as installed from PyPI (default: requests=={REQUESTS} "
                         "installed by pip into a temporary folder)")
    options.add_argument("--stdlib", type=Path, default=Path(sysconfig.get_paths()["stdlib"]), help="the folder holding argparse.py")
    options.add_argument("--servers", default=",".join(SERVERS), help="comma-separated, of: " + ", ".join(SERVERS))
    options.add_argument("--runs", type=int, default=3)
    options.add_argument("--record", action="store_true", help="write the tracked results (RESULTS.md, results/python_servers.json)")
    args = options.parse_args()
    bin_dir = args.checkout.resolve() / ".venv" / "bin"
    requests = args.requests or installed_requests()
    unknown = [name for name in args.servers.split(",") if name and name not in SERVERS]
    if unknown:
        options.error(f"unknown server {', '.join(unknown)}: the servers are {', '.join(SERVERS)}")
    chosen = [name for name in args.servers.split(",") if name and (bin_dir / SERVERS[name][0]).exists()]
    for name in sorted(set(args.servers.split(",")) - set(chosen) - {""}):
        print(f"{name}: not installed in {bin_dir}, left out", file=sys.stderr)
    rows: dict[str, list[Row]] = {name: [] for name in chosen}
    for _ in range(args.runs):  # interleaved: the machine's load falls on every server alike
        for name in chosen:
            row = measure(name, SERVERS[name], bin_dir, args.stdlib, requests.resolve())
            row.version = version_of(bin_dir, name)
            rows[name].append(row)
            print(name, json.dumps(row.checks), {k: round(v) for k, v in row.ms.items()}, f"{row.memory_mib:.0f} MiB", file=sys.stderr)
    results = [merged(runs) for runs in rows.values()]
    markdown = (f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f} at the end. {args.runs} interleaved runs; the checks "
                "as every run answered them (runs that differ are listed apart), medians (range) in ms.\n\n" + table(results))
    print(markdown)
    result_path("python_servers.json").write_text(json.dumps(results, indent=1) + "\n")
    record(markdown, "python-servers", "Python language servers")


if __name__ == "__main__":
    main()
