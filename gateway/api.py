"""`Gateway(workspace)`: the facade every surface calls, the engine plus its lifecycle (a `with`
block closes the language servers) and the workspace's reports: typed-edit kinds, the audit,
contracts, servers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gateway.engine import Engine
from gateway.results import EditResult, Listing, Summary
from gateway.errors import Tampered, UsageError
from gateway.typed.audit import select, summarize
from gateway.typed.declaration import Declaration
from gateway.typed.kinds import catalogue

if TYPE_CHECKING:  # the result types of the facade's operations, named for its callers too
    from gateway.contracts.apply import ContractReport
    from gateway.contracts.context import NewContract, WorkspaceContext
    from gateway.gate.verdict import Classification as Classification  # re-exported: the operation table names it
    from gateway.typed.chain import ChainCheck
    from gateway.typed.service import Declared

__all__ = ["EditResult", "Gateway"]


class Gateway(Engine):
    """The engine on one workspace, with the operations that report on it."""

    def __enter__(self) -> Gateway:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def declare(self, declaration: Declaration) -> Declared:
        return self.typed.declare(declaration)

    def kinds(self) -> Listing:
        return Listing("kinds", tuple(catalogue().kinds.values()))

    def audit_log(self, since: str | None = None, kind: str | None = None) -> Listing:
        read = self.typed.log.read()
        try:
            entries = select(read.entries, since, kind)
        except ValueError:
            raise UsageError(f"--since wants an ISO 8601 time such as 2026-11-21T09:30:00Z, not {since!r}") from None
        return Listing("entries", tuple(entries), tuple(read.warnings))

    def audit_verify(self) -> ChainCheck:
        """The audit log's hash chain checked against its signed head; Tampered says where it was cut."""
        result = self.typed.log.verify()
        if not result.ok:
            raise Tampered(result.message)
        return result

    def audit_summary(self) -> Summary:
        read = self.typed.log.read()
        return Summary(summarize(read.entries), tuple(read.warnings))

    def contract_check(self, path: str) -> ContractReport:
        from gateway.contracts.apply import ContractReport, pending_recovery, read_contract
        from gateway.contracts.check import check_contract

        contract = read_contract(self, path)
        return ContractReport(check_contract(self, contract), interrupted=tuple(pending_recovery(self)))

    def contract_apply(self, path: str, keep_on_failure: bool = False) -> ContractReport:
        from gateway.contracts.apply import apply_contract

        return apply_contract(self, path, keep_on_failure)

    def contract_new(self, contract_id: str, files: list[str], output: str | None = None) -> NewContract:
        from gateway.contracts.context import new_contract

        return new_contract(self, contract_id, files, output)

    def context(self) -> WorkspaceContext:
        from gateway.contracts.context import workspace_context

        return workspace_context(self)

    def servers(self) -> Listing:
        """Each language's server and backend; a found server with files here is started in the
        workspace and called working only if it answers and reports no failure to load it."""
        from gateway.symbols.servers import server_status

        return Listing("languages", tuple(server_status(self.registry, self.sessions.use_servers, self.symbol_service)))
