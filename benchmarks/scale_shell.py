"""The check after each shell command on a large git workspace (issue 36): the Claude Code hook
pair around a Bash command (PreToolUse, the command, PostToolUse), through a warm daemon, as a
ratio to the same command alone, measured side by side in one run.

Run: `python benchmarks/scale_shell.py [--files 1000,10000] [--runs N] [--record]`.
The workspace is `scale_corpus.python_workspace` (standard-library files, committed) with
`gateway hook install claude-code --enforce`; the hook commands are read back from
`.claude/settings.json` and run through `sh -c` exactly as written, with Claude Code's own
payloads on stdin; home, state and runtime directories are temporary. Three settings in turn:
`[gate] shell = "off"` (the hooks' own floor), the default report, and typed edits enforced.
Three commands an agent runs: `sed -i` changing one definition header (textwrap.py), `git
status`, and `python3 -c` that writes nothing. Every timed gated run follows a timed bare
run (`sh -c COMMAND`) in a twin of the workspace (the same files, its own repository), so
that the bare run changes nothing the checks see (it used to run in the workspace itself, and
`git checkout` put the file back: a change outside the gate that the next check paid for).
Before each run, outside the timing, git's index of the workspace it runs in is refreshed
(`git update-index --refresh`), so that no `git status` pays for the index another run left
stale. Each answer is checked: after `sed` the PostToolUse answer names
textwrap.py and no other file (off: says nothing), after the other two it says nothing; a
PreToolUse says nothing. No daemon is left running.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.host_latency import _environment, _ours  # noqa: E402
from benchmarks.report import machine, percentile, record  # noqa: E402
from benchmarks.scale_corpus import python_workspace  # noqa: E402

SIZES = (1000, 10_000)
RUNS = 10
OFF = "check off"
SETTINGS = {OFF: '[gate]\nshell = "off"\n', "report (default)": "", "enforced": "[typed_edits]\nenforce = true\n"}
OLD, NEW = "def _split_chunks(self, text):", "def _split_chunks(self, text, keep=None):"
COMMANDS = {
    "sed -i (one header)": "",  # made per run: the header as it is now, changed
    "git status": "git status --porcelain",
    "python3 -c (writes nothing)": "python3 -c 'import json, sys; json.dumps(sys.argv)'",
}
PATHS = re.compile(r"[\w./-]+\.py\b")


@dataclass
class Bench:
    root: Path
    twin: Path
    env: dict[str, str]
    pre: list[str]
    post: list[str]
    samples: dict[str, list[float]] = field(default_factory=dict)
    calls: int = 0

    def add(self, key: str, value: float) -> None:
        self.samples.setdefault(key, []).append(value)


def _sed(root: Path) -> str:
    """The header as it is now in `root`, changed (enforcement puts it back; otherwise it stays)."""
    text = (root / "textwrap.py").read_text("utf-8")
    old, new = (OLD, NEW) if OLD in text else (NEW, OLD)
    return f"sed -i 's/{old}/{new}/' textwrap.py"  # in a basic regular expression ( and ) are themselves


def _refresh(bench: Bench, root: Path) -> None:
    """git's index of `root` fresh (outside the timing: see the module)."""
    _run(bench, ["git", "update-index", "-q", "--refresh"], cwd=root)


def _bench(base: Path, files: int) -> Bench:
    env = _environment(base)
    if "PYTHONPATH" in os.environ:  # passed on: to measure another checkout (e.g. an earlier commit's) with this benchmark
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    root = python_workspace(base / "workspace", files)
    twin = python_workspace(base / "twin", files)
    subprocess.run(["gateway", "hook", "install", "claude-code", "--enforce", "--workspace", str(root)], env=env, check=True,
                   capture_output=True)
    hooks = json.loads((root / ".claude" / "settings.json").read_text())["hooks"]
    env["CLAUDE_PROJECT_DIR"] = str(root)
    pre, post = (["sh", "-c", _ours(hooks[event], "command", "claude-code")] for event in ("PreToolUse", "PostToolUse"))
    shutil.copytree(root / ".claude", twin / ".claude")  # the same untracked files for `git status` to list
    return Bench(root, twin, env, pre, post)


def _payload(bench: Bench, event: str, command: str, done: subprocess.CompletedProcess[str] | None = None) -> str:
    payload: dict[str, object] = {
        "session_id": "bench", "transcript_path": str(bench.root / "t.jsonl"), "cwd": str(bench.root), "permission_mode": "default",
        "hook_event_name": event, "tool_name": "Bash", "tool_input": {"command": command, "description": "bench"},
        "tool_use_id": f"toolu_{bench.calls}"}
    if done is not None:
        payload["tool_response"] = {"stdout": done.stdout[:2000], "stderr": done.stderr[:2000], "interrupted": False, "isImage": False}
    return json.dumps(payload)


def _run(bench: Bench, argv: list[str], stdin: str = "", cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd or bench.root, env=bench.env, input=stdin, capture_output=True, text=True, check=False)


