"""A routed header edit on argparse.py through Claude Code's hook, verified by the language
server, on a warm daemon, as a multiple of `python -c pass` (issue 35: "stays ≤ 3×").

The workspace, the hook commands and the payloads are host_latency.py's (`gateway hook install
claude-code` into a temporary git workspace holding this Python's argparse.py). Per run: a timed
`python -c pass`, then the PreToolUse hook (which routes the header change and gives back the
edit), the edit applied as Claude Code would, then the PostToolUse hook (which says the
language server's delta); both are timed. Each run adds a parameter of a new name, so that no
run's text was seen before (the daemon asks the server about a text once: a header going back
and forth would be answered from what it kept).
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


def _one(host: Host, post: list[str], old: str, new: str) -> tuple[float, float, float, float, str]:
    """(pass ms, pre ms, post ms, idle post ms, what PostToolUse said): the routed edit applied
    after PreToolUse; the idle PostToolUse is the same payload again, with nothing left to say."""
    passed = _timed(PASS, host, "")[0]
    payload = _edit_payload("claude-code", host.workspace, old, new)
    pre_ms, pre = _timed(host.pre, host, json.dumps(payload))
    updated = json.loads(pre.stdout)["hookSpecificOutput"]["updatedInput"] if pre.stdout.strip() else None
    if pre.returncode != 0 or updated is None:
        raise RuntimeError(f"the header edit was not routed: exit {pre.returncode}, {pre.stdout[:300]!r} {pre.stderr[:300]!r}")
    target = host.workspace / "argparse.py"
    text = target.read_text()
    target.write_text(text.replace(updated["old_string"], updated["new_string"], 1))
    post_payload = json.dumps({**payload, "hook_event_name": "PostToolUse", "tool_input": updated,
                               "tool_response": {"filePath": str(target), "oldString": updated["old_string"], "newString": updated["new_string"]}})
    post_ms, done = _timed(post, host, post_payload)
    if done.returncode != 0:
        raise RuntimeError(f"PostToolUse: exit {done.returncode}, {done.stderr[:300]!r}")
    said = json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout.strip() else ""
    if "The language server (zuban)" not in said:
        raise RuntimeError(f"PostToolUse did not say zuban's delta: {said!r}")
    idle_ms, again = _timed(post, host, post_payload)
    if again.returncode != 0 or again.stdout.strip():
        raise RuntimeError(f"the second PostToolUse said something: exit {again.returncode}, {again.stdout[:300]!r}")
    return passed, pre_ms, post_ms, idle_ms, said


def _policy_runs(base: Path, policy: str, runs: int) -> tuple[list[tuple[float, float, float, float]], str]:
    """The timed runs on a workspace whose `[verify] on_new_errors` is `policy`, and the last note."""
    (base / policy).mkdir()
    host = _host("claude-code", base / policy)
    try:
        (host.workspace / ".gateway").mkdir()
        (host.workspace / ".gateway" / "config.toml").write_text(f'[verify]\non_new_errors = "{policy}"\n')
        post = _post_command(host)
        if _gateway(host, "daemon", "start").returncode != 0:
            raise RuntimeError("the daemon did not start")
        headers = [HEADER_OLD, *(HEADER_NEW.replace("width", f"width{n}") for n in range(1, runs + 5))]
        for n in range(4):  # warm: the daemon has judged the file and the server has analysed it
            said = _one(host, post, headers[n], headers[n + 1])[4]
        samples = []
        for run in range(4, runs + 4):
            *timed, said = _one(host, post, headers[run], headers[run + 1])
            samples.append((timed[0], timed[1], timed[2], timed[3]))
    finally:
        _finish([host])
    return samples, said


def _row(policy: str, samples: list[tuple[float, float, float, float]]) -> str:
    passes, pres, posts, idles = (list(column) for column in zip(*samples, strict=True))
    pairs = [a + b for a, b in zip(pres, posts, strict=True)]
    base = statistics.median(passes)

    def cell(values: list[float]) -> str:
        return f"{statistics.median(values):.0f} ms ({statistics.median(values) / base:.1f}×)"

    return (f"| {policy} | {cell(pres)} | {cell(posts)} | {cell(idles)} | {statistics.median(pairs):.0f} / p90 {percentile(pairs, 0.9):.0f} ms "
            f"({statistics.median(pairs) / base:.1f}×) | {base:.0f} / p90 {percentile(passes, 0.9):.0f} ms |")


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    base = Path(tempfile.mkdtemp(prefix="gw-verify-hook-", dir="/tmp"))
    measured = {policy: _policy_runs(base, policy, runs) for policy in ("report", "refuse")}
    report = "\n".join([
        f"Machine: {machine()}, load average {os.getloadavg()[0]:.1f}. {runs} runs per policy, side by side: `python -c pass`, then Claude "
        "Code's PreToolUse hook on a header change of `ArgumentParser._get_formatter` in this Python's argparse.py (routed: the edit "
        "given back), the edit applied, its PostToolUse hook (which tells the agent zuban's delta), and the same PostToolUse again, "
        "with nothing left to say (the floor of any PostToolUse); warm daemon. Under `report` (the default) the delta is computed "
        "after PreToolUse has answered, while the host writes, and PostToolUse waits for what is left of it; under `refuse` it is "
        "computed in PreToolUse, which must refuse a write that adds errors. Ratios are to the median `python -c pass`; the target "
        "is ≤ 3× for the routed edit's hook.",
        "",
        "| `[verify] on_new_errors` | PreToolUse (routes) | PostToolUse (says the delta) | PostToolUse, nothing to say | both hooks of the edit | `python -c pass` |",
        "|---|---:|---:|---:|---:|---:|",
        *(_row(policy, samples) for policy, (samples, _) in measured.items()),
        "",
        f"What PostToolUse said (last run, report): {measured['report'][1]!r}",
    ])
    print(report)
    record(report, "verify-hook-latency", "A verified routed header edit through the hook")


if __name__ == "__main__":
    main()
