"""What the workspace watch (gateway.watcher) asks git: what its index holds, which directories it
ignores whole, and which of some new paths it ignores."""

from __future__ import annotations

import subprocess
from collections.abc import Iterable
from pathlib import Path

from gateway.gitcalls import GIT_TIMEOUT_SECONDS, git


class Unwatched(Exception):
    """The watch cannot go on (no watch could be added, or git cannot list what it ignores)."""


def tracked(root: Path) -> set[str] | None:
    done = git(root, "ls-files", "-z", "--cached", "--", ".")
    return None if done is None else {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}


def ignored_directories(root: Path) -> set[str]:
    """The directories git ignores whole (nothing in them tracked), relative to `root`."""
    done = git(root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", "--", ".")
    if done is None:
        raise Unwatched("git could not list what it ignores")
    return {p.rstrip("/") for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p.endswith("/")}


def check_ignore(root: Path, paths: Iterable[str]) -> set[str] | None:
    """Those of `paths` git ignores; None when git cannot say."""
    paths = list(paths)
    if not paths:
        return set()
    try:
        done = subprocess.run(["git", "check-ignore", "-z", "--stdin"], cwd=root, capture_output=True, timeout=GIT_TIMEOUT_SECONDS,
                              input="\0".join(paths).encode("utf-8", "surrogateescape"))
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode not in (0, 1):
        return None
    return {p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p}
