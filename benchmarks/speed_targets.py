"""Issue 24's speed targets, measured side by side in one run, each as a ratio to what the
issue compares it with.

- A routed header edit through the hook (`gateway hook claude-code`, Claude Code's PreToolUse
  payload, as the host runs it) with the workspace's daemon warm, on this Python's argparse.py
  (2,630 lines), on the same file with one non-ASCII character, and on a file of four renamed
  copies of it (10,520 lines) with four: each against `python -c pass`, run just before it.
  Every run adds a different parameter, so no run's result is one an earlier run computed.
- A warm `gateway replace-symbol` on argparse.py through the daemon, against what the language
  server itself needs for it: its documentSymbol on the file as it now is (after a change) plus
  one atomic write of the file, measured in this process on a server of its own. Every run
  writes a different body.
- The first `gateway symbols` in a workspace (no daemon: it is answered in process and starts
  one) against `gateway daemon start` in a workspace like it; then, once the daemon it started
  has started its server ahead for the file that command asked about, the second.
- A host session's path: `gateway daemon start` (what its start runs), how long until the
  server the daemon starts ahead has answered for the newest file, and the first `gateway
  symbols` after that, on that file and on another, against the same `gateway daemon start`.
- `gateway mcp` in a fresh workspace (it starts the daemon as it starts): when it answers
  tools/list, and its first find_symbol 2.5 s after it started, against the same with daemons
  off.

Run: `python benchmarks/speed_targets.py [--runs N] [--record]`. Homes, state and runtime
directories are temporary.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import record  # noqa: E402
from benchmarks.speed_targets_report import FILES, MCP_FIRST_CALL_AFTER, first_rows, hook_rows, report  # noqa: E402

SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
VENV_BIN = Path(sys.executable).parent
GATEWAY = [sys.executable, str(ROOT / "scripts" / "gateway")]
PASS = [sys.executable, "-c", "pass"]
HEADER_OLD = "    def _get_formatter(self):\n        return self.formatter_class(prog=self.prog)\n"


def _texts() -> dict[str, str]:
    text = SOURCE.read_text()
    accented = text.replace("# Author: Steven J. Bethard", "# Author: Stéven J. Bethard", 1)
    copies = [text if n == 0 else text.replace("def _get_formatter(self):", f"def _get_formatter_{n}(self):") for n in range(4)]
    big = "".join(c.replace("\nclass ", f"\nclass V{n}_").replace("# Author: Steven", f"# Author: Stéven{n}", 1) for n, c in enumerate(copies))
    return {"argparse.py": text, "argparse_e.py": accented, "argparse_x4.py": big, "argparse_rs.py": text, "argparse_ev.py": text}


def _environment(base: Path) -> dict[str, str]:
    # PYTHONPATH: every process (hooks, CLI, the daemon) runs this checkout, whatever its working directory.
    env = {"PATH": f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin", "LANG": os.environ.get("LANG", "C.UTF-8"), "PYTHONPATH": str(ROOT)}
    if "GATEWAY_LANGS_DIR" in os.environ:  # language data of the caller's (another Python server first, say)
        env["GATEWAY_LANGS_DIR"] = os.environ["GATEWAY_LANGS_DIR"]
    for name in ("HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        (base / name.lower()).mkdir(mode=0o700)
        env[name] = str(base / name.lower())
    return env


def _workspace(base: Path, name: str = "workspace") -> Path:
    root = base / name
    root.mkdir()
    for file, text in _texts().items():
        (root / file).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root.resolve()


def _timed(command: list[str], env: dict[str, str], cwd: Path, stdin: str | None = None) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, input=stdin, capture_output=True, text=True, check=False)
    elapsed = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise RuntimeError(f"{command[2:]} failed ({done.returncode}): {done.stderr[-400:]}")
    return elapsed, done.stdout


def _payload(root: Path, file: str, run: int) -> str:
    new = HEADER_OLD.replace("(self):", f"(self, width{run}=None):")
    return json.dumps({"session_id": "bench", "transcript_path": str(root / "t.jsonl"), "cwd": str(root), "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
                       "tool_input": {"file_path": str(root / file), "old_string": HEADER_OLD, "new_string": new, "replace_all": False}})


def _hooks(root: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Each file's routed edit and `python -c pass`, interleaved (warm-up runs first)."""
    samples: dict[str, list[float]] = {"python -c pass": [], **{kind: [] for kind in FILES}, **{f"pass before {kind}": [] for kind in FILES}}
    for run in range(-2, runs):
        for kind, file in FILES.items():
            base, _ = _timed(PASS, env, root)
            elapsed, out = _timed([*GATEWAY, "hook", "claude-code"], env, root, _payload(root, file, run + 100))
            if "updatedInput" not in out:
                raise RuntimeError(f"{kind}: not routed: {out[:300]}")
            if run >= 0:
                samples["python -c pass"].append(base)
                samples[f"pass before {kind}"].append(base)
                samples[kind].append(elapsed)
    return samples


