"""Shell commands under enforcement: the workspace recorded before, compared after, and every
change no live grant covers put back and logged as a bypass."""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.config import STATE_DIR
from gateway.errors import Forged, GatewayError
from gateway.snapshot import Change, Snapshot, compare, prune_objects, previous_bytes, restore, take
from gateway.typed.audit import ensure_state_dir
from gateway.typed.service import TypedEdits
from gateway.userstate import sign, verified
from gateway.atomic import sha256, write_new_text

SNAPSHOTS = "shell"
SIGNED_AS = "shell-snapshot"
KEEP_SNAPSHOT_SECONDS = 24 * 3600


@dataclass(frozen=True)
class ShellOutcome:
    """What a command changed: kept under a grant, put back, or impossible to put back."""

    kept: list[str]
    restored: list[Change]
    unrestored: list[str]

    @property
    def bypassed(self) -> bool:
        return bool(self.restored or self.unrestored)

    def message(self, command: str) -> str:
        shown = ", ".join(f"{c.path} ({c.what})" for c in self.restored)
        parts = [f"The command `{command[:200]}` changed workspace files without a live grant: {shown or 'none'}."]
        if self.restored:
            parts.append("They were put back to their previous bytes (created files removed).")
        if self.unrestored:
            parts.append(f"Could not put back: {', '.join(self.unrestored)}; restore them by hand.")
        parts.append(
            "To change a file, declare the edit first (`gateway declare KIND --file PATH ...` or the gateway tool named "
            "after the kind), then write it with Edit/Write or the gateway's tools; `.gateway/` changes only through "
            "`gateway` commands the user runs."
        )
        return " ".join(parts)


def _snapshot_file(root: Path, key: str) -> Path:
    return root / STATE_DIR / SNAPSHOTS / f"{hashlib.sha256(key.encode('utf-8', 'surrogateescape')).hexdigest()[:32]}.json"


def recorded(typed: TypedEdits, key: str) -> bool:
    """Whether the workspace was recorded before the command `key`."""
    return _snapshot_file(typed.workspace.root, key).exists()


def before_command(typed: TypedEdits, key: str, command: str) -> None:
    """Record the workspace before the command `key` runs."""
    root = typed.workspace.root
    path = _snapshot_file(root, key)
    ensure_state_dir(root / STATE_DIR)
    path.parent.mkdir(exist_ok=True)
    _prune(path.parent, root)
    snapshot = take(root)
    record = sign({"key": key, "command": command, "snapshot": snapshot.to_json()}, SIGNED_AS)
    write_new_text(path, json.dumps(record))


def _prune(directory: Path, root: Path) -> None:
    limit = time.time() - KEEP_SNAPSHOT_SECONDS
    needed: set[str] = set()
    for entry in os.scandir(directory):
        if entry.stat().st_mtime < limit:
            os.unlink(entry.path)
            continue
        try:
            needed |= {v[1] for v in json.loads(Path(entry.path).read_text("utf-8"))["snapshot"]["files"].values() if v[1]}
        except (OSError, ValueError, KeyError, TypeError, IndexError):
            continue
    prune_objects(root, needed)


def _load(root: Path, key: str) -> Snapshot:
    path = _snapshot_file(root, key)
    try:
        data = verified(json.loads(path.read_text("utf-8")), SIGNED_AS, f"shell snapshot {path.name}")
        if data.get("key") != key:
            raise Forged(f"shell snapshot {path.name}: recorded for another command (forged)")
        return Snapshot.from_json(data["snapshot"])
    except FileNotFoundError:
        raise GatewayError("no record of the workspace before this command (was enforcement turned on meanwhile?)") from None
    except (ValueError, KeyError, TypeError) as error:
        raise Forged(f"shell snapshot {path.name}: unreadable ({error})") from None


def _authorized(typed: TypedEdits, change: Change, since: float) -> bool:
    if typed.config().protected_glob(change.path):
        return False
    if typed.grants.consumed_since(change.path, since):
        return True  # a gated write (the agent's Edit, a gateway tool) ran meanwhile
    before = None
    if change.before is not None:
        data = previous_bytes(typed.workspace.root, change.before, change.path)
        if data is None:
            return False
        before = sha256(data)
    return typed.consume(change.path, before, "hook:Bash")


def after_command(typed: TypedEdits, key: str, command: str) -> ShellOutcome:
    """Compare with the record; put back and log every change no live grant covers."""
    root = typed.workspace.root
    snapshot = _load(root, key)
    kept, bypassing = [], []
    for change in compare(root, snapshot):
        (kept if _authorized(typed, change, snapshot.taken_at) else bypassing).append(change)
    unrestored = restore(root, bypassing)
    outcome = ShellOutcome(kept, [c for c in bypassing if c.path not in unrestored], unrestored)
    if outcome.bypassed:
        files: list[dict[str, Any]] = [{"path": c.path, "change": c.what} for c in bypassing]
        typed.record("bypass", "hook:Bash", files, command=command[:2000],
                     audit_error={"code": "bypass", "message": outcome.message(command)})
    _snapshot_file(root, key).unlink(missing_ok=True)
    return outcome
