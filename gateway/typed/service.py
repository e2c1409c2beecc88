"""Typed edits on one workspace: declare, authorize writes against grants, log every attempt."""

from __future__ import annotations

import contextlib
import dataclasses
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.results import failure
from gateway.errors import GatewayError, GrantRefused, OutsideWorkspace
from gateway.typed.audit import AuditLog, timestamp
from gateway.typed.config import TypedEditsConfig, load_config
from gateway.typed.declaration import Declaration, Finding, Verdict, check_fields, judge
from gateway.typed.grants import Grant, GrantStore, Reservation
from gateway.typed.state import state_dir
from gateway.atomic import file_digest
from gateway.workspace import Workspace


@dataclass
class Attempt:
    """The write being attempted: which operation, with which token (None: look one up), and
    the symbol operations it was routed as."""

    operation: str
    token: str | None
    operations: list[dict[str, Any]] = field(default_factory=list)


# Set around one gateway operation; the workspace's write consults it at the moment of writing.
_attempt: ContextVar[Attempt | None] = ContextVar("gateway_typed_attempt", default=None)


@dataclass(frozen=True)
class Declared:
    """A declaration judged: the audit entry it logged, and the grant's token when it was issued,
    else the finding that refused it."""

    entry: dict[str, Any]
    token: str | None = None
    refused: Finding | None = None

    @property
    def issued(self) -> bool:
        return self.token is not None

    def to_json(self) -> dict[str, Any]:
        if self.token is not None:
            return {"ok": True, "issued": True, "token": self.token, **self.entry}
        assert self.refused is not None
        return {"ok": False, "issued": False, **self.entry,
                "error": failure("declaration_refused", self.refused.message, code=self.refused.code)}


