"""Issue 36's warm CLI symbol commands, measured side by side in one run: `gateway symbols`,
`gateway find-symbol` and `gateway replace-symbol` on this Python's argparse.py (2,630 lines),
with the workspace's daemon running and its language server warm, each against the
`python -c pass` run just before it (target: ≤ 3×). Every replace-symbol writes a different body.
Each row also gives the process's own CPU time (user + system), steadier than wall time on a
loaded machine; what the daemon spends is in the wall time only. Two more rows say what
`gateway mcp` pays before it can answer: the MCP SDK's import, and its own module's.

Run: `python benchmarks/scale_cli.py [--runs N] [--record]`. Home, state and runtime directories
are temporary; the processes run this checkout (PYTHONPATH), with Python's bytecode cache on.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, record  # noqa: E402

SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
GATEWAY = [sys.executable, str(ROOT / "scripts" / "gateway")]
PASS = [sys.executable, "-c", "pass"]
NAME_PATH = "ArgumentParser/_get_formatter"
TARGET = 3.0
# What `gateway mcp` pays before it can answer: the MCP SDK's import (its protocol types, as
# pydantic models, for each protocol version it speaks), and the gateway's module over it.
IMPORTS = {"the MCP SDK: `import mcp.server.mcpserver`": "import mcp.server.mcpserver",
           "`gateway mcp`'s module: `import gateway.surfaces.mcp`": "import gateway.surfaces.mcp"}
COMMANDS = {
    "symbols": ["symbols", "argparse.py"],
    "find-symbol": ["find-symbol", NAME_PATH, "argparse.py"],
    "replace-symbol": ["replace-symbol", NAME_PATH, "argparse.py", "--body-file", "BODY"],
}


def _environment(base: Path) -> dict[str, str]:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin", "LANG": os.environ.get("LANG", "C.UTF-8"),
           "PYTHONPATH": str(ROOT)}
    for name in ("HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        (base / name.lower()).mkdir(mode=0o700)
        env[name] = str(base / name.lower())
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)  # the processes waited for: not a daemon a command detached
    return (usage.ru_utime + usage.ru_stime) * 1000


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall ms, the process's user + system CPU ms); a failed command stops the benchmark."""
    cpu, started = _cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{command[2:]} failed ({done.returncode}): {done.stderr[-400:]}")
    return elapsed, _cpu() - cpu


def _command(name: str, root: Path, run: int) -> list[str]:
    body = root.parent / "body.py"
    body.write_text(f"    def _get_formatter(self):\n        return self.formatter_class(prog=self.prog)  # run {run}\n")
    return [*GATEWAY, *(str(body) if word == "BODY" else word for word in COMMANDS[name])]


def _prestarted(root: Path, env: dict[str, str]) -> None:
    """Once the daemon has started its server ahead for argparse.py (as a session's start leaves it)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = subprocess.run([*GATEWAY, "daemon", "status", "--json", "--workspace", str(root)], env=env, capture_output=True, text=True)
        if done.returncode == 0 and json.loads(done.stdout)["prestart"]["done"]:
            return
        time.sleep(0.05)
    raise RuntimeError(f"{root}: the daemon did not start its server ahead within 60 s")


def measure(root: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Each command and the `python -c pass` just before it, interleaved (two warm-up rounds first)."""
    samples: dict[str, list[float]] = {}
    for run in range(-2, runs):
        for name in COMMANDS:
            base, base_cpu = _timed(PASS, env, root)
            elapsed, cpu = _timed(_command(name, root, run), env, root)
            if run >= 0:
                for key, value in ((f"pass before {name}", base), (f"pass cpu before {name}", base_cpu), (name, elapsed), (f"{name} cpu", cpu)):
                    samples.setdefault(key, []).append(value)
    for run in range(-1, max(runs // 4, 3)):
        for name, statement in IMPORTS.items():
            base, base_cpu = _timed(PASS, env, root)
            elapsed, cpu = _timed([sys.executable, "-c", statement], env, root)
            if run >= 0:
                for key, value in ((f"pass before {name}", base), (f"pass cpu before {name}", base_cpu), (name, elapsed), (f"{name} cpu", cpu)):
                    samples.setdefault(key, []).append(value)
    return samples


def _paired(samples: dict[str, list[float]], name: str, base: str) -> float:
    return statistics.median(value / before for value, before in zip(samples[name], samples[base], strict=True))


def report(samples: dict[str, list[float]]) -> str:
    passes = [v for name in COMMANDS for v in samples[f"pass before {name}"]]
    lines = [f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f} at the end. Medians (p90) in ms of interleaved runs; the "
             "ratio is the median of each run's ratio to the `python -c pass` run just before it; CPU: the command's own process.",
             "", "| warm command on argparse.py (daemon running) | ms | CPU ms | `python -c pass` | ratio | CPU ratio | target | |",
             "|---|---:|---:|---:|---:|---:|---:|---|"]
    for name, words in COMMANDS.items():
        ratio, cpu_ratio = _paired(samples, name, f"pass before {name}"), _paired(samples, f"{name} cpu", f"pass cpu before {name}")
        lines.append(f"| `gateway {' '.join(words).replace('BODY', 'F')}` | {statistics.median(samples[name]):.0f} ({percentile(samples[name], 0.9):.0f}) "
                     f"| {statistics.median(samples[f'{name} cpu']):.0f} | {statistics.median(passes):.0f} | {ratio:.2f}× | {cpu_ratio:.2f}× "
                     f"| ≤ {TARGET:g}× | {'met' if ratio <= TARGET else '**not met**'} |")
    for name in IMPORTS:
        ratio, cpu_ratio = _paired(samples, name, f"pass before {name}"), _paired(samples, f"{name} cpu", f"pass cpu before {name}")
        lines.append(f"| {name} | {statistics.median(samples[name]):.0f} ({percentile(samples[name], 0.9):.0f}) "
                     f"| {statistics.median(samples[f'{name} cpu']):.0f} | {statistics.median(passes):.0f} | {ratio:.2f}× | {cpu_ratio:.2f}× | | |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="gw-cli-", dir="/tmp"))
    env = _environment(base)
    root = base / "workspace"
    root.mkdir()
    shutil.copy(SOURCE, root / "argparse.py")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    try:
        subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(root)], cwd=root, env=env, check=True, capture_output=True)
        _prestarted(root, env)
        samples = measure(root, env, args.runs)
    finally:
        subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(root)], cwd=root, env=env, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
    table = report(samples)
    print(table)
    record(table, "scale-cli", "Warm CLI symbol commands")


if __name__ == "__main__":
    main()
