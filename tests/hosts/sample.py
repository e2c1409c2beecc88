"""The file every host test edits, and the edits: a header change (routed), the same change
broken (refused as a syntax error) and an edit inside a body (passes)."""

from pathlib import Path

import pytest

from tests.conftest import make_workspace

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


# The `workspace` fixture's marker for a git repository holding prices.py (SOURCE).
PRICES_WORKSPACE = pytest.mark.workspace(copy=None, files={"prices.py": SOURCE}, git="init")


def prices_workspace(tmp_path: Path) -> Path:
    """The same repository at `tmp_path/ws`, for a test that needs several."""
    return make_workspace(tmp_path / "ws", **PRICES_WORKSPACE.kwargs)
