"""Head to head with Serena (issue 24): the same four operations on the same files with the same
text, through each tool's own MCP server over stdio, in one run.

Run: `make bench-serena` (installs Serena 2.1.0 into .tools/serena, a virtualenv of its own), or
`python benchmarks/serena_peer.py [--record] [--runs N] [--languages python,go,typescript]`.

Per language, each tool gets its own copy of the same real files (Python's argparse.py; Go's
go/ast package from `go env GOROOT`; node-pty's TypeScript sources from `make hosts`) in a
temporary git repository. Both run the same server binaries: jedi-language-server and gopls from
PATH, and our typescript-language-server (Serena's `ls_path`). The peers are `gateway mcp` with
its warm daemon (the default), `gateway mcp` with GATEWAY_NO_DAEMON=1 (the engine in the MCP
server's own process) and `serena start-mcp-server --context claude-code --agent-interface tools`.
Each step runs on every peer in turn (the order alternating between runs); the first run warms
up and is not counted. "changed": the benchmark rewrote the file (a comment inside the target
definition) just before the call; "unchanged": the file is as the tool last read or wrote it.
After every write both tools' files are compared byte for byte.
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.peer_cases import Case, cases, marked  # noqa: E402
from benchmarks.report import machine, record, result_path  # noqa: E402

SERENA = ROOT / ".tools" / "serena" / "bin" / "serena"
TS_SERVER = ROOT / ".tools" / "node" / "node_modules" / ".bin" / "typescript-language-server"
GATEWAY, LOCAL, PEER = "gateway", "gateway, no daemon", "serena"
# (operation, file state, whether the benchmark rewrites the file just before the call)
STEPS = [
    ("symbols", "changed", True), ("symbols", "unchanged", False),
    ("find_symbol", "changed", True), ("find_symbol", "unchanged", False),
    ("replace_symbol", "unchanged", False), ("replace_symbol", "changed", True),
    ("insert_code", "unchanged", False), ("insert_code", "changed", True),
    ("rename_symbol", "unchanged", False), ("rename_symbol", "changed", True),
]
WRITES = ("replace_symbol", "insert_code", "rename_symbol")


class CallFailed(Exception):
    """A tool's error, a write that wrote nothing or an answer from a stale file: the run stops there."""


class Peer:
    """One MCP server over stdio, with its own copy of the workspace."""

    def __init__(self, name: str, session: ClientSession, root: Path, case: Case) -> None:
        self.name, self.session, self.root, self.case = name, session, root, case
        self.file = root / case.path
        self.files = sorted(str(p.relative_to(root)) for p in root.rglob("*")
                            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts))

    def snapshot(self) -> dict[str, str]:
        return {relative: (self.root / relative).read_text() for relative in self.files}

    def rewrite(self, files: dict[str, str]) -> None:
        """The benchmark's own edit, as another program would make it: every file written anew."""
        for relative, text in files.items():
            (self.root / relative).write_text(text)

    def request(self, operation: str, text: str | None) -> tuple[str, dict[str, Any]]:
        c = self.case
        if self.name == PEER:
            return {
                "symbols": ("get_symbols_overview", {"relative_path": c.path, "depth": 1}),
                "find_symbol": ("find_symbol", {"name_path_pattern": c.target, "relative_path": c.path, "include_body": True}),
                "replace_symbol": ("replace_symbol_body", {"name_path": c.target, "relative_path": c.path, "body": text}),
                "insert_code": ("insert_after_symbol", {"name_path": c.anchor, "relative_path": c.path, "body": c.insert}),
                "rename_symbol": ("rename_symbol", {"name_path": c.rename, "relative_path": c.path, "new_name": c.new_name}),
            }[operation]
        return {  # depth 2 here is Serena's depth 1: top-level symbols and their children
            "symbols": ("symbols", {"path": c.path, "depth": 2}),
            "find_symbol": ("find_symbol", {"name_path": c.target, "path": c.path, "body": True}),
            "replace_symbol": ("replace_symbol", {"name_path": c.target, "path": c.path, "body": text}),
            "insert_code": ("insert_code", {"name_path": c.anchor, "path": c.path, "code": c.insert, "position": "after"}),
            "rename_symbol": ("rename_symbol", {"name_path": c.rename, "path": c.path, "new_name": c.new_name}),
        }[operation]

    async def call(self, operation: str, text: str | None = None) -> tuple[float, str]:
        """The call's wall time in ms, and its answer; a tool error or a write that wrote nothing raises."""
        tool, arguments = self.request(operation, text)
        before = self.file.read_bytes()
        started = time.perf_counter()
        result = await self.session.call_tool(tool, arguments)
        elapsed = (time.perf_counter() - started) * 1000
        answer = "".join(getattr(part, "text", "") for part in result.content)
        if result.is_error or answer.startswith("Error") or '"ok":false' in answer or '"applied":false' in answer:
            raise CallFailed(f"{self.name} {tool}: {answer[:300]}")
        if operation in WRITES and self.file.read_bytes() == before:
            raise CallFailed(f"{self.name} {tool} wrote nothing: {answer[:300]}")
        return elapsed, answer


