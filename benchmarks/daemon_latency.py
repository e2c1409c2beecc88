"""What the warm workspace daemon buys: the hook, the CLI and a routed edit with and without it,
beside `python -c pass`, a full tree-sitter parse, and the server's own documentSymbol; the
gate's time against file size; the daemon's memory over 1,000 edits; orphans after kill -9.

Run: `python benchmarks/daemon_latency.py [--record]`. The file is this Python's own
`argparse.py` (2,630 lines) in a temporary workspace. Process timings are interleaved, so
every ratio compares runs made side by side. With --record the table goes into RESULTS.md (else results/local/).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
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
from gateway.gate.checker import classify_edit  # noqa: E402
from gateway.surfaces import daemon_client  # noqa: E402
from gateway.syntax import parser_for  # noqa: E402

SOURCE = Path(sysconfig.get_paths()["stdlib"]) / "argparse.py"
RUNS = 20
GATEWAY = [sys.executable, str(ROOT / "scripts" / "gateway")]
BODY_OLD = "        self._prog_prefix = prog\n"
SMALL = "def area(width, height):\n    return width * height\n\n\ndef perimeter(width, height):\n    return 2 * (width + height)\n"


def _workspace(enforce: bool) -> Path:
    """argparse.py and a small file, committed; `enforce`: typed edits on, so the hook checks Bash."""
    root = Path(tempfile.mkdtemp(prefix="gateway-daemon-bench-"))
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text(f"[typed_edits]\nenforce = {str(enforce).lower()}\n")
    shutil.copy(SOURCE, root / "argparse.py")
    (root / "shapes.py").write_text(SMALL)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "b"], check=True)
    return root


def _payloads(root: Path, guarded: Path) -> dict[str, str]:
    edit = {"file_path": "argparse.py", "old_string": BODY_OLD, "new_string": BODY_OLD + "        pass\n"}
    base = {"cwd": str(root), "hook_event_name": "PreToolUse", "session_id": "bench"}
    return {
        "Edit": json.dumps({**base, "tool_name": "Edit", "tool_input": edit}),
        "MultiEdit": json.dumps({**base, "tool_name": "MultiEdit", "tool_input": {"file_path": "argparse.py", "edits": [edit]}}),
        "Bash": json.dumps({**base, "cwd": str(guarded), "tool_name": "Bash", "tool_input": {"command": "grep -n parse_args argparse.py | head -3"}}),
    }


def _interleaved(commands: dict[str, tuple[list[str], str | None, dict[str, str]]], root: Path, runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):
        for name, (command, stdin, env) in commands.items():
            started = time.perf_counter()
            subprocess.run(command, cwd=root, input=stdin, env=env, capture_output=True, text=True, check=False)
            samples[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(values) for name, values in samples.items()}


def _replace_commands(root: Path, env: dict[str, str], cold: dict[str, str]) -> dict[str, tuple[list[str], str | None, dict[str, str]]]:
    bodies = [f"def area(width, height):\n    return width * height * {k}\n" for k in (1, 2)]
    files = []
    for k, body in enumerate(bodies):
        path = root.parent / f"{root.name}-body{k}.py"
        path.write_text(body)
        files.append(str(path))
    replace = [*GATEWAY, "replace-symbol", "area", "shapes.py", "--workspace", str(root)]
    return {
        "replace-symbol warm (daemon)": ([*replace, "--body-file", files[0]], None, env),
        "replace-symbol warm (daemon) ": ([*replace, "--body-file", files[1]], None, env),
        "replace-symbol cold (no daemon)": ([*replace, "--body-file", files[0]], None, cold),
    }


def _process_rows(root: Path, guarded: Path, env: dict[str, str], cold: dict[str, str]) -> dict[str, float]:
    payloads = _payloads(root, guarded)
    commands: dict[str, tuple[list[str], str | None, dict[str, str]]] = {"python -c pass": ([sys.executable, "-c", "pass"], None, env)}
    for tool, payload in payloads.items():
        commands[f"hook {tool} (daemon)"] = ([*GATEWAY, "hook", "claude-code"], payload, env)
        commands[f"hook {tool} (no daemon)"] = ([*GATEWAY, "hook", "claude-code"], payload, cold)
    hooks = _interleaved(commands, root, RUNS)
    cli = _interleaved({"python -c pass": commands["python -c pass"], **_replace_commands(root, env, cold)}, root, max(RUNS // 2, 5))
    warm = statistics.mean([cli.pop("replace-symbol warm (daemon)"), cli.pop("replace-symbol warm (daemon) ")])
    return {**hooks, "replace-symbol warm (daemon)": warm, "replace-symbol cold (no daemon)": cli["replace-symbol cold (no daemon)"],
            "python -c pass (beside the CLI runs)": cli["python -c pass"]}


def _classify_rows(text: str) -> dict[str, float]:
    """The gate on a cached tree, as the daemon runs it, beside a full parse of the same file."""
    source = text.encode()
    full = [_timed(lambda: parser_for("python").parse(source)) for _ in range(30)]
    lines = text.splitlines(keepends=True)
    edits = [(lines[k], lines[k] + "\n") for k in range(200, len(lines), 17) if lines[k].strip() and text.count(lines[k]) == 1]
    classify_edit("argparse.py", edits[0][0], edits[0][1], content=text)
    samples = [_timed(lambda old=old, new=new: classify_edit("argparse.py", old, new, content=text)) for old, new in edits]
    sizes = {}
    for factor in (1, 2, 4, 8):
        big = "".join(text.replace("\nclass ", f"\nclass V{n}_") for n in range(factor))
        sizes[f"gate, no cache, {factor}× argparse.py ({len(big) // 1024} KB)"] = statistics.median(
            [_timed(lambda big=big, n=n: classify_edit("big.py", f"#{n}\n", f"#{n}\nx = 1\n", content=big + f"#{n}\n")) for n in range(5)]
        )
    return {"full tree-sitter parse": statistics.median(full), "classify p50 (cached tree)": percentile(samples, 0.5),
            "classify p99 (cached tree)": percentile(samples, 0.99), **sizes}


def _timed(work) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    work()
    return (time.perf_counter() - started) * 1000


def _route_rows(root: Path) -> dict[str, float]:
    """A routed structural edit and the server's documentSymbol, both on warm jedi, in process."""
    from gateway.api import Gateway

    rows: dict[str, list[float]] = {"routed edit (warm server)": [], "documentSymbol round trip": []}
    with Gateway(root) as gateway:
        gateway.symbols("shapes.py")
        session = gateway.sessions.running()[0]
        uri = (root / "shapes.py").as_uri()
        for k in range(20):
            old = f"def perimeter(width, height{', unit' * (k % 2)}):\n"
            new = f"def perimeter(width, height{', unit' * ((k + 1) % 2)}):\n"
            rows["routed edit (warm server)"].append(_timed(lambda: gateway.edit("shapes.py", old + "    return", new + "    return", route=True)))
            rows["documentSymbol round trip"].append(_timed(lambda: session.request(
                "documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}}))))
    return {name: statistics.median(values) for name, values in rows.items()}


def _memory_rows(root: Path) -> dict[str, float]:
    def total() -> float:
        memory = daemon_client.request(root, "gateway/status", {})["memory"]
        return (memory["daemon_rss_bytes"] + memory["servers_rss_bytes"]) / 2**20

    daemon_client.request(root, "gateway/symbols", {"path": "shapes.py"})
    rows = {}
    for n in range(1, 1001):
        old, new = (BODY_OLD, BODY_OLD.replace("prog\n", "prog  # x\n")) if n % 2 else (BODY_OLD.replace("prog\n", "prog  # x\n"), BODY_OLD)
        daemon_client.request(root, "gateway/edit", {"path": "argparse.py", "old_string": old, "new_string": new, "token": None})
        if n in (100, 1000):
            rows[f"daemon + servers RSS after {n} edits (MiB)"] = total()
    return rows


def _orphans(root: Path, env: dict[str, str]) -> dict[str, float]:
    import psutil

    status = daemon_client.request(root, "gateway/status", {})
    server = status["servers"][0]["pid"]
    os.kill(server, signal.SIGKILL)
    time.sleep(1)
    left_server = int(psutil.pid_exists(server) and psutil.Process(server).status() != psutil.STATUS_ZOMBIE)
    for _ in range(2):  # the call after the kill fails (-32003); the next gets a fresh server
        try:
            daemon_client.request(root, "gateway/symbols", {"path": "shapes.py"})
        except daemon_client.DaemonError:
            continue
    daemon = psutil.Process(daemon_client.request(root, "gateway/status", {})["pid"])
    family = daemon.children(recursive=True)
    daemon.kill()
    _, alive = psutil.wait_procs(family, timeout=10)
    return {"orphans after kill -9 of a server": left_server, "orphans after kill -9 of the daemon": len(alive)}


def main() -> None:
    root, guarded = _workspace(enforce=False), _workspace(enforce=True)
    runtime = tempfile.mkdtemp(prefix="gw-bench-", dir="/tmp")
    env = {key: value for key, value in os.environ.items() if key != "GATEWAY_NO_DAEMON"}
    env["XDG_RUNTIME_DIR"] = os.environ["XDG_RUNTIME_DIR"] = runtime
    os.environ.pop("GATEWAY_NO_DAEMON", None)
    cold = {**env, "GATEWAY_NO_DAEMON": "1"}
    for workspace in (root, guarded):
        subprocess.run([*GATEWAY, "daemon", "start", "--workspace", str(workspace)], env=env, check=True, capture_output=True)
    try:
        subprocess.run([*GATEWAY, "symbols", "shapes.py", "--workspace", str(root)], env=env, check=True, capture_output=True)
        rows = {**_process_rows(root, guarded, env, cold), **_classify_rows(SOURCE.read_text()), **_route_rows(root), **_memory_rows(root)}
        rows.update(_orphans(root, env))
    finally:
        for workspace in (root, guarded):
            subprocess.run([*GATEWAY, "daemon", "stop", "--workspace", str(workspace)], env=env, capture_output=True)
            shutil.rmtree(workspace, ignore_errors=True)
        shutil.rmtree(runtime, ignore_errors=True)
    report = _report(rows)
    print(report)
    record(report, "daemon", "Warm daemon: hook, CLI, gate and routing")


def _report(rows: dict[str, float]) -> str:
    base, parse = rows["python -c pass"], rows["full tree-sitter parse"]
    ratio = {
        **{f"hook {t} (daemon)": rows[f"hook {t} (daemon)"] / base for t in ("Edit", "MultiEdit", "Bash")},
        "replace-symbol warm (daemon)": rows["replace-symbol warm (daemon)"] / rows["python -c pass (beside the CLI runs)"],
        "classify p50 (cached tree)": rows["classify p50 (cached tree)"] / parse,
        "classify p99 (cached tree)": rows["classify p99 (cached tree)"] / parse,
        "routed edit (warm server)": rows["routed edit (warm server)"] / rows["documentSymbol round trip"],
    }
    lines = [f"Machine: {machine()}. Medians of interleaved runs; ms unless named.", "", "| measurement | value | ratio |", "|---|---:|---:|"]
    for name, value in rows.items():
        lines.append(f"| {name} | {value:.1f} | {f'{ratio[name]:.2f}×' if name in ratio else ''} |")
    return "\n".join(lines + ["", *_targets(rows, ratio)])


def _targets(rows: dict[str, float], ratio: dict[str, float]) -> list[str]:
    hooks = max(ratio[f"hook {t} (daemon)"] for t in ("Edit", "MultiEdit", "Bash"))
    sizes = [(value, 2 ** k) for k, (name, value) in enumerate(r for r in rows.items() if r[0].startswith("gate, no cache"))]
    per_copy = [value / factor for value, factor in sizes]
    rss = [value for name, value in rows.items() if name.startswith("daemon + servers RSS")]
    orphans = rows["orphans after kill -9 of a server"] + rows["orphans after kill -9 of the daemon"]
    checks = [
        (f"hook with a warm daemon ≤ 2.0× `python -c pass`: {hooks:.2f}× at most", hooks <= 2.0),
        (f"classify on a cached tree ≤ 0.1× a full parse (p50): {ratio['classify p50 (cached tree)']:.2f}×", ratio["classify p50 (cached tree)"] <= 0.1),
        (f"classify on a cached tree ≤ 0.3× a full parse (p99): {ratio['classify p99 (cached tree)']:.2f}×", ratio["classify p99 (cached tree)"] <= 0.3),
        (f"warm `replace-symbol` ≤ 4× `python -c pass`: {ratio['replace-symbol warm (daemon)']:.2f}×", ratio["replace-symbol warm (daemon)"] <= 4),
        (f"routed edit ≤ 2× documentSymbol: {ratio['routed edit (warm server)']:.2f}×", ratio["routed edit (warm server)"] <= 2),
        (f"gate linear in size: {', '.join(f'{v:.1f}' for v in per_copy)} ms per copy of the file", max(per_copy) <= 1.5 * min(per_copy)),
        (f"RSS from edit 100 to 1,000 within 10%: {100 * (rss[1] / rss[0] - 1):+.1f}%", abs(rss[1] / rss[0] - 1) <= 0.1),
        (f"orphans after kill -9: {orphans:.0f}", orphans == 0),
    ]
    return [f"- {'met' if ok else '**not met**'}: {text}" for text, ok in checks]


if __name__ == "__main__":
    main()
