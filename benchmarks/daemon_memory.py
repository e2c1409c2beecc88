"""The workspace daemon's memory on a real repository: one daemon, its language servers and
their children, measured while 200 mixed operations run through it.

Run: `python benchmarks/daemon_memory.py [CHECKOUT] [--ops N] [--record]`, CHECKOUT being a
checkout of a real repository with Python files; without one, Sphinx 8.1.3's source
distribution from PyPI (1,867 files). The checkout is copied to a temporary workspace first
(it is never written). The operations cycle over 40 of its Python files: `symbols`,
`find_symbol` (with a path, and now and then over the whole workspace), `classify` of a header
change, Claude Code's PreToolUse hook on a body edit (then written, as the host would), `edit`
of a body and `replace_symbol`. Memory is the
sum over the daemon's process tree (daemon, reapers, servers and what they start) of VmRSS
(/proc/PID/status) and of PSS (/proc/PID/smaps_rollup, shared pages divided among sharers),
read after every operation (the highest is reported), and again at rest, 3 s after the last.
The same operations run beside them, operation by operation, on a second copy whose daemon
never restarts its language servers for their growth (`[daemon] server_growth_mib`
unbounded), for what the bound costs in time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, record  # noqa: E402
from gateway.reaper import descendants  # noqa: E402
from gateway.surfaces import daemon_client  # noqa: E402

GATEWAY = [sys.executable, str(ROOT / "scripts" / "gateway")]
FILES = 40
TARGET_MIB = 300.0
DEFAULT = ("sphinx", "8.1.3")  # the repository measured when no checkout is given: its sdist on PyPI
REST_SECONDS = 3.0  # past the daemon's tidying between requests (gateway.surfaces.daemon.TIDY_SECONDS)
SKIP = {".git", "node_modules", "build", "dist", ".tox", ".venv"}
STARTS = ("#", '"', "'", "@", "def ", "async def ", "class ")  # lines before which a comment could change a definition


def _kib(path: str, field: str) -> int:
    try:
        with open(path) as handle:
            for line in handle:
                if line.startswith(field):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _name(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            words = [w.decode(errors="replace") for w in handle.read().split(b"\0") if w]
    except OSError:
        return "?"
    if any(Path(w).name == "reaper.py" for w in words):
        return "reaper"  # gateway.reaper, above each server (its arguments are a timeout and a pid)
    useful = [w for w in words if not w.startswith("-") and not w.endswith(("python", "python3", "node"))]
    return Path(useful[0]).name if useful else Path(words[0]).name if words else "?"


def memory(pid: int) -> dict[str, Any]:
    """RSS and PSS in MiB of `pid` and every process below it, with each process's share."""
    family = [pid, *descendants(pid)]
    rss = {p: _kib(f"/proc/{p}/status", "VmRSS:") / 1024 for p in family}
    pss = {p: _kib(f"/proc/{p}/smaps_rollup", "Pss:") / 1024 for p in family}
    return {
        "rss": sum(rss.values()), "pss": sum(pss.values()), "daemon_rss": rss[pid],
        "processes": [(p, _name(p), rss[p], pss[p]) for p in family],
    }


def _copy(checkout: Path) -> Path:
    root = Path(tempfile.mkdtemp(prefix="gateway-memory-bench-")) / checkout.name
    shutil.copytree(checkout, root, ignore=lambda _d, names: [n for n in names if n in SKIP], symlinks=True)
    return root


