"""`make demo` end to end: it shows each edit it sends, typed edits and a contract, and what to try next."""

from __future__ import annotations

import pytest

import subprocess
import sys
from pathlib import Path

pytestmark = pytest.mark.usefixtures("processes")

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_prints_its_edits_and_what_to_try_next() -> None:
    done = subprocess.run([sys.executable, "-m", "gateway.demo"], cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    out = done.stdout
    assert "'...'" not in out
    assert "  new_string:\n    |     @functools.cache\n    |     def total(self, *items, discount=0):\n" in out
    assert "$ gateway edit prices.py --old $OLD --new $NEW --route\n  $OLD:\n" in out
    assert "refused (undeclared)" in out and "$ gateway declare edit_cosmetic" in out
    assert "Contract count-items applied and validated." in out
    tail = out[out.index("What to try next:"):]
    assert all(text in tail for text in ("gateway hook install claude-code", "gateway servers", "benchmarks/replay.py --repo"))
