"""Where a workspace's typed-edit state lives: in the user's state directory, keyed by the
workspace's real path, not under the workspace where any command run in it reaches it.

`$XDG_STATE_HOME/gateway/workspaces/<sha256(real path)[:32]>/` (0700) holds the grant store,
the audit log and its signed head, the shell snapshots, the baseline of the last check and
the kept bytes (`objects/`). A file `workspace` there names the path it belongs to.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from gateway.userstate import state_home

WORKSPACES = "workspaces"
OBJECTS = "objects"


def _key(root: Path) -> str:
    return hashlib.sha256(os.path.realpath(root).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def state_path(root: Path, home: Path | None = None) -> Path:
    """The directory of `root`'s state, whether or not it exists yet (`home`: `state_home()`,
    when the caller has it)."""
    return (home or state_home()) / WORKSPACES / _key(root)


def state_dir(root: Path) -> Path:
    """The directory of `root`'s state, made private (0700) on first use."""
    directory = state_path(root)
    if not directory.is_dir():
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        (directory / "workspace").write_text(os.path.realpath(root) + "\n")
    return directory


def objects_dir(root: Path) -> Path:
    """The kept bytes of the files the snapshots of `root` recorded (content-addressed)."""
    return state_dir(root) / OBJECTS
