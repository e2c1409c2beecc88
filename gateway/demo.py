"""`make demo`: the gate refusing an agent's structural string edit, and the symbol operation doing it."""

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
NEW_INIT = "def __init__(self, prices):\n    self.prices = {name: int(cents) for name, cents in prices}"
BODY_ONLY_OLD = "        self.prices = {name: int(cents) for name, cents in prices}\n"
BODY_ONLY_NEW = BODY_ONLY_OLD + "        self.currency = 'EUR'\n"


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
        prices = workspace / "prices.py"
        prices.write_text(SAMPLE)
        print(f"Sample workspace {workspace} with prices.py:\n\n{SAMPLE}")
        print("1. An agent rewrites a decorated method by string replacement. The gate refuses:")
        blocked = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_OLD, "--new", STRUCTURAL_NEW)
        print("\n2. The same edit with --route is performed as a symbol operation (range from the language server):")
        routed = _run(workspace, "edit", "prices.py", "--old", STRUCTURAL_OLD, "--new", STRUCTURAL_NEW, "--route")
        print("\n3. Or call a symbol operation directly, by name path:")
        replaced = _run(workspace, "replace-symbol", "PriceList/__init__", "prices.py", "--body", NEW_INIT)
        print("\n4. An edit inside a body touches no definition and goes through as text:")
        applied = _run(workspace, "edit", "prices.py", "--old", BODY_ONLY_OLD, "--new", BODY_ONLY_NEW)
        print(f"\nprices.py now:\n\n{prices.read_text()}")
        if (blocked, routed, replaced, applied) != (3, 0, 0, 0) or "discount=0" not in prices.read_text():
            sys.exit("demo: the gateway did not behave as shown above")


if __name__ == "__main__":
    main()
