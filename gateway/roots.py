"""Where a workspace's `.gateway` directory is. Standard library only, for the hook's client."""

from __future__ import annotations

import os

CONFIG_FILE = os.path.join(".gateway", "config.toml")  # a workspace's config (gateway.config reads it)


def has_config(root: str | os.PathLike[str]) -> bool:
    """Whether something is at `root`'s config path (gateway.config says what, and refuses what is not a file)."""
    return os.path.lexists(os.path.join(root, CONFIG_FILE))


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
