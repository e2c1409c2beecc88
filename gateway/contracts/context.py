"""What a contract author starts from: the workspace's dirty, recent and most-edited files, and a skeleton."""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gateway.errors import UsageError
from gateway.gitcalls import git_text
from gateway.typed.audit import timestamp
from gateway.atomic import sha256, write_new_text

if TYPE_CHECKING:
    from gateway.engine import Engine

SKIPPED = {".git", ".gateway", ".venv", "venv", "node_modules", "__pycache__", ".tools", "build", "dist", "target", ".mypy_cache", ".pytest_cache"}
SHOWN = 15


def _recent(root: Path) -> list[tuple[float, str]]:
    found = []
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = [d for d in subdirs if d not in SKIPPED]
        for name in files:
            path = Path(directory) / name
            try:
                found.append((path.stat().st_mtime, path.relative_to(root).as_posix()))
            except OSError:
                continue
    return sorted(found, reverse=True)[:SHOWN]


@dataclass(frozen=True)
class WorkspaceContext:
    """The workspace snapshot a contract author starts from; each row a path with what is known of it."""

    root: str
    git: bool
    dirty: tuple[dict[str, Any], ...]
    recent: tuple[dict[str, Any], ...]
    audit_recent: tuple[dict[str, Any], ...]
    audit_frequent: tuple[dict[str, Any], ...]

    def to_json(self) -> dict[str, Any]:
        return {"ok": True, "root": self.root, "git": self.git, "dirty": list(self.dirty), "recent": list(self.recent),
                "audit_recent": list(self.audit_recent), "audit_frequent": list(self.audit_frequent)}


@dataclass(frozen=True)
class NewContract:
    """A contract skeleton written to `path`."""

    path: str
    contract: str
    files: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"ok": True, "path": self.path, "contract": self.contract, "files": list(self.files)}


def workspace_context(gateway: Engine) -> WorkspaceContext:
    root = gateway.workspace.root

    def language(path: str) -> str | None:
        lang = gateway.registry.for_path(path)
        return lang.name if lang else None

    status = git_text(root, "status", "--porcelain=v1", "-z", "--untracked-files=all")
    dirty = []
    if status is not None:
        entries = iter(status.split("\0"))
        for entry in entries:
            if not entry:
                continue
            code, path = entry[:2], entry[3:]
            if code[0] in "RC":
                next(entries, None)  # the rename's source path follows
            dirty.append({"path": path, "status": code.strip() or "?", "language": language(path)})
    consumed = [e for e in gateway.typed.log.read().entries if e.get("phase") == "consumed"]
    recent_edits: dict[str, str] = {}
    for entry in reversed(consumed):
        for file in entry.get("files", []):
            recent_edits.setdefault(file["path"], entry.get("timestamp", ""))
    counts = Counter(f["path"] for e in consumed for f in e.get("files", []))
    return WorkspaceContext(
        str(root),
        status is not None,
        tuple(dirty),
        tuple({"path": p, "modified": timestamp(m), "language": language(p)} for m, p in _recent(root)),
        tuple({"path": p, "last_edit": t, "language": language(p)} for p, t in list(recent_edits.items())[:SHOWN]),
        tuple({"path": p, "edits": n, "language": language(p)} for p, n in counts.most_common(SHOWN)),
    )


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def new_contract(gateway: Engine, contract_id: str, files: list[str], output: str | None) -> NewContract:
    """A skeleton contract with the files' current hashes (and git HEAD as base) filled in."""
    workspace = gateway.workspace
    if not contract_id or not all(c.isalnum() or c in "-_." for c in contract_id):
        raise UsageError(f"--id {contract_id!r}: use letters, digits, '-', '_' and '.'")
    target = Path(output) if output else workspace.root / "contracts" / f"{contract_id}.toml"
    if target.exists():
        raise UsageError(f"{target}: already exists; not overwriting a contract")
    lines = [
        "[contract]",
        f"id = {_quoted(contract_id)}",
        'summary = "TODO: what this contract changes and why"',
        'fallback = "If any anchor does not match, stop and regenerate the contract."',
    ]
    head = git_text(workspace.root, "rev-parse", "HEAD")
    if head is not None:
        lines.append(f"base = {_quoted(head.strip())}  # files changed since this commit are stale")
    for name in files:
        real = workspace.resolve(name)
        display = workspace.display(real)
        lines += ["", "[[files]]", f"path = {_quoted(display)}"]
        if real.is_file():
            lines.append(f"sha256 = {_quoted(sha256(real.read_bytes()))}")
    first = workspace.display(workspace.resolve(files[0])) if files else "path/to/file"
    lines += [
        "",
        "# Steps run in order, each on the text the earlier ones leave. Text actions: replace, insert_before,",
        "# insert_after, delete (anchor or anchor_regex, matching exactly once), create (text only).",
        "# Symbol actions: replace_symbol, insert_code (position = before|after), remove_symbol, rename_symbol (new_name).",
        "[[steps]]",
        'id = "first-step"',
        f"file = {_quoted(first)}",
        'action = "replace"',
        "anchor = \"TODO: exact text that occurs once\\n\"",
        "text = \"TODO: its replacement\\n\"",
        "",
        "[[validate]]",
        'run = "TODO: the command that proves the change, e.g. python -m pytest -q"',
        "timeout = 300",
        "",
    ]
    target.parent.mkdir(parents=True, exist_ok=True)
    write_new_text(target, "\n".join(lines))
    return NewContract(str(target), contract_id, tuple(workspace.display(workspace.resolve(f)) for f in files))
