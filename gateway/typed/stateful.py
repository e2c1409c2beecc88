"""What the watch and the arming of enforcement use of a workspace's typed-edit state
(`typed.service.TypedEdits`, which hands itself to them): named here, so that they need not
import the service that imports them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gateway.typed.audit import AuditLog
    from gateway.typed.config import TypedEditsConfig
    from gateway.typed.grants import GrantStore
    from gateway.workspace import Workspace


class TypedState(Protocol):
    workspace: Workspace
    clock: Callable[[], float]
    state: Path
    grants: GrantStore
    log: AuditLog

    def config(self) -> TypedEditsConfig: ...

    def consume(self, path: str, digest: str | None, operation: str, result: str | None = None) -> bool: ...

    def record(self, phase: str, operation: str, files: list[dict[str, Any]], **fields: Any) -> None: ...
