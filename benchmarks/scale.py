"""Issue 36's growth curves, one benchmark per thing that grows, each run in its own process
(one at a time: they time processes side by side, and share two cores), each made from real
code this machine has (`scale_corpus`: this Python's standard library; C++ from the matrix's
corpus):

- `scale_hook.py`: a routed header edit through Claude Code's hook on files of 1k, 10k and 50k
  lines, idle and busy, and the daemon's memory after it;
- `scale_index.py`: workspace-wide `find-symbol` on 100, 1,000 and 10,000 files, cold and warm;
- `scale_shell.py`: the check after each shell command on 1,000 and 10,000-file git workspaces;
- `scale_cli.py`: warm CLI symbol commands against `python -c pass`;
- `scale_cxx.py`: C++ classification against a bare tree-sitter parse;
- `scale_memory.py`: the daemon's memory on a 10,000-file workspace after 200 mixed operations.

`python benchmarks/scale.py [--record] [--only hook,index,...]`; `make bench` records them.
A benchmark that fails (its own checks of what it measured) fails the run, after the others.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PARTS = ("hook", "index", "shell", "cli", "cxx", "memory")


def main() -> None:
    record = ["--record"] if "--record" in sys.argv else []
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(PARTS)
    unknown = sorted(set(only) - set(PARTS))
    if unknown:
        sys.exit(f"scale.py: no part {', '.join(unknown)} (one of {', '.join(PARTS)})")
    failed = []
    for part in only:
        print(f"\n## scale_{part}\n", flush=True)
        if subprocess.run([sys.executable, str(HERE / f"scale_{part}.py"), *record], check=False).returncode != 0:
            failed.append(part)
    if failed:
        sys.exit(f"scale.py: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