class TypedEdits:
    """The workspace's declarations, grants and audit log; also its write authorizer."""

    def __init__(self, workspace: Workspace, clock: Callable[[], float] = time.time) -> None:
        self.workspace = workspace
        self.clock = clock
        state = state_dir(workspace.root)
        self.state = state
        self.grants = GrantStore(state)
        self.log = AuditLog(state)

    def config(self) -> TypedEditsConfig:
        return load_config(self.workspace.root)

    # Declarations

    def declare(self, declaration: Declaration) -> Declared:
        """Judge a declaration; issue a grant bound to the files' current hashes if accepted."""
        check_fields(declaration)
        now, edit_id = self.clock(), uuid.uuid4().hex[:16]
        config = self.config()
        resolved, problem = self._resolve(declaration, config)
        declaration = resolved
        verdict = Verdict(problem) if problem else judge(declaration)
        files = {entry["path"]: entry["sha256"] for entry in map(self._file_entry, declaration.all_files)}
        entry: dict[str, Any] = {
            "edit_id": edit_id,
            "timestamp": timestamp(now),
            "kind": declaration.kind,
            "files": [{"path": path, "sha256": digest} for path, digest in files.items()],
            "target": declaration.target,
            "provenance": declaration.provenance,
            "execution_state": declaration.execution_state,
            "rationale": declaration.rationale,
            "test_files": list(declaration.test_files),
            "additional_files": list(declaration.additional_files),
            **verdict.to_json(),
        }
        if not verdict.accepted:
            self.log.append({"phase": "rejected", "operation": "declare", **entry})
            return Declared(entry, refused=verdict.error)
        template = Grant(
            edit_id=edit_id,
            token_sha256="",
            kind=declaration.kind,
            target=declaration.target,
            provenance=declaration.provenance,
            execution_state=declaration.execution_state,
            issued_at=now,
            expires_at=now + config.grant_ttl_seconds,
            files=files,
        )
        token, grant = self.grants.issue(template, now)
        entry["expires_at"] = timestamp(grant.expires_at)
        self.log.append({"phase": "issued", **entry})
        return Declared(entry, token)

    def _resolve(self, declaration: Declaration, config: TypedEditsConfig) -> tuple[Declaration, Finding | None]:
        """Paths made workspace-relative; a path outside, a directory or a protected path refuses."""

        def each(paths: Sequence[str]) -> tuple[str, ...]:
            return tuple(self.workspace.display(self.workspace.resolve(p)) for p in paths)

        try:
            resolved = dataclasses.replace(
                declaration,
                files=each(declaration.files),
                test_files=each(declaration.test_files),
                additional_files=each(declaration.additional_files),
            )
        except OutsideWorkspace as error:
            return declaration, Finding("outside_workspace", str(error))
        for path in resolved.all_files:
            if (self.workspace.root / path).is_dir():
                return resolved, Finding("not_a_file", f"{path or '.'}: a directory; declare files")
            glob = config.protected_glob(path)
            if glob:
                return resolved, Finding("protected_path", f"{path}: protected ({glob}); no declaration may cover it")
        return resolved, None

    # Writes

    @contextlib.contextmanager
    def attempt(self, operation: str, token: str | None, paths: Sequence[str]) -> Iterator[None]:
        """Around one gateway write operation: the token reaches the write; a failure is logged."""
        marker = _attempt.set(Attempt(operation, token))
        try:
            yield
        except GatewayError as error:
            if token is not None or self.config().enforce:
                self._log_rejection(operation, [error.path] if isinstance(error, GrantRefused) else paths, error)
            raise
        finally:
            _attempt.reset(marker)

    @contextlib.contextmanager
    def authorize(self, files: Mapping[str, str | None]) -> Iterator[None]:
        """The workspace's write authorizer: consume a grant per file, give them back on failure."""
        attempt = _attempt.get() or Attempt("write", None)
        reservation = self._reserve(dict(files), attempt.token)
        try:
            yield
        except BaseException:
            self.grants.release(reservation, self.clock())
            raise
        after = {path: file_digest(self.workspace.root / path) for path in files}
        self.grants.settle(reservation, after, self.clock())
        self._log_consumed(attempt.operation, reservation, after, attempt.operations)

    def note_operations(self, operations: list[dict[str, Any]]) -> None:
        """The write under way was routed as these symbol operations; its audit entry lists them."""
        attempt = _attempt.get()
        if attempt is not None:
            attempt.operations = operations

    def native_write(self, path: Path, operation: str, operations: list[dict[str, Any]] | None = None,
                     results: Callable[[], list[str]] | None = None) -> None:
        """An agent's own edit tool is about to write `path` (the hook): consume its grant now, for
        exactly the bytes the write leaves (`results`: their possible SHA-256s, when known). The
        file and the results are hashed only where a grant may be consumed (a long file's hashes
        are most of a hook's time, and most writes are of no declared edit)."""
        if self._no_grant_needed(None):
            return
        display = self.workspace.display(self.workspace.resolve(path))
        try:
            reservation = self._reserve({display: file_digest(path)}, None, lambda: {display: results() if results is not None else []})
        except GrantRefused as error:
            self._log_rejection(operation, [display], error)
            raise
        self._log_consumed(operation, reservation, {}, operations or [])

    def consume(self, path: str, digest: str | None, operation: str, result: str | None = None) -> bool:
        """A write that already happened (a shell command) takes a live grant for `path` as it was,
        for the bytes it left (`result`); False if none."""
        reservation = self.grants.reserve({path: digest}, None, self.clock(), required=False, results=lambda: {path: [result] if result else []})
        if reservation.uses:
            self._log_consumed(operation, reservation, {path: file_digest(self.workspace.root / path)}, [])
        return bool(reservation.uses)

    def refuse(self, operation: str, paths: Sequence[str], error: GatewayError) -> None:
        """Record an attempt refused before it reached a write (gate block, Bash guard)."""
        self._log_rejection(operation, paths, error)

    def _no_grant_needed(self, token: str | None) -> bool:
        """Whether a write consumes no grant here and needs none: typed edits are not enforced, no
        token is presented, and no grant was ever declared."""
        return not self.config().enforce and token is None and not self.grants.path.exists()

    def _reserve(self, files: dict[str, str | None], token: str | None,
                 results: Callable[[], dict[str, list[str]]] | None = None) -> Reservation:
        config = self.config()
        if config.enforce:
            from gateway.typed.arming import refused

            tampered = refused(self)
            if tampered:
                raise GrantRefused("tampered", next(iter(files), ""), tampered)
            for path in files:
                glob = config.protected_glob(path)
                if glob:
                    raise GrantRefused("protected", path, f"{path}: refused (protected): {glob} is protected")
        if self._no_grant_needed(token):
            return Reservation(())
        return self.grants.reserve(files, token, self.clock(), required=config.enforce, results=results)

    def record(self, phase: str, operation: str, files: list[dict[str, Any]], **fields: Any) -> None:
        """Append one audit entry; the common fields not given are null, so every line has the same keys."""
        self.log.append({
            "phase": phase,
            "edit_id": None,
            "timestamp": timestamp(self.clock()),
            "operation": operation,
            "kind": None,
            "files": files,
            "target": None,
            "provenance": None,
            "execution_state": None,
            "audit_warnings": [],
            "audit_error": None,
            **fields,
        })

    def file_entries(self, paths: Sequence[str]) -> list[dict[str, Any]]:
        """Each path (once) with the SHA-256 of its bytes now."""
        return [self._file_entry(p) for p in dict.fromkeys(paths)]

    def _log_consumed(self, operation: str, reservation: Reservation, after: dict[str, str | None], routed: list[dict[str, Any]]) -> None:
        by_grant: dict[str, tuple[Grant, list[str]]] = {}
        for grant, path in reservation.uses:
            by_grant.setdefault(grant.edit_id, (grant, []))[1].append(path)
        for grant, paths in by_grant.values():
            files = [{"path": p, "sha256": grant.files[p], **({"sha256_after": after[p]} if p in after else {})} for p in paths]
            self.record(
                "consumed", operation, files, edit_id=grant.edit_id, kind=grant.kind, target=grant.target,
                provenance=grant.provenance, execution_state=grant.execution_state,
                **({"operations": routed} if routed else {}),
            )

    def _file_entry(self, path: str) -> dict[str, Any]:
        try:
            real = self.workspace.resolve(path)
        except OutsideWorkspace:
            return {"path": path, "sha256": None}
        return {"path": self.workspace.display(real), "sha256": file_digest(real)}

    def _log_rejection(self, operation: str, paths: Sequence[str], error: GatewayError) -> None:
        code = error.reason if isinstance(error, GrantRefused) else error.kind
        self.record("rejected", operation, self.file_entries(paths), audit_error={"code": code, "message": str(error)})