def _evolving(root: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """Edit after edit, as a session goes: the host writes each routed result and runs its
    PostToolUse hook, and the next edit comes a model turn (1 s) later, on the file as written."""
    path, samples = root / "argparse_ev.py", {"python -c pass (edit after edit)": [], "edit after edit": []}
    path.write_text(SOURCE.read_text())
    params = "self"
    for run in range(-2, runs):
        old = HEADER_OLD.replace("(self)", f"({params})")
        params = f"self, width{run + 100}=None"
        payload = json.loads(_payload(root, path.name, 0))
        payload["tool_input"].update(old_string=old, new_string=old.replace(old[old.index("(") : old.index(")") + 1], f"({params})"))
        base, _ = _timed(PASS, env, root)
        elapsed, out = _timed([*GATEWAY, "hook", "claude-code"], env, root, json.dumps(payload))
        updated = json.loads(out)["hookSpecificOutput"]["updatedInput"]
        text = path.read_text()
        if text.count(updated["old_string"]) != 1:
            raise RuntimeError("the routed edit does not apply as the host applies it")
        path.write_text(text.replace(updated["old_string"], updated["new_string"]))
        _timed([*GATEWAY, "hook", "claude-code"], env, root, json.dumps({**payload, "hook_event_name": "PostToolUse", "tool_response": {}}))
        if run >= 0:
            samples["python -c pass (edit after edit)"].append(base)
            samples["edit after edit"].append(elapsed)
        time.sleep(1.0)
    return samples


def _replace(root: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """The daemon's replace-symbol beside the server's own documentSymbol (after a change) and
    one atomic write, measured here on a server of this process for a copy of the file."""
    from gateway.api import Gateway

    mirror = root.parent / "mirror"
    mirror.mkdir()
    shutil.copy(root / "argparse_rs.py", mirror / "argparse_rs.py")
    samples: dict[str, list[float]] = {"replace-symbol (daemon)": [], "documentSymbol": [], "atomic write": []}
    body = root.parent / "body.py"
    with Gateway(mirror) as gateway:
        gateway.symbols("argparse_rs.py")
        session = gateway.sessions.running()[0]
        path = (mirror / "argparse_rs.py").resolve()
        for run in range(-2, runs):
            body.write_text(f"def _get_formatter(self, width={run + 100}):\n    return self.formatter_class(prog=self.prog, width=width)\n")
            elapsed, _ = _timed([*GATEWAY, "replace-symbol", "ArgumentParser/_get_formatter", "argparse_rs.py", "--body-file", str(body),
                                 "--workspace", str(root)], env, root)
            text = (root / "argparse_rs.py").read_text()
            session.sync(path, text, "python")
            asked = _ms(lambda: session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": path.as_uri()}})))
            source = gateway.workspace.read("argparse_rs.py")
            written = _ms(lambda: gateway.workspace.write(source, text + "\n"))
            if run >= 0:
                samples["replace-symbol (daemon)"].append(elapsed)
                samples["documentSymbol"].append(asked)
                samples["atomic write"].append(written)
    return samples


def _ms(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def _stop(root: Path, env: dict[str, str]) -> None:
    for _ in range(100):  # a daemon the first command spawned may still be starting
        if subprocess.run([*GATEWAY, "daemon", "status", "--workspace", str(root)], env=env, capture_output=True).returncode == 0:
            break
        time.sleep(0.1)
    subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(root)], env=env, capture_output=True)


def _first(base: Path, env: dict[str, str], runs: int, fresh_state: bool = False) -> dict[str, list[float]]:
    """`gateway daemon start` and the first `gateway symbols` in fresh workspaces, alternately,
    and what of the latter is the language server's: its start and first documentSymbol.
    `fresh_state`: each command in a state directory of its own (nothing recorded of an earlier run)."""
    from gateway.api import Gateway

    samples: dict[str, list[float]] = {"daemon start": [], "first symbols": [], "server start + first documentSymbol": []}
    for run in range(-1, runs):  # run -1 warms what a machine keeps once for all workspaces (the server's version
        # check, its parser caches under HOME) and is not counted
        root = _workspace(base, f"server-{run}")
        with Gateway(root) as gateway:
            session = _ms(lambda: gateway.sessions.session_for(gateway.symbol_service.language(gateway.workspace.read("argparse.py"))))
            uri = (root / "argparse.py").as_uri()
            running = gateway.sessions.running()[0]
            running.sync(root / "argparse.py", (root / "argparse.py").read_text(), "python")
            asked = _ms(lambda: running.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}})))
            if run >= 0:
                samples["server start + first documentSymbol"].append(session + asked)
        for name, command in (("daemon start", ["daemon", "start"]), ("first symbols", ["symbols", "argparse.py"])):
            root = _workspace(base, f"{name.replace(' ', '-')}-{run}")
            if fresh_state:
                state = Path(tempfile.mkdtemp(prefix="state-", dir=base))
                env = {**env, "XDG_STATE_HOME": str(state)}
            elapsed, _ = _timed([*GATEWAY, *command, "--workspace", str(root)], env, root)
            if run >= 0:
                samples[name].append(elapsed)
            if name == "first symbols":  # the daemon it started for next time starts its server ahead for argparse.py
                _prestarted(root, env)
                elapsed, _ = _timed([*GATEWAY, *command, "--workspace", str(root)], env, root)
                if run >= 0:
                    samples.setdefault("second symbols", []).append(elapsed)
            _stop(root, env)
        after = _after_start(_workspace(base, f"after-start-{run}"), env)
        for name, elapsed in after.items():
            if run >= 0:
                samples.setdefault(name, []).append(elapsed)
    return samples


