"""A routed header edit on argparse.py through Claude Code's hook, verified by the language
server, on a warm daemon, as a multiple of `python -c pass` (issue 35: "stays ≤ 3×").

The workspace, the hook commands and the payloads are host_latency.py's (`gateway hook install
claude-code` into a temporary git workspace holding this Python's argparse.py). Per run: a timed
`python -c pass`, then the PreToolUse hook (which routes the header change and gives back the
edit), the edit applied as Claude Code would, then the PostToolUse hook (which says the
language server's delta); the pair is timed. The header goes back and forth between runs.
`python benchmarks/verify_hook_latency.py [--record] [--runs N]`.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.host_latency import (  # noqa: E402
    HEADER_NEW,
    HEADER_OLD,
    PASS,
    Host,
    _edit_payload,
    _finish,
    _gateway,
    _host,
    _ours,
    _shell,
    _timed,
)
from benchmarks.report import machine, percentile, record  # noqa: E402

RUNS = 15


def _post_command(host: Host) -> list[str]:
    hooks = json.loads((host.workspace / ".claude" / "settings.json").read_text())["hooks"]
    return _shell(_ours(hooks["PostToolUse"], "command", "claude-code"))


def _one(host: Host, post: list[str], old: str, new: str) -> tuple[float, float, float, str]:
    """(pass ms, pre ms, post ms, what PostToolUse said): the routed edit applied in between."""
    passed = _timed(PASS, host, "")[0]
    payload = _edit_payload("claude-code", host.workspace, old, new)
    pre_ms, pre = _timed(host.pre, host, json.dumps(payload))
    updated = json.loads(pre.stdout)["hookSpecificOutput"]["updatedInput"] if pre.stdout.strip() else None
    if pre.returncode != 0 or updated is None:
        raise RuntimeError(f"the header edit was not routed: exit {pre.returncode}, {pre.stdout[:300]!r} {pre.stderr[:300]!r}")
    target = host.workspace / "argparse.py"
    text = target.read_text()
    target.write_text(text.replace(updated["old_string"], updated["new_string"], 1))
    post_payload = {**payload, "hook_event_name": "PostToolUse", "tool_input": updated,
                    "tool_response": {"filePath": str(target), "oldString": updated["old_string"], "newString": updated["new_string"]}}
    post_ms, done = _timed(post, host, json.dumps(post_payload))
    if done.returncode != 0:
        raise RuntimeError(f"PostToolUse: exit {done.returncode}, {done.stderr[:300]!r}")
    said = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""
    return passed, pre_ms, post_ms, said


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    base = Path(tempfile.mkdtemp(prefix="gw-verify-hook-", dir="/tmp"))
    host = _host("claude-code", base)
    try:
        post = _post_command(host)
        if _gateway(host, "daemon", "start").returncode != 0:
            raise RuntimeError("the daemon did not start")
        pairs = [(HEADER_OLD, HEADER_NEW), (HEADER_NEW, HEADER_OLD)]
        for old, new in pairs * 2:  # warm: the daemon has judged the file and the server has analysed it
            said = _one(host, post, old, new)[3]
        passes, pres, posts = [], [], []
        for run in range(runs):
            passed, pre_ms, post_ms, said = _one(host, post, *pairs[run % 2])
            passes.append(passed)
            pres.append(pre_ms)
            posts.append(post_ms)
    finally:
        _finish([host])
    edits = [a + b for a, b in zip(pres, posts, strict=True)]
    base_ms, edit_ms = statistics.median(passes), statistics.median(edits)
    pre_ms, post_ms = statistics.median(pres), statistics.median(posts)
    report = "\n".join([
        f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f}. {runs} runs, side by side: `python -c pass`, then Claude Code's PreToolUse hook on a header "
        "change of `ArgumentParser._get_formatter` in this Python's argparse.py (routed: the edit given back), the edit "
        "applied, then its PostToolUse hook (the delta, by the workspace's Python server); warm daemon. The target is ≤ 3×.",
        "",
        "| routed header edit, PreToolUse + PostToolUse, verified | PreToolUse | PostToolUse | `python -c pass` | ratio |",
        "|---:|---:|---:|---:|---:|",
        f"| {edit_ms:.0f} / p90 {percentile(edits, 0.9):.0f} ms | {pre_ms:.0f} ms ({pre_ms / base_ms:.1f}×) "
        f"| {post_ms:.0f} ms ({post_ms / base_ms:.1f}×) | {base_ms:.0f} / p90 {percentile(passes, 0.9):.0f} ms | {edit_ms / base_ms:.1f}× |",
        "",
        f"What PostToolUse said (last run): {said!r}",
    ])
    print(report)
    record(report, "verify-hook-latency", "A verified routed header edit through the hook (issue 35)")


if __name__ == "__main__":
    main()
