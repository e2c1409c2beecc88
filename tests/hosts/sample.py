"""The file every host test edits, and the edits: a header change (routed), the same change
broken (refused as a syntax error) and an edit inside a body (passes)."""

import subprocess
from pathlib import Path

SOURCE = '''import functools


class PriceList:
    def __init__(self, prices):
        self.prices = prices

    @functools.cache
    def total(self, tax):
        return sum(self.prices) * tax

    def count(self):
        return len(self.prices)
'''
OLD = "    def total(self, tax):\n        return sum(self.prices) * tax\n"
NEW = "    def total(self, tax, discount=0):\n        return sum(self.prices) * tax - discount\n"
BROKEN = "    def total(self, tax:\n        return (sum(self.prices) * tax\n"
ROUTED = SOURCE.replace(OLD, NEW)
BODY_OLD, BODY_NEW = "        return len(self.prices)\n", "        return len(self.prices) + 0\n"


def prices_workspace(tmp_path: Path) -> Path:
    """A git repository at `tmp_path/ws` holding prices.py (SOURCE)."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "prices.py").write_text(SOURCE)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root
