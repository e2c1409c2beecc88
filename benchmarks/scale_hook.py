"""A routed header edit through Claude Code's hook on long files, idle and busy, and the
daemon's memory after it (issue 36: "≤ 2× `python -c pass` at 1k and 10k lines, ≤ 3× at 50k,
whether or not the daemon is serving other requests at the same time. No edit is refused for
time on a file of 50k lines"; "Daemon and servers ≤ 300 MiB after editing a 50k-line file").

Per size, a temporary git workspace (host_latency.py's: `gateway hook install claude-code`, its
hook commands run as written) holding `big.py`, made by `scale_corpus.long_python` from this
Python's standard library, and a warm daemon. Per run, side by side: `python -c pass`, then the
PreToolUse hook on a parameter added to `TextWrapper._split_chunks` (a new name each run: no text
is seen twice), which must be routed; the edit applied as the host would; then PostToolUse,
which must say zuban's delta. "Busy": the same while another client keeps the daemon serving
`gateway symbols big.py` and `gateway find-symbol` in a loop. Memory: VmRSS summed over the
daemon's process tree (daemon, servers, their children) after the last edit, and 3 s later.

`python benchmarks/scale_hook.py [--lines 1000,10000,50000] [--runs N] [--record]`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.daemon_memory import TARGET_MIB, memory  # noqa: E402
from benchmarks.host_latency import PASS, Host, _daemons, _finish, _gateway, _host, _timed  # noqa: E402
from benchmarks.report import machine, percentile, record  # noqa: E402
from benchmarks.scale_corpus import HEADER_NEW, HEADER_OLD, long_python  # noqa: E402
from benchmarks.verify_hook_latency import _post_command  # noqa: E402

RUNS = 10
SIZES = (1000, 10000, 50000)


def _payload(root: Path, old: str, new: str) -> dict[str, object]:
    return {"session_id": "bench", "transcript_path": str(root / "t.jsonl"), "cwd": str(root), "permission_mode": "default",
            "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
            "tool_input": {"file_path": str(root / "big.py"), "old_string": old, "new_string": new, "replace_all": False}}


def _edit(host: Host, post: list[str], old: str, new: str) -> tuple[float, float, float, float]:
    """(pass ms, pre ms, post ms, 1 if zuban's delta came within the budget else 0) of one routed
    edit, checked: routed, then zuban's delta said, or why it is not known."""
    passed = _timed(PASS, host, "")[0]
    payload = _payload(host.workspace, old, new)
    pre_ms, pre = _timed(host.pre, host, json.dumps(payload))
    answer = json.loads(pre.stdout)["hookSpecificOutput"] if pre.returncode == 0 and pre.stdout.strip() else {}
    updated = answer.get("updatedInput")
    if not isinstance(updated, dict):
        raise RuntimeError(f"the header edit was not routed: exit {pre.returncode}, {pre.stdout[:400]!r} {pre.stderr[:300]!r}")
    target = host.workspace / "big.py"
    target.write_text(target.read_text().replace(updated["old_string"], updated["new_string"], 1))
    post_payload = {**payload, "hook_event_name": "PostToolUse", "tool_input": updated, "tool_response": {"filePath": str(target)}}
    post_ms, done = _timed(post, host, json.dumps(post_payload))
    said = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.returncode == 0 and done.stdout.strip() else ""
    if "replace_symbol `TextWrapper/_split_chunks`" not in said or not ("The language server (zuban)" in said or "Not verified: zuban" in said):
        raise RuntimeError(f"PostToolUse did not say the routed edit and zuban's delta: {said[:400]!r} {done.stderr[:300]!r}")
    return passed, pre_ms, post_ms, float("The language server (zuban)" in said)


def _busy(host: Host, stop: threading.Event) -> None:
    """Another client of the same daemon: symbol listings and workspace searches, back to back."""
    asks = [["symbols", "big.py"], ["find-symbol", "TextWrapper/wrap"], ["find-symbol", "fill", "--path", "big.py"]]
    n = 0
    while not stop.is_set():
        _gateway(host, *asks[n % len(asks)])
        n += 1


def _tree_rss_mib(root: Path) -> dict[str, float]:
    """VmRSS in MiB by process name over the daemon's process tree ("daemon" for itself)."""
    found: dict[str, float] = {}
    for daemon in _daemons(root):
        for pid, name, rss, _ in memory(daemon.pid)["processes"]:
            key = "daemon" if pid == daemon.pid else name
            found[key] = found.get(key, 0.0) + rss
    return found


def _size(base: Path, lines: int, runs: int) -> dict[str, object]:
    (base / str(lines)).mkdir()
    host = _host("claude-code", base / str(lines))
    text = long_python(lines)
    (host.workspace / "big.py").write_text(text)
    subprocess.run(["git", "-C", str(host.workspace), "add", "big.py"], check=True)
    headers = [HEADER_OLD, *(HEADER_NEW.replace("keep", f"keep{n}") for n in range(1, 2 * runs + 6))]
    try:
        post = _post_command(host)
        if _gateway(host, "daemon", "start").returncode != 0:
            raise RuntimeError("the daemon did not start")
        for n in range(3):  # warm: judged, the server has analysed the file
            _edit(host, post, headers[n], headers[n + 1])
        idle = [_edit(host, post, headers[n], headers[n + 1]) for n in range(3, 3 + runs)]
        stop = threading.Event()
        other = threading.Thread(target=_busy, args=(host, stop), daemon=True)
        other.start()
        try:
            busy = [_edit(host, post, headers[n], headers[n + 1]) for n in range(3 + runs, 3 + 2 * runs)]
        finally:
            stop.set()
            other.join()
        memory = _tree_rss_mib(host.workspace)
        time.sleep(3)  # at rest: the daemon tidies (trims its heap) between requests
        rest = _tree_rss_mib(host.workspace)
    finally:
        _finish([host])
    return {"lines": text.count("\n"), "idle": idle, "busy": busy, "rss_mib": memory, "rest_mib": rest}


def _cells(samples: list[tuple[float, float, float, float]]) -> str:
    passes, pres, posts, verified = (list(c) for c in zip(*samples, strict=True))
    base = statistics.median(passes)
    pre, post = statistics.median(pres), statistics.median(posts)
    return (f"{pre:.0f} / p90 {percentile(pres, 0.9):.0f} ms ({pre / base:.1f}×) | {post:.0f} ms ({post / base:.1f}×) "
            f"| {sum(verified):.0f} of {len(verified)} | {base:.0f} ms")


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    sizes = [int(s) for s in sys.argv[sys.argv.index("--lines") + 1].split(",")] if "--lines" in sys.argv else list(SIZES)
    base = Path(tempfile.mkdtemp(prefix="gw-scale-hook-", dir="/tmp"))
    measured = [_size(base, lines, runs) for lines in sizes]
    rows = []
    for m in measured:
        for state in ("idle", "busy"):
            rows.append(f"| {m['lines']:,} | {state} | {_cells(m[state])} |")  # type: ignore[arg-type]
    report = "\n".join([
        f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f}. {runs} runs per size and state, side by side: `python -c pass`, "
        "then Claude Code's PreToolUse hook on a parameter added to `TextWrapper._split_chunks` in a file of standard-library "
        "Python (routed: the edit given back), the edit applied, then PostToolUse (zuban's delta said); warm daemon. Busy: another "
        "client keeps the daemon serving `symbols` and `find-symbol` meanwhile. Targets: PreToolUse ≤ 2× at 1k and 10k lines, "
        "≤ 3× at 50k; no edit refused.",
        "",
        "| lines | daemon | PreToolUse (routes) | PostToolUse (says the delta) | delta within `[verify] budget_ms` | `python -c pass` |",
        "|---:|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"| lines | daemon and servers after the edits (VmRSS) | 3 s later | ≤ {TARGET_MIB:.0f} MiB after the edits | of which, after the edits |",
        "|---:|---:|---:|---|---|",
        *(f"| {m['lines']:,} | {sum(m['rss_mib'].values()):.0f} MiB | {sum(m['rest_mib'].values()):.0f} MiB | "  # type: ignore[union-attr]
          + ("met" if sum(m["rss_mib"].values()) <= TARGET_MIB else "**not met**") + " | "  # type: ignore[union-attr]
          + ", ".join(f"{name} {mib:.0f} MiB" for name, mib in sorted(m["rss_mib"].items(), key=lambda kv: -kv[1])) + " |"  # type: ignore[union-attr]
          for m in measured),
    ])
    print(report)
    record(report, "scale-hook", "Routed header edits on long files, idle and busy")


if __name__ == "__main__":
    main()
