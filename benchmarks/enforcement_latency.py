"""What enforcement adds per Bash call (PreToolUse + PostToolUse of `ls`, the hook run as the
host runs it, no daemon), as a ratio to `python -c pass`, all measured side by side in one run.

Run: `python benchmarks/enforcement_latency.py [FILES]` (default 300 files in a git workspace).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNS = 15


def _workspace(base: Path, files: int, enforce: bool) -> Path:
    root = base / ("enforced" if enforce else "plain")
    for number in range(files):
        path = root / f"pkg{number % 10}" / f"m{number}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"def f{number}(x):\n    return x + {number}\n" * 20)
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text(f"[typed_edits]\nenforce = {'true' if enforce else 'false'}\n")
    git = ["git", "-c", "user.email=b@b", "-c", "user.name=b"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "base"]):
        subprocess.run([*git, *args], cwd=root, check=True)
    return root


def _hook(root: Path, event: str, number: int) -> None:
    payload = {"hook_event_name": event, "tool_name": "Bash", "tool_use_id": f"t{number}", "session_id": "s",
               "cwd": str(root), "tool_input": {"command": "ls"}}
    env = {**os.environ, "GATEWAY_NO_DAEMON": "1", "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], input=json.dumps(payload).encode(), env=env,
                   cwd=root, check=True, capture_output=True)


def main() -> None:
    files = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    with tempfile.TemporaryDirectory() as base:
        plain, enforced = _workspace(Path(base), files, False), _workspace(Path(base), files, True)
        samples: dict[str, list[float]] = {"python -c pass": [], "hook, not enforced": [], "hook, enforced": []}
        for number in range(RUNS):  # interleaved, so that the machine's state is the same for all three
            for name in samples:
                started = time.perf_counter()
                if name == "python -c pass":
                    subprocess.run([sys.executable, "-c", "pass"], check=True)
                else:
                    root = enforced if name.endswith(", enforced") else plain
                    _hook(root, "PreToolUse", number)
                    subprocess.run(["ls"], cwd=root, check=True, capture_output=True)
                    _hook(root, "PostToolUse", number)
                samples[name].append((time.perf_counter() - started) * 1000)
        medians = {name: statistics.median(values) for name, values in samples.items()}
        floor = medians["python -c pass"]
        for name, value in medians.items():
            print(f"{name:<22} {value:7.1f} ms  {value / floor:5.2f}x python -c pass")
        added = medians["hook, enforced"] - medians["hook, not enforced"]
        print(f"enforcement adds {added:.1f} ms per Bash call = {added / floor:.2f}x python -c pass ({files} files, {RUNS} runs, median)")


if __name__ == "__main__":
    main()
