"""Unified diffs of file changes, for every result an agent or a person reads."""

from __future__ import annotations

import difflib


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