def _prestarted(root: Path, env: dict[str, str]) -> dict:
    """The daemon's status once it runs and has started its servers ahead."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        done = subprocess.run([*GATEWAY, "daemon", "status", "--json", "--workspace", str(root)], env=env, capture_output=True, text=True)
        if done.returncode == 0 and json.loads(done.stdout)["prestart"]["done"]:
            return json.loads(done.stdout)
        time.sleep(0.05)
    raise RuntimeError(f"{root}: no daemon with its servers started ahead within 60 s")


def _after_start(root: Path, env: dict[str, str]) -> dict[str, float]:
    """`gateway daemon start` (as a host's session start runs it), how long until the server it
    starts ahead has answered for the workspace's newest file, then the first `gateway symbols`
    on that file and on another."""
    elapsed: dict[str, float] = {}
    started = time.perf_counter()
    subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(root)], env=env, check=True, capture_output=True)
    status = _prestarted(root, env)
    elapsed["server started ahead, answered"] = (time.perf_counter() - started) * 1000
    newest = status["prestart"]["started"][0]["file"]
    elapsed["symbols after start, that file"], _ = _timed([*GATEWAY, "symbols", newest, "--workspace", str(root)], env, root)
    other = "argparse.py" if newest != "argparse.py" else "argparse_e.py"
    elapsed["symbols after start, another file"], _ = _timed([*GATEWAY, "symbols", other, "--workspace", str(root)], env, root)
    _stop(root, env)
    return elapsed




def _mcp(base: Path, env: dict[str, str], runs: int) -> dict[str, list[float]]:
    """`gateway mcp` in a fresh workspace, with the daemon it starts and with daemons off (each
    call answered in process), alternately: when it answers tools/list, and its first
    find_symbol (on argparse.py) MCP_FIRST_CALL_AFTER seconds after it started."""
    samples: dict[str, list[float]] = {}
    for run in range(-1, runs):
        for mode, extra in (("mcp", {}), ("mcp, daemons off", {"GATEWAY_NO_DAEMON": "1"})):
            root = _workspace(base, f"{mode.replace(', ', '-').replace(' ', '-')}-{run}")
            listed, called = _mcp_session(root, {**env, **extra})
            _stop(root, env)
            if run >= 0:
                samples.setdefault(f"{mode}: tools/list", []).append(listed)
                samples.setdefault(f"{mode}: first find_symbol", []).append(called)
    return samples


def _mcp_session(root: Path, env: dict[str, str]) -> tuple[float, float]:
    started = time.perf_counter()
    server = subprocess.Popen([*GATEWAY, "mcp", "--workspace", str(root)], cwd=root, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert server.stdin is not None and server.stdout is not None
    try:
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
                        {"jsonrpc": "2.0", "method": "notifications/initialized"}, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
            server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        server.stdout.readline()
        server.stdout.readline()
        listed = (time.perf_counter() - started) * 1000
        time.sleep(max(0.0, MCP_FIRST_CALL_AFTER - (time.perf_counter() - started)))
        asked = time.perf_counter()
        server.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "find_symbol", "arguments": {"name_path": "ArgumentParser/_get_formatter", "path": "argparse.py"}}}) + "\n")
        server.stdin.flush()
        reply = server.stdout.readline()
        called = (time.perf_counter() - asked) * 1000
    finally:
        server.kill()
        server.wait()
    if '\\"name_path\\"' not in reply:
        raise RuntimeError(f"find_symbol through gateway mcp failed: {reply[:300]}")
    return listed, called


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("--hooks", action="store_true", help="only the three steady hook rows (printed, never recorded)")
    parser.add_argument("--first", action="store_true",
                        help="only the first `gateway symbols` against `gateway daemon start`, each in a fresh state directory (printed, never recorded)")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="gw-speed-", dir="/tmp"))
    env = _environment(base)
    os.environ.update({k: env[k] for k in ("XDG_STATE_HOME", "XDG_RUNTIME_DIR")})
    os.environ.pop("GATEWAY_NO_DAEMON", None)
    root = _workspace(base)
    try:
        subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(root)], env=env, check=True, capture_output=True)
        if args.hooks:
            samples = _hooks(root, env, args.runs)
            print("\n".join(hook_rows(samples)))
            return
        if args.first:
            samples = _first(base, env, args.runs, fresh_state=True)
            print("\n".join(first_rows(samples)))
            return
        samples = {**_hooks(root, env, args.runs), **_evolving(root, env, max(args.runs // 2, 5)), **_replace(root, env, max(args.runs // 2, 5)),
                   **_first(base, env, max(args.runs // 3, 3)), **_mcp(base, env, max(args.runs // 3, 3))}
    finally:
        subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(root)], env=env, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)
    text = report(samples)
    print(text)
    record(text, "speed-targets", "Speed targets")


if __name__ == "__main__":
    main()