def _workspace(case: Case, parent: Path, name: str) -> Path:
    root = parent / name
    root.mkdir()
    for source in case.sources():
        target = root / source.relative_to(case.source_root())
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    for relative, text in case.extra_files.items():
        (root / relative).write_text(text)
    git = ["git", "-C", str(root), "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git[:3], "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "peer benchmark"], check=True)
    return root


def _serena_home(parent: Path) -> Path:
    """A SERENA_HOME of the run's own: no dashboard, no usage report, our typescript-language-server."""
    home = parent / "serena-home"
    home.mkdir()
    (home / "serena_config.yml").write_text(
        "language_backend: LSP\nagent_interface: tools\nweb_dashboard: False\ngui_log_window: False\n"
        'log_level: 30\ntool_timeout: 240\ntrusted_project_path_patterns: ["**"]\nprojects: []\n'
        f"ls_specific_settings:\n  typescript:\n    ls_path: {json.dumps(str(TS_SERVER))}\n"
    )
    return home


def _path() -> str:
    """Our venv's servers (jedi-language-server, the gateway) and our npm servers first, for both tools."""
    return os.pathsep.join([str(Path(sys.executable).parent), str(TS_SERVER.parent), os.environ.get("PATH", "")])


def _environment(parent: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GATEWAY_NO_DAEMON"}
    env["PATH"] = _path()
    env["XDG_RUNTIME_DIR"] = str(parent / "run")  # the daemon's socket, of this run only
    env["SERENA_HOME"] = str(parent / "serena-home")
    env["SERENA_USAGE_REPORTING"] = "false"
    env["PYTHONPATH"] = str(ROOT)
    (parent / "run").mkdir(mode=0o700)
    return env


def _servers(case: Case, parent: Path, env: dict[str, str]) -> dict[str, tuple[Path, StdioServerParameters]]:
    gateway = [str(ROOT / "scripts" / "gateway")]
    ours = _workspace(case, parent, f"{case.language}-gateway")
    local = _workspace(case, parent, f"{case.language}-local")
    theirs = _workspace(case, parent, f"{case.language}-serena")
    (theirs / ".serena").mkdir()
    (theirs / ".serena" / "project.yml").write_text(
        f'project_name: "peer-{case.language}"\nlanguage_servers: ["{case.serena_server}"]\nencoding: "utf-8"\n'
    )
    subprocess.run([sys.executable, *gateway, "daemon", "start", "--workspace", str(ours)], env=env, check=True, capture_output=True)
    serena = ["start-mcp-server", "--project", str(theirs), "--context", "claude-code", "--agent-interface", "tools",
              "--enable-web-dashboard", "false", "--open-web-dashboard", "false"]
    return {
        GATEWAY: (ours, StdioServerParameters(command=sys.executable, args=[*gateway, "mcp", "--workspace", str(ours)], env=env)),
        LOCAL: (local, StdioServerParameters(command=sys.executable, args=[*gateway, "mcp", "--workspace", str(local)],
                                             env={**env, "GATEWAY_NO_DAEMON": "1"})),
        PEER: (theirs, StdioServerParameters(command=str(SERENA), args=serena, env=env)),
    }


class Tally:
    """Samples per (operation, state) and peer; whether the writes left the same bytes."""

    def __init__(self) -> None:
        self.samples: dict[tuple[str, str], dict[str, list[float]]] = {}
        self.same: dict[tuple[str, str], list[int]] = {}
        self.diffs: dict[tuple[str, str], str] = {}
        self.failures: list[str] = []

    def add(self, step: tuple[str, str], peer: str, ms: float) -> None:
        self.samples.setdefault(step, {}).setdefault(peer, []).append(ms)

    def compare(self, step: tuple[str, str], peers: list[Peer]) -> None:
        """Whether every peer's copy of every file holds the same bytes; the first difference kept."""
        files = {peer.name: peer.snapshot() for peer in peers}
        same = all(files[peer.name] == files[GATEWAY] for peer in peers)
        counts = self.same.setdefault(step, [0, 0])
        counts[0] += same
        counts[1] += 1
        if not same and step not in self.diffs:
            ours, theirs = files[GATEWAY], files[PEER]
            lines = []
            for relative in sorted(set(ours) | set(theirs)):
                lines += difflib.unified_diff(ours.get(relative, "").splitlines(keepends=True), theirs.get(relative, "").splitlines(keepends=True),
                                              f"{GATEWAY}/{relative}", f"{PEER}/{relative}", n=2)
            self.diffs[step] = "".join(lines[:40]) or "(the gateway's copy and Serena's agree; the gateway without its daemon differs)"


async def _definition(peers: list[Peer]) -> tuple[str, bool]:
    """The target's text as it stands in the file (our find_symbol's body, from the line's start),
    and whether Serena's body is the same text (it starts at the name, not the line)."""
    bodies = {}
    for peer in peers:
        _, answer = await peer.call("find_symbol")
        found = json.loads(answer)
        bodies[peer.name] = found[0]["body"] if peer.name == PEER else found["matches"][0]["body"]
    ours = bodies[GATEWAY]
    return ours, bodies[PEER] == ours.lstrip() and bodies[LOCAL] == ours


async def _one_run(peers: list[Peer], run: int, original: dict[str, str], definition: str, tally: Tally | None) -> None:
    case = peers[0].case
    comment, text = case.comment, original[case.path]
    outside = {key: {**original, case.path: text.replace(definition, marked(definition, f"edited outside, run {run} {key}", comment))}
               for key in "ab"}
    replacement = {"unchanged": marked(definition, f"replaced, run {run} a", comment),
                   "changed": marked(definition, f"replaced, run {run} b", comment)}
    for operation, state, rewrite in STEPS:
        for peer in peers:
            if rewrite:
                peer.rewrite(outside["b" if operation == "find_symbol" else "a"])
            ms, answer = await peer.call(operation, replacement[state] if operation == "replace_symbol" else None)
            if operation == "find_symbol" and state == "changed" and f"run {run} b" not in answer:
                raise CallFailed(f"{peer.name} find_symbol answered from a stale file: {answer[:300]}")
            if tally is not None:
                tally.add((operation, state), peer.name, ms)
        if tally is not None and operation in WRITES:
            tally.compare((operation, state), peers)


async def _run_case(case: Case, runs: int, parent: Path, env: dict[str, str]) -> dict[str, Any]:
    servers = _servers(case, parent, env)
    tally = Tally()
    async with AsyncExitStack() as stack:
        peers = []
        for name, (root, params) in servers.items():
            log = stack.enter_context(open(parent / f"{case.language}-{name}.log", "w"))
            read, write = await stack.enter_async_context(stdio_client(params, errlog=log))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            peers.append(Peer(name, session, root, case))
        definition, agree = await _definition(peers)
        original = peers[0].snapshot()
        for run in range(runs + 1):  # run 0 warms every peer up and is not counted
            started = time.perf_counter()
            try:
                await _one_run(peers if run % 2 else peers[::-1], run, original, definition, tally if run else None)
            except CallFailed as failed:  # counted and shown; the next run puts every file back first
                tally.failures.append(f"run {run}: {failed}")
                print(f"{case.language}: run {run} stopped: {failed}", file=sys.stderr)
                continue
            print(f"{case.language}: run {run} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    medians = {f"{op} {state}": {peer: statistics.median(values) for peer, values in by_peer.items()}
               for (op, state), by_peer in tally.samples.items()}
    return {"language": case.language, "file": case.path, "lines": original[case.path].count("\n"), "target": case.target,
            "anchor": case.anchor, "rename": f"{case.rename} to {case.new_name}", "files": len(original), "find_bodies_agree": agree, "medians_ms": medians,
            "same_bytes": {f"{op} {state}": counts for (op, state), counts in tally.same.items()},
            "first_difference": {f"{op} {state}": diff for (op, state), diff in tally.diffs.items()},
            "failures": tally.failures}


def _versions(env: dict[str, str]) -> dict[str, str]:
    def first_line(command: list[str]) -> str:
        try:
            done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        except OSError:
            return "not found"
        return (done.stdout or done.stderr).strip().splitlines()[0] if (done.stdout or done.stderr).strip() else "?"

    return {
        "serena": "serena-agent " + first_line([str(SERENA.parent / "python"), "-c", "import importlib.metadata as m; print(m.version('serena-agent'))"]),
        "jedi-language-server": first_line([str(Path(sys.executable).parent / "jedi-language-server"), "--version"]),
        "gopls": f"{shutil.which('gopls', path=env['PATH'])} ({first_line(['go', 'version', '-m', shutil.which('gopls', path=env['PATH']) or 'gopls'])})",
        "typescript-language-server": first_line([str(TS_SERVER), "--version"]),
    }


def render(rows: list[dict[str, Any]], versions: dict[str, str], runs: int, load: str = "") -> str:
    out = [
        f"Machine: {machine()}{load}. {versions['serena']} against this gateway, both through their MCP servers over "
        f"stdio from one client (the `mcp` SDK), on the same server binaries: jedi-language-server "
        f"{versions['jedi-language-server']}, gopls {versions['gopls']}, typescript-language-server "
        f"{versions['typescript-language-server']}. Medians of {runs} interleaved runs after one warm-up run, "
        "ms per call as the client sees it. `changed`: the file was rewritten on disk (a comment inside the "
        "target) just before the call; `unchanged`: it is as the tool last read or wrote it. "
        "`gateway`: `gateway mcp` with its warm daemon (the default); `no daemon`: GATEWAY_NO_DAEMON=1, "
        "the engine inside the MCP server. Ratios below 1 mean the gateway is faster. `same bytes`: "
        "runs in which the write left identical files in every tool's copy.",
    ]
    for row in rows:
        out += ["", f"**{row['language']}**: `{row['file']}` ({row['lines']} lines); find and replace "
                f"`{row['target']}`, insert after `{row['anchor']}`, rename `{row['rename']}` ({row['files']} file{'s' if row['files'] != 1 else ''} in the workspace).", "",
                "| operation | file | gateway | no daemon | Serena | gateway ÷ Serena | no daemon ÷ Serena | same bytes |",
                "|---|---|---:|---:|---:|---:|---:|---:|"]
        for step, medians in row["medians_ms"].items():
            operation, state = step.split()
            ours, local, theirs = (medians.get(peer, float("nan")) for peer in (GATEWAY, LOCAL, PEER))
            same = row["same_bytes"].get(step)
            out.append(f"| {operation} | {state} | {ours:.1f} | {local:.1f} | {theirs:.1f} | {ours / theirs:.2f} | "
                       f"{local / theirs:.2f} | {f'{same[0]}/{same[1]}' if same else ''} |")
    return "\n".join(out + _differences(rows))


def _differences(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "Differences in what the tools did, and calls that failed:"]
    for row in rows:
        out += [f"- {row['language']}, failed call ({'warm-up, ' if failure.startswith('run 0:') else ''}the rest of that run skipped): "
                f"{failure.replace(chr(10), ' ')}" for failure in row["failures"]]
        if not row["find_bodies_agree"]:
            out.append(f"- {row['language']}: find_symbol bodies differ beyond Serena's starting at the name")
        for step, diff in row["first_difference"].items():
            out += [f"- {row['language']}, {step} (first run that differed; `-` gateway, `+` Serena):", "",
                    "```diff", diff.rstrip("\n"), "```"]
    return out if len(out) > 2 else out + ["- none: every call answered, and every write left the same bytes in both tools' copies"]


async def _main(languages: list[str], runs: int, keep: bool) -> list[dict[str, Any]]:
    parent = Path(tempfile.mkdtemp(prefix="peer-", dir="/tmp"))  # short: the daemon's socket lives under it
    env = _environment(parent)
    _serena_home(parent)
    rows = []
    try:
        for language in languages:
            rows.append(await _run_case(cases()[language], runs, parent, env))
            print(json.dumps(rows[-1]["medians_ms"]), file=sys.stderr)
    finally:
        for workspace in parent.glob("*-gateway"):
            subprocess.run([sys.executable, str(ROOT / "scripts" / "gateway"), "daemon", "stop", "--workspace", str(workspace)],
                           env=env, capture_output=True)
        if keep:
            print(f"kept {parent} (workspaces, and each MCP server's stderr in *.log)", file=sys.stderr)
        else:
            shutil.rmtree(parent, ignore_errors=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description="Head to head with Serena: the same operations through both MCP servers.")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--languages", default=",".join(cases()))
    parser.add_argument("--keep", action="store_true", help="keep the temporary workspaces and the servers' logs")
    parser.add_argument("--record", action="store_true", help="write RESULTS.md and results/ (else results/local/)")
    args = parser.parse_args()
    if not SERENA.exists():
        sys.exit(f"{SERENA} not found: run `make serena` (Serena in a virtualenv of its own)")
    languages = args.languages.split(",")
    rows = asyncio.run(_main(languages, args.runs, args.keep))
    versions = _versions({**os.environ, "PATH": _path()})
    load = ", load average {:.1f} / {:.1f} / {:.1f} at the end".format(*os.getloadavg())  # other work slows both tools alike
    markdown = render(rows, versions, args.runs, load)
    print(markdown)
    result_path("serena_peer.json").write_text(json.dumps({"machine": machine() + load, "versions": versions, "runs": args.runs,
                                                           "languages": rows}, indent=2) + "\n")
    record(markdown, "serena-peer", "Head to head: gateway and Serena")


if __name__ == "__main__":
    main()
