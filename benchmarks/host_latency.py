"""What the first edit of a session costs in each host's hook, and what warming the daemon at
the session's start (SessionStart, or the host's equivalent) buys it (issue 21).

For claude-code, copilot, gemini, codex and opencode: `gateway hook install HOST` into a
temporary git workspace holding this Python's `argparse.py`, with HOME, CODEX_HOME, COPILOT_HOME
and the XDG directories temporary too (one set per host). The pre-edit and start commands are
read back from the files the install wrote and run exactly as written, through `sh -c`, with the
host's own payload on stdin (OpenCode's plugin spawns `gateway hook opencode` itself, with no
shell: that argv is run). Two edits per host: a body-only one, which passes, and a function
header change, which is routed (given back as the host's own edit). Four states: a cold first
edit (no daemon, no start hook: the hook answers in process and starts a daemon for next time;
`gateway daemon stop` between runs), the first edit right after the start hook, the first edit
1 s after it (a host's first model turn comes between them), and the steady state (daemon warm).
Every timed hook run follows a `python -c pass` run; ratios are to the median of those. Also
timed: the start hook itself, and from its launch to the daemon listening.

Run: `python benchmarks/host_latency.py [--record] [--runs N] [--hosts a,b]`. With --record the
tables go into RESULTS.md (else results/local/). No daemon is left running.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, record  # noqa: E402

SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
VENV_BIN = Path(sys.executable).parent
HOSTS = ("claude-code", "copilot", "gemini", "codex", "opencode")
KINDS = ("body", "structural")
AT_ONCE, LATER = "right after start", "1 s after start"
STATES = ("cold", AT_ONCE, LATER, "steady")
PAUSE = 1.0  # seconds: a host's first model turn separates its start from its first edit
PASS = [sys.executable, "-c", "pass"]
RUNS = 15
# A body-only edit (two lines of __init__, one added) and a header change (a parameter added).
BODY_OLD = "        self._prog_prefix = prog\n        self._parser_class = parser_class\n"
BODY_NEW = "        self._prog_prefix = prog\n        # the prefix of every subparser's prog\n        self._parser_class = parser_class\n"
HEADER_OLD = "    def _get_formatter(self):\n        return self.formatter_class(prog=self.prog)\n"
HEADER_NEW = "    def _get_formatter(self, width=None):\n        return self.formatter_class(prog=self.prog, width=width)\n"
# What the host finds in a routed edit's answer: its own edit, rewritten.
REWRITE = {"claude-code": '"updatedInput"', "copilot": '"modifiedArgs"', "gemini": '"tool_input"', "codex": '"updatedInput"',
           "opencode": '"action": "rewrite"'}


@dataclass
class Host:
    """One host's workspace, the commands it would run (argv), its payloads and the samples (ms)."""

    name: str
    workspace: Path
    env: dict[str, str]
    pre: list[str]
    start: list[str]
    start_payload: str
    edits: dict[str, str]
    samples: dict[str, list[float]] = field(default_factory=dict)

    def add(self, key: str, value: float) -> None:
        self.samples.setdefault(key, []).append(value)


