"""Where a workspace's `.gateway` directory is. Standard library only, for the hook's client."""

from __future__ import annotations

import os


def gateway_root(start: str | os.PathLike[str]) -> str | None:
    """The nearest directory at or above `start` (its real path) that holds a `.gateway` directory."""
    candidate = os.path.realpath(start)
    while True:
        if os.path.isdir(os.path.join(candidate, ".gateway")):
            return candidate
        parent = os.path.dirname(candidate)
        if parent == candidate:
            return None
        candidate = parent