def _python_files(root: Path) -> list[str]:
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP and not d.startswith("."))
        for name in sorted(files):
            path = Path(directory) / name
            if name.endswith(".py") and 2_000 <= path.stat().st_size <= 60_000:
                found.append(str(path.relative_to(root)))
    step = max(len(found) // FILES, 1)
    return found[::step][:FILES]


class Run:
    """The operations, sent to the daemon as the CLI, MCP and the hook send them."""

    def __init__(self, root: Path, files: list[str]) -> None:
        self.root, self.files, self.count = root, files, 0
        self.functions: dict[str, list[str]] = {}
        self.failures: dict[str, int] = {}
        self.restarted, self.growth, self.seconds, self.pid = 0, None, 0.0, 0
        self.peak: dict[str, Any] = {}
        self.samples: list[tuple[str, dict[str, Any], float]] = []

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.count += 1
        try:
            return daemon_client.request(self.root, method, params)
        except daemon_client.DaemonError as error:  # a refusal is an answer too; counted, not fatal
            self.failures[method] = self.failures.get(method, 0) + 1
            return {"error": str(error)}

    def names(self, path: str) -> list[str]:
        if path not in self.functions:
            symbols = self.call("gateway/symbols", {"path": path}).get("symbols", [])
            self.functions[path] = [s["name_path"] for s in symbols if s["kind"] in ("function", "method")] or [""]
        return self.functions[path]

    def body_line(self, path: str, name: str) -> tuple[str, str] | None:
        """A line inside `name`'s body that occurs once in the file, and the file's text."""
        found = self.call("gateway/findSymbol", {"name_path": name, "path": path, "body": True})
        matches = found.get("matches") or []
        text = (self.root / path).read_text()
        if not matches or not matches[0].get("body"):
            return None
        for line in matches[0]["body"].splitlines(keepends=True)[1:]:
            if line.strip() and not line.lstrip().startswith(STARTS) and text.count(line) == 1:
                return line, text
        return None

    def header(self, path: str, name: str) -> str | None:
        """`name`'s `def` line, if it occurs once in the file."""
        text = (self.root / path).read_text()
        word = name.rpartition("/")[2]
        lines = [line for line in text.splitlines(keepends=True) if line.lstrip().startswith((f"def {word}(", f"async def {word}("))]
        return lines[0] if len(lines) == 1 and text.count(lines[0]) == 1 else None

    def operation(self, k: int) -> None:
        path = self.files[k % len(self.files)]
        names = self.names(path)
        name = names[k % len(names)]
        kind = k % 6
        if kind == 0:
            self.call("gateway/symbols", {"path": path})
        elif kind == 1:
            self.call("gateway/findSymbol", {"name_path": name.rpartition("/")[2] or "setup", "path": None if k % 48 == 1 else path})
        elif kind == 2:
            header = self.header(path, name) or "\n"
            self.call("gateway/classify", {"path": path, "old_string": header, "new_string": header.replace("(", "(_bench, ", 1)})
        elif name and (found := self.body_line(path, name)):
            line, text = found
            indent = line[: len(line) - len(line.lstrip())]
            new = f"{indent}# bench {k}\n{line}"
            if kind == 3:
                self._hook(path, line, new, text)
            elif kind == 4:
                self.call("gateway/edit", {"path": path, "old_string": line, "new_string": new})
            else:
                body = self.call("gateway/findSymbol", {"name_path": name, "path": path, "body": True})["matches"][0]["body"]
                self.call("gateway/replaceSymbol", {"name_path": name, "path": path, "body": body.replace(line, new, 1)})

    def _hook(self, path: str, old: str, new: str, text: str) -> None:
        payload = {"tool_name": "Edit", "cwd": str(self.root), "hook_event_name": "PreToolUse", "session_id": "bench",
                   "tool_input": {"file_path": path, "old_string": old, "new_string": new}}
        params = {"host": "claude-code", "event": None, "input": json.dumps(payload), "context": {"cwd": str(self.root), "project_dir": None}}
        answer = self.call("gateway/hook", params)
        if answer.get("exit_code") == 0 and "deny" not in str(answer.get("stdout")):
            (self.root / path).write_text(text.replace(old, new, 1))  # what the host does with an allowed edit


def _started(checkout: Path, growth_mib: float | None) -> Run:
    """A copy of `checkout` with its daemon started; `growth_mib` sets `[daemon] server_growth_mib`."""
    root = _copy(checkout)
    if growth_mib is not None:
        (root / ".gateway").mkdir(exist_ok=True)
        (root / ".gateway" / "config.toml").write_text(f"[daemon]\nserver_growth_mib = {growth_mib}\n")
    started = subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(root), "--json"], capture_output=True, text=True, check=True)
    run = Run(root, _python_files(root))
    run.pid = json.loads(started.stdout)["pid"]
    run.samples.append(("started", memory(run.pid), 0.0))
    return run


def _step(run: Run, k: int, operations: int) -> None:
    clock = time.perf_counter()
    run.operation(k)
    run.seconds += time.perf_counter() - clock
    sample = memory(run.pid)
    if sample["rss"] > run.peak.get("rss", 0):
        run.peak = {**sample, "after": k + 1}
    if (k + 1) % 50 == 0 or k + 1 == operations:
        run.samples.append((f"after {k + 1} operations ({run.count} requests)", sample, run.seconds))


