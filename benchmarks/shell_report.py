"""What `[gate] shell = "report"` costs around every shell command, on a large repository: this
Python's whole standard library (without site-packages and caches) in a fresh git repository.

Run: `python benchmarks/shell_report.py [--record]`. In one run, side by side, as ratios to
`git status --porcelain` (the floor of any check of a work tree): the enforcement snapshot
(every file read and kept), the `[gate] shell` record before a command (the first one, which
reads and keeps every source file; then the usual one, a stat per source file), the check after
a command that changed nothing, one that changed one definition header (`sed -i`, judged by the
gate), one that changed twenty, and the whole hook processes.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="gateway-bench-state-")
os.environ["GATEWAY_NO_DAEMON"] = "1"

from benchmarks.report import machine, process_median_ms, record  # noqa: E402
from gateway.gate.checker import Gate  # noqa: E402
from gateway.shell_changes import after_command, before_command  # noqa: E402
from gateway.snapshot import compare, take  # noqa: E402
from gateway.typed.state import objects_dir  # noqa: E402

RUNS = 10
GIT = ["git", "-c", "user.email=b@b", "-c", "user.name=b"]


def build(root: Path) -> tuple[int, int, int]:
    """(files, .py files, MB of .py) copied from the standard library and committed."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(stdlib, root, ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"), symlinks=True)
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-qm", "stdlib", "--no-verify"], cwd=root, check=True)
    py = [p for p in root.rglob("*.py") if p.is_file()]
    return sum(1 for p in root.rglob("*") if p.is_file() and ".git" not in p.parts), len(py), sum(p.stat().st_size for p in py) // 1_000_000


def median_ms(action: Callable[[], object], runs: int = RUNS, before: Callable[[], object] | None = None) -> float:
    samples = []
    for _ in range(runs):
        if before is not None:
            before()
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def hook_processes(hook: list[str], root: Path, payload: dict[str, object], runs: int = 5) -> tuple[float, float]:
    """Median ms of the PreToolUse and of the PostToolUse hook process, each PostToolUse after its PreToolUse."""
    pre, post = [], []
    for _ in range(runs):
        for event, samples in (("PreToolUse", pre), ("PostToolUse", post)):
            samples.append(process_median_ms(hook, root, json.dumps({**payload, "hook_event_name": event}), 1))
    return statistics.median(pre), statistics.median(post)


def header_changes(root: Path, count: int) -> list[Path]:
    """`count` files with a `def name(self` header, for a sed on it."""
    found = []
    for path in sorted(root.glob("*.py")):
        if "    def __init__(self" in path.read_text("utf-8", "replace"):
            found.append(path)
        if len(found) == count:
            break
    return found


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "lib"
        files, sources, megabytes = build(root)
        gate = Gate()
        objects = objects_dir(root)
        status = median_ms(lambda: subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True))
        aside = Path(temp) / "enforcement-objects"  # its own store: what the record keeps is measured alone
        enforcement = median_ms(lambda: compare(root, take(root, aside), aside), 3)
        started = time.perf_counter()
        before_command(gate, root, "cold")
        cold = (time.perf_counter() - started) * 1000
        after_command(gate, root, "cold", False)
        keys = iter(range(10_000))
        warm = median_ms(lambda: before_command(gate, root, f"k{next(keys)}"))
        nothing = median_ms(lambda: after_command(gate, root, "n", False), before=lambda: before_command(gate, root, "n"))
        one, twenty = header_changes(root, 1), header_changes(root, 20)

        def sed(paths: list[Path]) -> Callable[[], object]:
            def run() -> None:
                before_command(gate, root, "s")
                for path in paths:
                    path.write_text(path.read_text("utf-8").replace("    def __init__(self", "    def __init__(self, extra=None", 1), "utf-8")
            return run

        def restored(paths: list[Path]) -> Callable[[], object]:
            return lambda: subprocess.run(["git", "checkout", "-q", "--", *map(str, paths)], cwd=root, check=True)

        judged_one = median_ms(lambda: after_command(gate, root, "s", False), before=lambda: (restored(one)(), sed(one)()))
        judged_twenty = median_ms(lambda: after_command(gate, root, "s", False), 5, before=lambda: (restored(twenty)(), sed(twenty)()))
        restored(twenty)()
        hook = [str(Path(sys.executable).parent / "gateway"), "hook", "claude-code"]
        payload = {"tool_name": "Bash", "tool_use_id": "bench", "cwd": str(root), "tool_input": {"command": "true"}}
        pre, post = hook_processes(hook, root, payload)
        (root / ".gateway").mkdir()
        (root / ".gateway" / "config.toml").write_text('[gate]\nshell = "off"\n')
        pre_off, post_off = hook_processes(hook, root, payload)
        kept = sum(p.stat().st_size for p in objects.iterdir()) // 1_000_000
    rows = [
        ("`git status --porcelain` (the floor)", status),
        ("enforcement snapshot: every file read, kept and compared (`snapshot.take` + `compare`)", enforcement),
        ("`[gate] shell` record before a command, the first one (reads and keeps every source file)", cold),
        ("`[gate] shell` record before a command, usual (a stat per source file)", warm),
        ("check after a command that changed nothing", nothing),
        ("check after `sed` changed one definition header (judged)", judged_one),
        ("check after 20 files' headers changed (judged)", judged_twenty),
        ("whole PreToolUse hook process for a Bash command", pre),
        ("whole PostToolUse hook process after it (the command changed nothing)", post),
        ("whole PreToolUse hook process, `[gate] shell = \"off\"`", pre_off),
        ("whole PostToolUse hook process, `[gate] shell = \"off\"`", post_off),
    ]
    out = [
        f"Machine: {machine()}. This Python's standard library: {files} files, {sources} of them Python source "
        f"({megabytes} MB), in a git repository; median of {RUNS} runs (3 for the enforcement snapshot, 5 for 20 files and hook processes), in "
        f"process unless said; no daemon. Kept bytes of the source files in the user state: {kept} MB.",
        "",
        "| step | ms | × git status |",
        "|---|---:|---:|",
        *[f"| {name} | {ms:.0f} | {ms / status:.1f} |" for name, ms in rows],
    ]
    markdown = "\n".join(out)
    print(markdown)
    record(markdown, "shell-report", "Reporting shell commands' changes ([gate] shell)")


if __name__ == "__main__":
    main()