def _checked(setting: str, name: str, command: str, pre: subprocess.CompletedProcess[str], post: subprocess.CompletedProcess[str]) -> None:
    """The answers are right: nothing before; after `sed` textwrap.py named and no other file, else nothing."""
    said = post.stdout + post.stderr
    named = {Path(p).name for p in PATHS.findall(said)}
    expected = {"textwrap.py"} if name.startswith("sed") and setting != "check off" else set()
    if pre.returncode != 0 or pre.stdout.strip() or post.returncode != 0 or named != expected or (not expected and said.strip()):
        raise RuntimeError(f"{setting}, `{command}`: PreToolUse exit {pre.returncode} {pre.stdout[:300]!r}; PostToolUse exit "
                           f"{post.returncode} {said[:600]!r} (files named: {sorted(named)}, expected {sorted(expected)})")


def _once(bench: Bench, setting: str, name: str) -> None:
    """One bare run of the command in the twin, then one gated run (hooks around it); both timed."""
    command = COMMANDS[name] or _sed(bench.twin)
    _refresh(bench, bench.twin)
    started = time.perf_counter()
    _run(bench, ["sh", "-c", command], cwd=bench.twin)
    bench.add(f"{setting}/{name}/bare", (time.perf_counter() - started) * 1000)
    command = COMMANDS[name] or _sed(bench.root)
    _refresh(bench, bench.root)
    bench.calls += 1
    started = time.perf_counter()
    pre = _run(bench, bench.pre, _payload(bench, "PreToolUse", command))
    done = _run(bench, ["sh", "-c", command])
    post = _run(bench, bench.post, _payload(bench, "PostToolUse", command, done))
    bench.add(f"{setting}/{name}/gated", (time.perf_counter() - started) * 1000)
    _checked(setting, name, command, pre, post)


def _gateway(bench: Bench, *words: str) -> subprocess.CompletedProcess[str]:
    return _run(bench, ["gateway", *words, "--workspace", str(bench.root)])


def _setting(bench: Bench, setting: str, runs: int) -> None:
    _gateway(bench, "daemon", "stop")
    config = bench.root / ".gateway" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(SETTINGS[setting])
    (bench.twin / ".gateway").mkdir(exist_ok=True)
    (bench.twin / ".gateway" / "config.toml").write_text(SETTINGS[setting])
    for root in (bench.root, bench.twin):  # as committed (a report left the sed's change)
        _run(bench, ["git", "checkout", "-q", "--", "textwrap.py"], cwd=root)
    if _gateway(bench, "daemon", "start").returncode != 0:
        raise RuntimeError("the daemon did not start")
    for name in COMMANDS:  # warm: the daemon's first record of the workspace reads every file
        bench.calls += 1
        _run(bench, bench.pre, _payload(bench, "PreToolUse", "true"))
        _run(bench, bench.post, _payload(bench, "PostToolUse", "true", _run(bench, ["true"])))
    for _ in range(runs):
        for name in COMMANDS:
            _once(bench, setting, name)


def _table(bench: Bench, files: int, runs: int) -> list[str]:
    lines = [f"| {files:,} files: command | bare ms | " + " | ".join(f"{s}: ms, × bare{'' if s == OFF else ', × check off'}" for s in SETTINGS)
             + " |", "|---|---:|" + "---:|" * len(SETTINGS)]
    for name in COMMANDS:
        bare = statistics.median(v for s in SETTINGS for v in bench.samples[f"{s}/{name}/bare"])
        off = statistics.median(bench.samples[f"{OFF}/{name}/gated"])
        cells = []
        for setting in SETTINGS:
            gated = bench.samples[f"{setting}/{name}/gated"]
            median = statistics.median(gated)
            cells.append(f"{median:.0f} (p90 {percentile(gated, 0.9):.0f}), {median / bare:.1f}×" + ("" if setting == OFF else f", {median / off:.1f}×"))
        lines.append(f"| `{name}` | {bare:.1f} | " + " | ".join(cells) + " |")
    return lines


def main() -> None:
    sizes = [int(n) for n in sys.argv[sys.argv.index("--files") + 1].split(",")] if "--files" in sys.argv else list(SIZES)
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    tables: list[str] = []
    for files in sizes:
        base = Path(tempfile.mkdtemp(prefix="gw-scale-shell-", dir="/tmp"))
        bench = None
        try:
            bench = _bench(base, files)
            for setting in SETTINGS:
                _setting(bench, setting, runs)
                print(f"{files} files: {setting} done", file=sys.stderr)
            tables += ["", *_table(bench, files, runs)]
        finally:
            if bench is not None:
                _gateway(bench, "daemon", "stop")
            shutil.rmtree(base, ignore_errors=True)
    note = (f"Machine: {machine()}. The Claude Code hook pair (PreToolUse, the command, PostToolUse; the commands "
            "`gateway hook install claude-code --enforce` wrote, through `sh -c`, the daemon warm) around a Bash command, "
            "as a multiple of the same command alone (`sh -c COMMAND` in a twin workspace, median of all its runs), on "
            "`scale_corpus.python_workspace` (standard-library files in a git repository). Settings: `[gate] shell = "
            "\"off\"` (the hooks' own cost), the default report, typed edits enforced (the sed's change put back each run); "
            "git's index refreshed before each run, outside the timing. "
            "× check off: the same hooks with `[gate] shell = \"off\"`, i.e. what the check itself adds to the hooks. "
            f"Median (p90) of {runs} runs each, every gated run right after a bare one. Each answer checked: after `sed` "
            "the report and enforcement name textwrap.py and no other file; after the others nothing is said.")
    markdown = "\n".join([note, *tables])
    print(markdown)
    record(markdown, "scale-shell", "The check after each shell command on a large workspace")


if __name__ == "__main__":
    main()
