"""`Gateway(workspace)`: the facade every surface calls, the engine plus its lifecycle (a `with`
block closes the language servers) and the workspace's reports: typed-edit kinds, the audit,
contracts, servers."""

from __future__ import annotations

from typing import Any

from gateway.engine import Engine
from gateway.results import EditResult
from gateway.errors import Tampered, UsageError
from gateway.typed.audit import select, summarize
from gateway.typed.declaration import Declaration
from gateway.typed.kinds import catalogue

__all__ = ["EditResult", "Gateway"]


class Gateway(Engine):
    """The engine on one workspace, with the operations that report on it."""

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def declare(self, declaration: Declaration) -> dict[str, Any]:
        return self.typed.declare(declaration)

    def kinds(self) -> dict[str, Any]:
        return {"ok": True, "kinds": [kind.to_json() for kind in catalogue().kinds.values()]}

    def audit_log(self, since: str | None = None, kind: str | None = None) -> dict[str, Any]:
        read = self.typed.log.read()
        try:
            entries = select(read.entries, since, kind)
        except ValueError:
            raise UsageError(f"--since wants an ISO 8601 time such as 2026-11-21T09:30:00Z, not {since!r}") from None
        return {"ok": True, "entries": entries, "log_warnings": read.warnings}

    def audit_verify(self) -> dict[str, Any]:
        """The audit log's hash chain checked against its signed head; Tampered says where it was cut."""
        result = self.typed.log.verify()
        if not result["ok"]:
            raise Tampered(result["message"])
        return result

    def audit_summary(self) -> dict[str, Any]:
        read = self.typed.log.read()
        return {**summarize(read.entries), "log_warnings": read.warnings}

    def contract_check(self, path: str) -> dict[str, Any]:
        from gateway.contracts.apply import pending_recovery, read_contract, report
        from gateway.contracts.check import check_contract

        contract = read_contract(self, path)
        return report(check_contract(self, contract), interrupted=pending_recovery(self))

    def contract_apply(self, path: str, keep_on_failure: bool = False) -> dict[str, Any]:
        from gateway.contracts.apply import apply_contract

        return apply_contract(self, path, keep_on_failure)

    def contract_new(self, contract_id: str, files: list[str], output: str | None = None) -> dict[str, Any]:
        from gateway.contracts.context import new_contract

        return new_contract(self, contract_id, files, output)

    def context(self) -> dict[str, Any]:
        from gateway.contracts.context import workspace_context

        return workspace_context(self)

    def servers(self) -> dict[str, Any]:
        """Each language's server and backend; a found server with files here is started in the
        workspace and called working only if it answers and reports no failure to load it."""
        from gateway.symbols.servers import server_status

        return {"ok": True, "languages": server_status(self.registry, self.sessions.use_servers, self.symbol_service)}
