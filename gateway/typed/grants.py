"""Grants: single-use permissions per file, bound to the file's SHA-256, expiring.

Kept in `.gateway/state/grants.json`, rewritten atomically under a lock file so that
concurrent declarations and writes (several processes) never lose or double-spend one.
Only a token's hash is stored. Every entry is signed with the user's key (gateway.userstate);
an entry written or altered by hand is never honoured, and is reported as `forged`.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from gateway.errors import Forged, GrantRefused
from gateway.typed.audit import locked
from gateway.userstate import sign, verified
from gateway.atomic import write_new_text

STORE_NAME = "grants.json"
# Long-expired grants are dropped from the store; the audit log keeps their history.
RETAIN_EXPIRED_SECONDS = 24 * 3600


SIGNED_AS = "grant"


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """A random token that never reads as a command-line option."""
    token = secrets.token_urlsafe(18)
    while token.startswith("-"):
        token = secrets.token_urlsafe(18)
    return token


@dataclass
class Grant:
    edit_id: str
    token_sha256: str
    kind: str
    target: str | None
    provenance: str
    execution_state: str
    issued_at: float
    expires_at: float
    files: dict[str, str | None]
    """Workspace-relative path -> the file's SHA-256 when declared (None: the file did not exist)."""
    consumed: dict[str, float] = field(default_factory=dict)
    results: dict[str, list[str]] = field(default_factory=dict)
    """Path -> the SHA-256s the one write it allowed may leave (empty: the first seen after it is settled)."""

    def state(self, path: str, digest: str | None, now: float) -> str:
        """live, consumed, expired or stale for one of its files."""
        if path in self.consumed:
            return "consumed"
        if now >= self.expires_at:
            return "expired"
        return "live" if self.files[path] == digest else "stale"


@dataclass(frozen=True)
class Reservation:
    """The grants a write consumed, one per file, until the write succeeds or is released."""

    uses: tuple[tuple[Grant, str], ...]


_PRECEDENCE = ("forged", "stale", "consumed", "expired")
_EXPLAIN = {
    "undeclared": "no declaration covers it; declare the edit first (gateway declare KIND --file {path} ...)",
    "stale": "it changed since it was declared (hash mismatch); declare again against the current file",
    "consumed": "its grant was already used (grants are single use per file); declare again",
    "expired": "its grant expired; declare again",
    "forged": "the only grant naming it is not signed by this user's key (written or altered by hand); declare again",
}


class GrantStore:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / STORE_NAME
        self.lock_path = state_dir / "grants.lock"

    def _load(self) -> tuple[list[Grant], set[str]]:
        """The signed grants, and the paths that entries failing verification name."""
        if not self.path.exists():
            return [], set()
        try:
            entries = json.loads(self.path.read_text("utf-8"))["grants"]
            if not isinstance(entries, list):
                raise TypeError
        except (ValueError, KeyError, TypeError):
            raise Forged(f"{self.path.name}: not a grant store (refusing every grant; delete it to start again)") from None
        grants, forged = [], set()
        for entry in entries:
            try:
                grants.append(Grant(**verified(entry, SIGNED_AS, STORE_NAME)))
            except (Forged, TypeError):
                files = entry.get("files") if isinstance(entry, dict) else None
                forged |= {p for p in files if isinstance(p, str)} if isinstance(files, dict) else set()
        return grants, forged

    def _save(self, grants: list[Grant], now: float) -> None:
        kept = [g for g in grants if g.expires_at > now - RETAIN_EXPIRED_SECONDS]
        entries = [sign(asdict(g), SIGNED_AS) for g in kept]
        write_new_text(self.path, json.dumps({"grants": entries}, indent=1) + "\n")

    def issue(self, template: Grant, now: float) -> tuple[str, Grant]:
        """Store a grant like `template` under a new token; returns the token (shown once) and the grant."""
        token = new_token()
        grant = Grant(**{**asdict(template), "token_sha256": token_digest(token)})
        with locked(self.lock_path):
            grants, _ = self._load()
            grants.append(grant)
            self._save(grants, now)
        return token, grant

    def reserve(self, files: dict[str, str | None], token: str | None, now: float, required: bool,
                results: Callable[[], dict[str, list[str]]] | None = None) -> Reservation:
        """Consume one live grant per file whose hash matches, or none at all (`results`: the
        SHA-256s each write may leave, worked out only if a grant is consumed).

        `required`: refuse (GrantRefused with the tagged reason) a file without one; else
        such a file is simply left out. A presented token must match, enforced or not.
        """
        with locked(self.lock_path):
            grants, forged = self._load()
            wanted = token_digest(token) if token else None
            uses = []
            for path, digest in files.items():
                candidates = [g for g in grants if path in g.files and (wanted is None or g.token_sha256 == wanted)]
                live = [g for g in candidates if g.state(path, digest, now) == "live"]
                if live:
                    uses.append((min(live, key=lambda g: g.expires_at), path))
                    continue
                if not required and token is None:
                    continue
                states = {g.state(path, digest, now) for g in candidates} | ({"forged"} if path in forged else set())
                reason = next((s for s in _PRECEDENCE if s in states), "undeclared")
                detail = "the token matches no declaration covering it" if wanted and not candidates else _EXPLAIN[reason].format(path=path)
                raise GrantRefused(reason, path, f"{path}: refused ({reason}): {detail}")
            leaves = results() if uses and results is not None else {}
            for grant, path in uses:
                grant.consumed[path] = now
                grant.results[path] = list(leaves.get(path, []))
            if uses:
                self._save(grants, now)
        return Reservation(tuple(uses))

    def covers(self, path: str, digest: str | None, since: float, now: float) -> bool:
        """Whether a grant used at or after `since` (by a write the gate saw) allowed `path` to hold
        `digest`: exactly the bytes that one write leaves, never a later rewrite. A use whose result
        was not known when it was consumed is settled here, on the first bytes seen after it."""
        if digest is None:
            return False
        with locked(self.lock_path):
            grants, _ = self._load()
            for grant in grants:
                if grant.consumed.get(path, -1.0) < since:
                    continue
                expected = grant.results.get(path, [])
                if digest in expected:
                    return True
                if not expected:
                    grant.results[path] = [digest]
                    self._save(grants, now)
                    return True
        return False

    def settle(self, reservation: Reservation, after: dict[str, str | None], now: float) -> None:
        """Record the bytes a gated write left, so that the grant covers exactly those."""
        if not reservation.uses:
            return
        with locked(self.lock_path):
            grants = {g.edit_id: g for g in self._load()[0]}
            for grant, path in reservation.uses:
                if grant.edit_id in grants and after.get(path):
                    grants[grant.edit_id].results[path] = [str(after[path])]
            self._save(list(grants.values()), now)

    def release(self, reservation: Reservation, now: float) -> None:
        """Give back what a failed write reserved."""
        if not reservation.uses:
            return
        with locked(self.lock_path):
            grants = {g.edit_id: g for g in self._load()[0]}
            for grant, path in reservation.uses:
                if grant.edit_id in grants:
                    grants[grant.edit_id].consumed.pop(path, None)
                    grants[grant.edit_id].results.pop(path, None)
            self._save(list(grants.values()), now)
