"""What typed edits and contracts cost: the hook under enforcement, declare, a declared edit, a contract.

Run: `python benchmarks/typed_latency.py`. Prints a table and records it in RESULTS.md.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, percentile, process_median_ms, record  # noqa: E402
from gateway.typed.state import state_dir  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.typed.declaration import Declaration  # noqa: E402

RUNS = 15
IN_PROCESS_RUNS = 200
SHAPES = "pkg/shapes.py"


def process_ms(command: list[str], cwd: Path, stdin: str | None = None) -> float:
    return process_median_ms(command, cwd, stdin, RUNS)


def hook_rows(workspace: Path) -> list[tuple[str, float]]:
    gateway = [str(Path(sys.executable).parent / "gateway"), "hook", "claude-code"]

    def bash(command: str) -> str:
        return json.dumps({"tool_name": "Bash", "cwd": str(workspace), "tool_input": {"command": command}})

    edit = json.dumps({"tool_name": "Edit", "cwd": str(workspace), "tool_input": {
        "file_path": SHAPES, "old_string": "width * height", "new_string": "height * width"}})
    return [
        ("`python3 -c pass`", process_ms([sys.executable, "-c", "pass"], workspace)),
        ("hook, Bash `pytest -q` (no writer: shlex only)", process_ms(gateway, workspace, bash("pytest -q"))),
        ("hook, Bash `git status`", process_ms(gateway, workspace, bash("git status"))),
        ("hook, Bash `sed -i ...` (denied, logged)", process_ms(gateway, workspace, bash("sed -i s/a/b/ pkg/shapes.py"))),
        ("hook, Edit without a grant (denied, logged)", process_ms(gateway, workspace, edit)),
        ("`gateway declare ... --json`", process_ms([gateway[0], "declare", "edit_boundary_condition", "--file", SHAPES, "--target", "prod",
                                                     "--provenance", "user_confirmed", "--rationale", "bench", "--test-file", "t.py",
                                                     "--json"], workspace)),
    ]


def in_process(workspace: Path) -> dict[str, float]:
    declare, edit = [], []
    params = {"kind": "edit_boundary_condition", "files": [SHAPES], "provenance": "user_confirmed", "rationale": "bench",
              "target": "prod", "test_files": ["t.py"]}
    with Gateway(workspace, use_servers=False) as gw:
        for number in range(IN_PROCESS_RUNS):
            started = time.perf_counter()
            token = gw.declare(Declaration.from_params(params)).to_json()["token"]
            declare.append((time.perf_counter() - started) * 1000)
            old, new = ("width * height", "height * width") if number % 2 == 0 else ("height * width", "width * height")
            started = time.perf_counter()
            gw.edit(SHAPES, old, new, token=token)
            edit.append((time.perf_counter() - started) * 1000)
        entries = len((state_dir(workspace) / "edits.jsonl").read_text().splitlines())
    return {
        "declare_p50": percentile(declare, 0.5), "declare_p99": percentile(declare, 0.99),
        "edit_p50": percentile(edit, 0.5), "edit_p99": percentile(edit, 0.99), "log_entries": entries,
    }


def contract_ms(workspace: Path) -> float:
    path = workspace / "plan.toml"
    samples = []
    with Gateway(workspace, use_servers=False) as gw:
        for number in range(20):
            old, new = ("class Shape", "class Figure") if number % 2 == 0 else ("class Figure", "class Shape")
            path.write_text(f'[contract]\nid = "bench"\nsummary = "s"\n\n[[files]]\npath = "{SHAPES}"\n\n[[steps]]\nid = "a"\n'
                            f'file = "{SHAPES}"\naction = "replace"\nanchor = "{old}"\ntext = "{new}"\n\n[[validate]]\nrun = "true"\n')
            started = time.perf_counter()
            assert gw.contract_apply(str(path)).to_json()["validated"]
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    with tempfile.TemporaryDirectory() as temp:
        workspace = Path(temp)
        shutil.copytree(ROOT / "tests" / "fixtures" / "python", workspace, dirs_exist_ok=True)
        contract = contract_ms(workspace)
        (workspace / ".gateway").mkdir(exist_ok=True)
        (workspace / ".gateway" / "config.toml").write_text("[typed_edits]\nenforce = true\n")
        rows = hook_rows(workspace)
        timings = in_process(workspace)
    out = [
        f"Machine: {machine()}. Enforcement on; Python fixture workspace; processes: median of {RUNS} runs.",
        "",
        "| command | ms |",
        "|---|---:|",
        *[f"| {name} | {ms:.0f} |" for name, ms in rows],
        "",
        f"In process, tree-sitter backend, {IN_PROCESS_RUNS} declare + declared edit pairs on one file "
        f"(the log then holds {timings['log_entries']} lines):",
        "",
        "| operation | p50 ms | p99 ms |",
        "|---|---:|---:|",
        f"| declare (validate, hash, grant, log) | {timings['declare_p50']:.2f} | {timings['declare_p99']:.2f} |",
        f"| edit with the token (gate, grant, write, log) | {timings['edit_p50']:.2f} | {timings['edit_p99']:.2f} |",
        "",
        f"A one-step contract with one validation command (`true`), check + write + validate: {contract:.1f} ms (median of 20).",
    ]
    markdown = "\n".join(out)
    print(markdown)
    record(markdown, "typed-latency", "Typed edits and contracts")


if __name__ == "__main__":
    main()
