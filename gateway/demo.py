"""`make demo`: the gate refusing an agent's structural string edit on a sample workspace."""

from __future__ import annotations

import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

SAMPLE = '''import functools


class PriceList:
    """Prices in cents; `def` and `class` in this docstring are just words."""

    def __init__(self, prices):
        self.prices = dict(prices)

    @functools.cache
    def total(self, *items):
        return sum(self.prices[item] for item in items)
'''

STRUCTURAL_OLD = "    @functools.cache\n    def total(self, *items):\n        return sum(self.prices[item] for item in items)"
STRUCTURAL_NEW = "    def total(self, *items, discount=0):\n        return sum(self.prices[item] for item in items) - discount"
BODY_OLD = "    def __init__(self, prices):\n        self.prices = dict(prices)"
BODY_NEW = "    def __init__(self, prices):\n        self.prices = {name: int(cents) for name, cents in prices}"
BODY_ONLY_OLD = "        self.prices = dict(prices)\n"
BODY_ONLY_NEW = "        self.prices = dict(prices)\n        self.currency = 'EUR'\n"


def _run(workspace: Path, *args: str) -> int:
    shown = " ".join(shlex.quote(arg) if "\n" not in arg else "'...'" for arg in args)
    print(f"\n$ gateway {shown}")
    done = subprocess.run([sys.executable, "-m", "gateway", *args], cwd=workspace, capture_output=True, text=True)
    print((done.stdout + done.stderr).rstrip())
    print(f"[exit {done.returncode}]")
    return done.returncode


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="gateway-demo-") as directory:
        workspace = Path(directory)
        (workspace / "prices.py").write_text(SAMPLE)
        print(f"Sample workspace {workspace} with prices.py:\n\n{SAMPLE}")
        print("1. An agent rewrites a decorated method by string replacement (dropping the decorator):")
        blocked = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_OLD, "--new", STRUCTURAL_NEW)
        print("\n2. The same kind of edit on the constructor, header included, is refused too:")
        _run(workspace, "classify", "prices.py", "--old", BODY_OLD, "--new", BODY_NEW)
        print("\n3. An edit inside a body touches no definition and goes through:")
        applied = _run(workspace, "edit", "prices.py", "--old", BODY_ONLY_OLD, "--new", BODY_ONLY_NEW)
        unchanged_decorator = "@functools.cache" in (workspace / "prices.py").read_text()
        print(f"\nThe decorator is still there: {unchanged_decorator}.")
        if (blocked, applied, unchanged_decorator) != (3, 0, True):
            sys.exit("demo: the gate did not behave as shown above")


if __name__ == "__main__":
    main()
