"""The daemon's memory on a large repository (issue 36: "Daemon and servers ≤ 300 MiB ... on a
10,000-file workspace after 200 mixed operations"; the other half, after editing a 50k-line
file, is `scale_hook.py`'s).

A workspace of `scale_corpus.python_workspace` (standard-library Python files; the copy
`daemon_memory.measure` works on leaves .git out), one daemon, and `daemon_memory.py`'s operations through it (`symbols`,
`find_symbol` with a path and now and then over the whole workspace, `classify` of a header
change, Claude Code's PreToolUse hook on a body edit then written, `edit`, `replace_symbol`)
over 40 of its files. Memory: VmRSS summed over the daemon's process tree (daemon, reaper,
servers and what they start), the highest after any operation, after the last, and at rest
(3 s later).

`python benchmarks/scale_memory.py [--files 10000] [--ops 200] [--record]`.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.daemon_memory import TARGET_MIB, Run, measure  # noqa: E402
from benchmarks.report import machine, record  # noqa: E402
from benchmarks.scale_corpus import python_workspace  # noqa: E402

FILES, OPERATIONS = 10000, 200


def _argument(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


def _processes(sample: dict[str, object]) -> str:
    by_name: dict[str, float] = {}
    for _, name, rss, _ in sample["processes"]:  # type: ignore[attr-defined]
        by_name[name] = by_name.get(name, 0.0) + rss
    return ", ".join(f"{name} {mib:.0f} MiB" for name, mib in sorted(by_name.items(), key=lambda kv: -kv[1]))


def report(files: int, run: Run) -> str:
    last, rest = run.samples[-2][1], run.samples[-1][1]
    rows = [("highest, after any operation", run.peak), ("after the last operation", last), ("3 s later, at rest", rest)]
    return "\n".join([
        f"Machine: {machine()}. A workspace of {files:,} standard-library Python files (`scale_corpus.python_workspace`, copied without .git), one daemon, {run.count} requests "
        f"of `daemon_memory.py`'s mixed operations over {len(run.files)} of its files ({run.seconds:.0f} s); refused (counted, "
        f"not fatal): {run.failures or 'none'}. VmRSS summed over the daemon's process tree. Target: ≤ {TARGET_MIB:.0f} MiB.",
        "",
        "| when | daemon + servers (VmRSS) | daemon | target met | of which |",
        "|---|---:|---:|---|---|",
        *(f"| {when} | {s['rss']:.0f} MiB | {s['daemon_rss']:.0f} MiB | {'met' if s['rss'] <= TARGET_MIB else '**not met**'} | {_processes(s)} |"
          for when, s in rows),
    ])


def main() -> None:
    files, operations = _argument("--files", FILES), _argument("--ops", OPERATIONS)
    base = Path(tempfile.mkdtemp(prefix="gw-scale-memory-", dir="/tmp"))
    try:
        workspace = python_workspace(base / "workspace", files)
        run = measure(workspace, operations, [None])[0]
    finally:
        shutil.rmtree(base, ignore_errors=True)
    text = report(files, run)
    print(text)
    record(text, "scale-memory", "Daemon memory on a 10,000-file workspace")


if __name__ == "__main__":
    main()