def measure(checkout: Path, operations: int, growths: list[float | None]) -> list[Run]:
    """The operations through one fresh daemon per `growths` entry (each on its own copy of
    `checkout`), interleaved operation by operation so that their times compare; memory read
    after each operation, and again at rest."""
    runtime = tempfile.mkdtemp(prefix="gw-mem-", dir="/tmp")
    os.environ.pop("GATEWAY_NO_DAEMON", None)
    os.environ["XDG_RUNTIME_DIR"] = runtime
    os.environ.setdefault("XDG_STATE_HOME", tempfile.mkdtemp(prefix="gw-mem-state-"))
    runs: list[Run] = []
    try:
        runs.extend(_started(checkout, growth) for growth in growths)
        for k in range(operations):
            for run in runs:
                _step(run, k, operations)
        time.sleep(REST_SECONDS)
        for run in runs:
            run.samples.append((f"{REST_SECONDS:g} s later, at rest", memory(run.pid), run.seconds))
            status = daemon_client.request(run.root, "gateway/status", {})
            run.restarted, run.growth = status.get("servers_restarted", 0), status.get("server_growth_mib")
    except daemon_client.DaemonUnavailable:
        for log in Path(runtime).glob("gateway/*.log"):
            print(log.read_text()[-4000:], file=sys.stderr)
        raise
    finally:
        for run in runs:
            subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(run.root)], capture_output=True)
            shutil.rmtree(run.root.parent, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)
    return runs


def report(checkout: Path, run: Run, unbounded: Run) -> str:
    files = sum(len(names) for directory, _, names in os.walk(checkout) if ".git" not in Path(directory).relative_to(checkout).parts)
    lines = [
        f"Machine: {machine()}. Repository: {checkout.name} ({files:,} files), {len(run.files)} of its Python files operated on; "
        f"MiB summed over the daemon's process tree. Requests refused (counted, not fatal): {run.failures or 'none'}.",
        "", "| when | daemon RSS | daemon + servers RSS | daemon + servers PSS | seconds of operations |", "|---|---:|---:|---:|---:|",
    ]
    for when, sample, seconds in run.samples:
        lines.append(f"| {when} | {sample['daemon_rss']:.0f} | {sample['rss']:.0f} | {sample['pss']:.0f} | {seconds:.0f} |")
    busy, last = run.samples[-2][1], run.samples[-1][1]
    lines += ["", "At rest, per process (MiB):", "", "| pid | process | RSS | PSS |", "|---|---|---:|---:|"]
    lines += [f"| {pid} | {name} | {rss:.0f} | {pss:.0f} |" for pid, name, rss, pss in last["processes"]]
    lines += [
        "", "The same operations on a second copy whose daemon never restarts its servers (`server_growth_mib` unbounded), run beside it, "
        "operation by operation (seconds: the operations' own time):", "",
        "| `[daemon] server_growth_mib` | servers restarted | highest RSS (after operation) | RSS after the last | seconds for the operations |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, one in ((f"{run.growth:g} (the default)", run), ("unbounded", unbounded)):
        lines.append(f"| {label} | {one.restarted} | {one.peak['rss']:.0f} ({one.peak['after']}) | {one.samples[-2][1]['rss']:.0f} | {one.seconds:.0f} |")
    lines += ["", f"Time with restarts: {run.seconds / unbounded.seconds:.2f}× the time without.", ""]
    for when, sample in (("at its highest, after any operation", run.peak), ("right after the last operation", busy), ("at rest", last)):
        met = sample["rss"] <= TARGET_MIB
        lines.append(f"- {'met' if met else '**not met**'}: daemon + servers ≤ {TARGET_MIB:.0f} MiB RSS {when}: {sample['rss']:.0f} MiB")
    return "\n".join(lines)


def default_checkout() -> Path:
    """Sphinx 8.1.3's source distribution from PyPI (1,867 files, 696 of them Python), unpacked
    once under results/corpus/ (not tracked)."""
    from benchmarks.replay_corpus import CORPUS, Source, _unpack, fetch

    target = CORPUS / f"daemon-memory-{DEFAULT[0]}-{DEFAULT[1]}"
    if not (target / "pyproject.toml").is_file():
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        _unpack(fetch(Source("pypi", DEFAULT[0], (DEFAULT[1],), ("python",)), DEFAULT[1]), target)
    return target


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--record"]
    if "--ops" in args:
        index = args.index("--ops")
        operations = int(args[index + 1])
        del args[index : index + 2]
    else:
        operations = 200
    if len(args) > 1 or (args and not Path(args[0]).is_dir()):
        sys.exit("usage: python benchmarks/daemon_memory.py [CHECKOUT] [--ops N] [--record]")
    checkout = Path(args[0]).resolve() if args else default_checkout()
    run, unbounded = measure(checkout, operations, [None, float(1 << 20)])
    text = report(checkout, run, unbounded)
    print(text)
    record(text, "daemon_memory", "Daemon memory on a real repository")


if __name__ == "__main__":
    main()
