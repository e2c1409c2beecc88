"""The workspace watched between checks: every hook call compares it with the baseline the last
check left, so that a write made since (a command's background process, anything that is not a
gated write) is caught on the next event, put back and logged, whatever git or the config say now.

The baseline lives in the workspace's user state (gateway.typed.state), signed with the user's
key (gateway.typed.baseline): one altered or missing while enforcement was on is reported, never
silently trusted.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.config import CONFIG_PATH
from gateway.errors import UsageError
from gateway.snapshot import Change, FileState, Snapshot, differences, previous_bytes, restore, scan
from gateway.snapshot_delta import made_from, touched_since
from gateway.snapshot_store import mirror_dir
from gateway.typed.audit import locked
from gateway.typed.config import TypedEditsConfig, load_config
from gateway.typed.state import objects_dir
from gateway.typed.baseline import Looked, save_baseline
from gateway.watcher import look

if TYPE_CHECKING:
    from gateway.typed.stateful import TypedState

LOCK = "watch.lock"
DELETED = "deleted"
DECLARE = (
    "To change a file, declare the edit first (`gateway declare KIND --file PATH ...` or the gateway tool named "
    "after the kind), then write it with Edit/Write or the gateway's tools; `.gateway/` changes only through "
    "`gateway` commands the user runs."
)


@dataclass(frozen=True)
class Outcome:
    """What a check found: changes kept under a grant, put back, impossible to put back, and
    problems with the gateway's own state."""

    kept: list[Change] = field(default_factory=list)
    restored: list[Change] = field(default_factory=list)
    unrestored: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    tampered: str = ""
    """Why every write is refused until the user re-arms (gateway.typed.arming); "" when trusted."""

    @property
    def bypassed(self) -> bool:
        return bool(self.restored or self.unrestored or self.problems or self.tampered)

    def message(self, what: str) -> str:
        parts = [self.tampered] if self.tampered else []
        parts += self.problems
        if self.restored or self.unrestored:
            shown = ", ".join(f"{c.path} ({c.what})" for c in self.restored)
            parts.append(f"{what} changed workspace files without a live grant: {shown or 'none'}.")
        if self.restored:
            parts.append("They were put back to their previous bytes (created files removed); the bytes they had are kept "
                         "in the gateway's state (`gateway audit log` names their sha256).")
        if self.unrestored:
            parts.append(f"Could not put back: {', '.join(self.unrestored)}: the copies of their previous bytes (in the "
                         "gateway's state and in the workspace's mirror) were removed too, so those bytes are lost.")
        if not self.tampered:
            parts.append(DECLARE)
        return " ".join(parts)


def lock(typed: TypedState) -> Any:
    return locked(typed.state / LOCK)


def _config_in_force(typed: TypedState, before: Snapshot, objects: Path) -> TypedEditsConfig:
    """The settings that judge the changes since `before`: the file's now or, where a change made
    it unreadable (a command wrote a bad config, to be put back), as it was before; the defaults
    (what is always protected) when neither reads."""
    try:
        return typed.config()
    except UsageError:
        state = before.files.get(CONFIG_PATH.as_posix())
        raw = previous_bytes(objects, state, mirror_dir(typed.workspace.root)) if state is not None else None
        try:
            return load_config(typed.workspace.root, raw if raw is not None else b"")
        except UsageError:
            return load_config(typed.workspace.root, b"")


def _blobs(files: dict[str, FileState]) -> set[str]:
    """The blob ids the mirror holds for `files` (made once per baseline: callers do not change it)."""
    last = _last_blobs.get("last")
    if last is None or last[0] is not files:
        last = _last_blobs["last"] = (files, {s.blob for s in files.values()})
    return last[1]


_last_blobs: dict[str, tuple[dict[str, FileState], set[str]]] = {}


def _authorized(typed: TypedState, config: TypedEditsConfig, change: Change, since: float, during_command: bool) -> bool:
    if config.protected_glob(change.path):
        return False
    after = change.after.sha256 if change.after else None
    if typed.grants.covers(change.path, after, since, typed.clock()):
        return True  # exactly the bytes a gated write (the agent's Edit, a gateway tool) left meanwhile
    if not during_command:
        return False  # between tool calls nothing but a gated write may change a file
    before = change.before.sha256 if change.before else None
    return typed.consume(change.path, before, "hook:Bash", result=after or DELETED)


def verify(typed: TypedState, before: Snapshot, what: str, operation: str, during_command: bool, command: str | None = None,
           record: str | None = None, done: str | None = None) -> Outcome:
    """Compare the workspace with `before`; put back and log every change no grant covers; the
    workspace as it then is becomes the baseline, in the same write as the shell command
    `record` starting from it (unless a change was put back: the call is then refused) and the
    one this check closes (`done`; gateway.typed.baseline.save_baseline). Call under `lock`."""
    root, objects, started = typed.workspace.root, objects_dir(typed.workspace.root), time.time()
    seen = look(root, before.files.keys(), before.mark)
    now = scan(root, objects, mirrored=_blobs(before.files), known=before, listing=seen.listing, stats=seen.stats, changed=seen.changed,
               keep_known=True)
    again = touched_since(now, before.files) if seen.changed is not None else None
    kept, bypassing, config = [], [], _config_in_force(typed, before, objects)
    for change in differences(before.files, now, root, seen.listing, again):
        (kept if _authorized(typed, config, change, before.taken_at, during_command) else bypassing).append(change)
    unrestored = restore(root, bypassing, objects)
    files: dict[str, FileState] = dict(now)
    for change in bypassing:
        if change.path in unrestored:
            continue
        if change.before is None:
            files.pop(change.path, None)
        else:
            files[change.path] = change.before
    made_from(files, now, {c.path for c in bypassing})
    save_baseline(typed, Snapshot(files, started, seen.mark), Looked(before.files, again) if again is not None else None,
                  None if bypassing else record, done)
    outcome = Outcome(kept, [c for c in bypassing if c.path not in unrestored], unrestored)
    if outcome.bypassed:
        entries: list[dict[str, Any]] = [
            {"path": c.path, "change": c.what, **({"sha256_after": c.after.sha256} if c.after else {})} for c in bypassing
        ]
        typed.record("bypass", operation, entries, command=(command or what)[:2000],
                     audit_error={"code": "bypass", "message": outcome.message(what)})
    return outcome