def _environment(base: Path) -> dict[str, str]:
    """A clean environment whose home and state are all under `base`; the venv's bin on PATH."""
    env = {"PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin", "LANG": os.environ.get("LANG", "C.UTF-8")}
    for name in ("HOME", "CODEX_HOME", "COPILOT_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        path = base / name.lower()
        path.mkdir(mode=0o700)
        env[name] = str(path)
    return env


def _workspace(base: Path) -> Path:
    root = base / "workspace"
    root.mkdir()
    shutil.copy(SOURCE, root / "argparse.py")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"], check=True)
    return root.resolve()


def _ours(entries: list[dict[str, object]], key: str, host: str) -> str:
    """The gateway's command among a hook event's entries (`key` names the command's field)."""
    hooks = [hook for entry in entries for hook in entry.get("hooks", [entry])]  # type: ignore[attr-defined]
    found = [str(hook[key]) for hook in hooks if f" hook {host} " in str(hook.get(key, ""))]
    if len(found) != 1:
        raise RuntimeError(f"{host}: expected one gateway command in {entries}")
    return found[0]


def _shell(command: str) -> list[str]:
    return ["sh", "-c", command]


def _plugin_commands(root: Path) -> tuple[list[str], list[str]]:
    """OpenCode: the argv its plugin spawns for an edit (spawnSync) and at load (spawn)."""
    plugin = (root / ".opencode" / "plugins" / "gateway.js").read_text()
    found = [re.search(pattern, plugin) for pattern in
             (r"const PROGRAM = (\".*\");", r"spawnSync\(PROGRAM, (\[[^\]]*\])", r"\bspawn\(PROGRAM, (\[[^\]]*\])")]
    if not all(found):
        raise RuntimeError(f"opencode: the plugin's commands were not found in {root}/.opencode/plugins/gateway.js")
    program, pre, start = (json.loads(match.group(1)) for match in found if match)
    return [program, *pre], [program, *start]


def _commands(host: str, root: Path) -> tuple[list[str], list[str]]:
    """(pre, start) as the host runs them, read back from what `gateway hook install` wrote."""
    if host == "opencode":
        return _plugin_commands(root)
    if host == "codex":
        hooks = tomllib.loads((root / ".codex" / "config.toml").read_text())["hooks"]
        return _shell(_ours(hooks["PreToolUse"], "command", host)), _shell(_ours(hooks["SessionStart"], "command", host))
    where = {"claude-code": (".claude/settings.json", "PreToolUse", "SessionStart", "command"),
             "copilot": (".github/hooks/gateway.json", "preToolUse", "sessionStart", "bash"),
             "gemini": (".gemini/settings.json", "BeforeTool", "SessionStart", "command")}[host]
    hooks = json.loads((root / where[0]).read_text())["hooks"]
    return _shell(_ours(hooks[where[1]], where[3], host)), _shell(_ours(hooks[where[2]], where[3], host))


def _patch(old: str, new: str) -> str:
    """Codex's apply_patch for one replacement: the lines both share kept as context."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    keep = 0
    while keep < min(len(old_lines), len(new_lines)) and old_lines[keep] == new_lines[keep]:
        keep += 1
    lines = ["*** Begin Patch", "*** Update File: argparse.py", "@@", *(f" {line}" for line in old_lines[:keep]),
             *(f"-{line}" for line in old_lines[keep:]), *(f"+{line}" for line in new_lines[keep:]), "*** End Patch"]
    return "\n".join(lines) + "\n"


def _edit_payload(host: str, root: Path, old: str, new: str) -> dict[str, object]:
    """A pre-edit payload in the host's own shape (HOSTS.md: the payloads captured from each host)."""
    path, session = str(root / "argparse.py"), {"session_id": "bench", "transcript_path": str(root / "t.jsonl"), "cwd": str(root)}
    if host == "claude-code":
        return {**session, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Edit",
                "tool_input": {"file_path": path, "old_string": old, "new_string": new, "replace_all": False}, "tool_use_id": "toolu_1"}
    if host == "copilot":
        return {"timestamp": 1795481078197, "cwd": str(root), "sessionId": "bench", "toolName": "edit",
                "toolArgs": {"path": path, "old_str": old, "new_str": new}}
    if host == "gemini":
        return {**session, "hook_event_name": "BeforeTool", "timestamp": "2026-11-24T10:00:00.000Z", "tool_name": "replace",
                "tool_input": {"file_path": path, "instruction": "benchmark edit", "old_string": old, "new_string": new}}
    if host == "codex":
        return {**session, "hook_event_name": "PreToolUse", "model": "gpt-5.5", "permission_mode": "bypassPermissions",
                "tool_name": "apply_patch", "tool_input": {"command": _patch(old, new)}, "tool_use_id": "call_1", "turn_id": "1"}
    return {"hook_event_name": "tool.execute.before", "tool": "edit", "args": {"filePath": path, "oldString": old, "newString": new},
            "cwd": str(root), "session_id": "bench", "call_id": "call_1"}


def _start_payload(host: str, root: Path) -> dict[str, object]:
    """What the host sends its start hook (OpenCode's plugin writes `{tool: "start", cwd}`)."""
    if host == "opencode":
        return {"tool": "start", "cwd": str(root)}
    if host == "copilot":
        return {"timestamp": 1795481078197, "cwd": str(root), "source": "new", "initialPrompt": "edit argparse.py"}
    session = {"session_id": "bench", "transcript_path": str(root / "t.jsonl"), "cwd": str(root), "hook_event_name": "SessionStart"}
    return {**session, "source": "startup", **({"model": "gpt-5.5"} if host == "codex" else {})}


def _host(name: str, base: Path) -> Host:
    """The host's own home, state and runtime directories and workspace, with its hook installed."""
    (base / name).mkdir()
    env, root = _environment(base / name), _workspace(base / name)
    subprocess.run(["gateway", "hook", "install", name, "--workspace", str(root)], env=env, check=True, capture_output=True)
    pre, start = _commands(name, root)
    hook_env = dict(env)  # what the host adds to its hooks' environment
    if name == "claude-code":
        hook_env["CLAUDE_PROJECT_DIR"] = str(root)
    if name == "gemini":
        hook_env.update(GEMINI_PROJECT_DIR=str(root), CLAUDE_PROJECT_DIR=str(root))
    edits = {"body": json.dumps(_edit_payload(name, root, BODY_OLD, BODY_NEW)),
             "structural": json.dumps(_edit_payload(name, root, HEADER_OLD, HEADER_NEW))}
    return Host(name, root, hook_env, pre, start, json.dumps(_start_payload(name, root)), edits)


def _timed(command: list[str], host: Host, stdin: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=host.workspace, env=host.env, input=stdin, capture_output=True, text=True, check=False)
    return (time.perf_counter() - started) * 1000, done


def _checked(host: Host, kind: str, state: str, done: subprocess.CompletedProcess[str]) -> None:
    """The hook answered as it should: a body edit passes (exit 0, nothing said), a header change is routed."""
    routed = REWRITE[host.name] in done.stdout
    if done.returncode != 0 or (kind == "body" and done.stdout.strip()) or (kind == "structural" and not routed):
        raise RuntimeError(f"{host.name} {kind} edit ({state}): exit {done.returncode}, stdout {done.stdout[:300]!r}, "
                           f"stderr {done.stderr[:300]!r}")


def _edit(host: Host, kind: str, state: str) -> None:
    """One timed edit hook, right after one timed `python -c pass`."""
    host.add("python -c pass", _timed(PASS, host, "")[0])
    elapsed, done = _timed(host.pre, host, host.edits[kind])
    _checked(host, kind, state, done)
    host.add(f"{kind}/{state}", elapsed)


def _gateway(host: Host, *words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["gateway", *words, "--workspace", str(host.workspace)], env=host.env, capture_output=True, text=True, check=False)


def _daemons(root: Path) -> list[psutil.Process]:
    """The daemon processes of this workspace (started by the hooks and commands run here)."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        line = process.info["cmdline"] or []
        if process.info["status"] != psutil.STATUS_ZOMBIE and line[-4:] == ["daemon", "run", "--workspace", str(root)]:
            found.append(process)
    return found


def _stop(host: Host) -> None:
    """No daemon for the workspace, including one a hook spawned that is still starting: each is
    waited for (`daemon start` answers once it serves) and stopped, until none is left."""
    deadline = time.monotonic() + 120
    while _daemons(host.workspace) or _gateway(host, "daemon", "status").returncode == 0:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{host.name}: the daemon of {host.workspace} would not stop")
        _gateway(host, "daemon", "start")
        _gateway(host, "daemon", "stop")
        time.sleep(0.2)


def _started(host: Host) -> None:
    """The host's start hook, timed (after a `python -c pass`); it only starts the daemon."""
    host.add("python -c pass", _timed(PASS, host, "")[0])
    elapsed, done = _timed(host.start, host, host.start_payload)
    if done.returncode != 0 or done.stdout.strip():
        raise RuntimeError(f"{host.name} start hook: exit {done.returncode}, {done.stdout[:200]!r} {done.stderr[:200]!r}")
    host.add("start hook", elapsed)


def _socket(host: Host) -> bool:
    """The daemon listens (each host has its own runtime directory, so its socket is the only one)."""
    return any((Path(host.env["XDG_RUNTIME_DIR"]) / "gateway").glob("*.sock"))


def _served(host: Host) -> int:
    """How many hook calls the daemon (started by the start hook) answered, once it is up."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status = _gateway(host, "daemon", "status", "--json")
        if status.returncode == 0:
            return int(json.loads(status.stdout)["requests"]) - 1  # less this status call
        time.sleep(0.05)
    raise RuntimeError(f"{host.name}: the daemon the start hook spawned never answered")


def _ready(host: Host) -> None:
    """The time from the start hook's launch to the daemon listening."""
    _stop(host)
    started = time.perf_counter()
    hook = subprocess.Popen(host.start, cwd=host.workspace, env=host.env, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
    hook.communicate(host.start_payload)
    while not _socket(host):
        if time.perf_counter() - started > 60:
            raise RuntimeError(f"{host.name}: the daemon the start hook spawned never listened")
        time.sleep(0.002)
    host.add("daemon listening", (time.perf_counter() - started) * 1000)


def _round(host: Host) -> None:
    """One repetition of every state and kind, for one host."""
    for kind in KINDS:
        _stop(host)
        _edit(host, kind, "cold")
    for state, pause in ((AT_ONCE, 0.0), (LATER, PAUSE)):
        for kind in KINDS:
            _stop(host)
            _started(host)
            time.sleep(pause)
            _edit(host, kind, state)
            host.add(f"{state}/daemon answered", _served(host))
    _ready(host)
    _stop(host)
    if _gateway(host, "daemon", "start").returncode != 0:
        raise RuntimeError(f"{host.name}: the daemon did not start")
    for kind in KINDS:
        _timed(host.pre, host, host.edits[kind])  # the daemon has judged this file before
    for kind in KINDS:
        _edit(host, kind, "steady")


def _cell(samples: list[float], base: float) -> str:
    median = statistics.median(samples)
    return f"{median:.0f} / {percentile(samples, 0.9):.0f} ms, {median / base:.1f}×"


def _report(hosts: list[Host], runs: int) -> str:
    lines = ["| host | edit | cold first edit | first edit right after the start hook | first edit 1 s after the start hook "
             "| steady (daemon warm) |", "|---|---|---:|---:|---:|---:|"]
    for host in hosts:
        base = statistics.median(host.samples["python -c pass"])
        for kind in KINDS:
            cells = [_cell(host.samples[f"{kind}/{state}"], base) for state in STATES]
            lines.append(f"| {host.name} | {kind} | {' | '.join(cells)} |")
    lines += ["", "| host | start hook itself | start hook launched → daemon listening | first edits the daemon answered: "
              "right after the start hook / 1 s after | `python -c pass` |", "|---|---:|---:|---:|---:|"]
    for host in hosts:
        passes = host.samples["python -c pass"]
        base = statistics.median(passes)
        answered = [f"{sum(host.samples[f'{state}/daemon answered']):.0f}/{2 * runs}" for state in (AT_ONCE, LATER)]
        lines.append(f"| {host.name} | {_cell(host.samples['start hook'], base)} | {_cell(host.samples['daemon listening'], base)} "
                     f"| {' / '.join(answered)} | {base:.0f} / {percentile(passes, 0.9):.0f} ms |")
    return "\n".join([_note(runs), "", *lines])


def _note(runs: int) -> str:
    return (
        f"Machine: {machine()}. What is timed is the hook command as the host runs it, not the host itself: the "
        "pre-edit and start commands read back from the files `gateway hook install HOST` wrote into a temporary git "
        "workspace (home, state and runtime directories temporary too), run through `sh -c` exactly as written, with "
        "the host's own payload on stdin (OpenCode: the `gateway hook opencode` process its plugin spawns, no shell). "
        f"Each cell: median / p90 of {runs} runs in ms, and the median as a multiple of the median `python -c pass`, "
        "run just before each timed hook. `body`: a two-line edit inside `_SubParsersAction.__init__` of this Python's "
        "argparse.py (2,630 lines), which passes; `structural`: a parameter added to `ArgumentParser._get_formatter`, "
        "which is routed (the host's own edit given back). Cold: no daemon and no start hook, so the hook answers in "
        "process and starts a daemon for next time (stopped before the next run). Right after the start hook: the "
        "host's SessionStart command (Copilot: sessionStart; OpenCode: the plugin's `start` spawn at load) ran, then "
        "at once the edit; 1 s after: as when the host's first model turn comes between them. Steady: the daemon warm "
        "and the file judged before."
    )


def _finish(hosts: list[Host]) -> None:
    """Stop every workspace's daemon and check that none is left."""
    for host in hosts:
        _stop(host)
        status = _gateway(host, "daemon", "status")
        if status.returncode == 0 or _daemons(host.workspace):
            raise RuntimeError(f"{host.name}: a daemon is still running for {host.workspace}: {status.stdout}")
        print(status.stdout.strip(), file=sys.stderr)


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else RUNS
    names = sys.argv[sys.argv.index("--hosts") + 1].split(",") if "--hosts" in sys.argv else list(HOSTS)
    base = Path(tempfile.mkdtemp(prefix="gw-hosts-", dir="/tmp"))
    hosts: list[Host] = []
    try:
        hosts = [_host(name, base) for name in names]
        for run in range(runs):
            for host in hosts:
                _round(host)
            print(f"run {run + 1}/{runs}", file=sys.stderr)
    finally:
        _finish(hosts)
        shutil.rmtree(base, ignore_errors=True)
    report = _report(hosts, runs)
    print(report)
    record(report, "host-latency", "Hooks per host: first edit and steady state")


if __name__ == "__main__":
    main()
