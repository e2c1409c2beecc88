"""Whether a backend label tells the truth about what produced a result."""

from __future__ import annotations

from gateway.api import Gateway


def claims_absent_server(gateway: Gateway, label: str) -> bool:
    """True when `label` says a language server produced the result (`lsp:NAME`) while no server
    of that name runs in the gateway's sessions: tree-sitter produced it."""
    if not label.startswith("lsp:"):
        return False
    name = label.removeprefix("lsp:").split(" ")[0]
    return name not in {session.name for session in gateway.sessions.running()}
