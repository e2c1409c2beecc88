"""What verifying a shell command costs: the workspace recorded before and compared after.

Run: `python benchmarks/shell_snapshot.py`. The workspace is 2,000 files of this Python's
own standard library in a fresh git repository, with 20 files modified and 10 untracked
(uncommitted work the snapshot must keep aside). Beside it, a full `git status`, the
floor any such check pays. Prints a table and records it in RESULTS.md.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, process_median_ms, record  # noqa: E402
from gateway.snapshot import compare, take  # noqa: E402

FILES = 2000
RUNS = 30
TARGET_MS = 50


def build(root: Path) -> int:
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = sorted(p for p in stdlib.rglob("*.py") if "site-packages" not in p.parts)[:FILES]
    size = 0
    for source in sources:
        target = root / source.relative_to(stdlib)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        size += target.stat().st_size
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text("[typed_edits]\nenforce = true\n")
    git = ["git", "-c", "user.email=b@b", "-c", "user.name=b"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "stdlib"], cwd=root, check=True)
    for source in sources[:20]:
        with open(root / source.relative_to(stdlib), "a") as handle:
            handle.write("# uncommitted\n")
    for number in range(10):
        (root / f"scratch_{number}.txt").write_text("untracked\n" * 50)
    return size


def timed(action: object) -> list[float]:
    samples = []
    for _ in range(RUNS):
        started = time.perf_counter()
        action()  # type: ignore[operator]
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "ws"
        root.mkdir()
        size = build(root)
        status = timed(lambda: subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True))
        objects = Path(temp) / "objects"  # the kept bytes, outside the workspace as the user state is
        snapshots = timed(lambda: take(root, objects))
        before = take(root, objects)
        compares = timed(lambda: compare(root, before, objects))
        both = [a + b for a, b in zip(snapshots, compares, strict=True)]
        hook = [str(Path(sys.executable).parent / "gateway"), "hook", "claude-code"]
        payload = {"tool_name": "Bash", "tool_use_id": "bench", "cwd": str(root), "tool_input": {"command": "pytest -q"}}
        pre = process_median_ms(hook, root, json.dumps({**payload, "hook_event_name": "PreToolUse"}), RUNS)
        post = process_median_ms(hook, root, json.dumps({**payload, "hook_event_name": "PostToolUse"}), 1)
    met = "met" if percentile(both, 0.5) <= TARGET_MS else "not met"
    out = [
        f"Machine: {machine()}. {FILES} files of the standard library ({size / 1e6:.1f} MB) in a git repository, "
        f"20 modified and 10 untracked; {RUNS} runs each, in process.",
        "",
        "| step | p50 ms | p99 ms |",
        "|---|---:|---:|",
        f"| `git status --porcelain` alone | {percentile(status, 0.5):.1f} | {percentile(status, 0.99):.1f} |",
        f"| snapshot (before the command) | {percentile(snapshots, 0.5):.1f} | {percentile(snapshots, 0.99):.1f} |",
        f"| compare (after it, nothing changed) | {percentile(compares, 0.5):.1f} | {percentile(compares, 0.99):.1f} |",
        f"| snapshot + compare | {percentile(both, 0.5):.1f} | {percentile(both, 0.99):.1f} |",
        "",
        f"Target (issue 13): snapshot + compare ≤ {TARGET_MS} ms on a 2,000-file workspace: {met}. "
        f"Whole hook processes: PreToolUse for a Bash command {pre:.0f} ms (median of {RUNS}), PostToolUse {post:.0f} ms (one run).",
    ]
    markdown = "\n".join(out)
    print(markdown)
    record(markdown, "shell-snapshot", "Verifying shell commands")


if __name__ == "__main__":
    main()
