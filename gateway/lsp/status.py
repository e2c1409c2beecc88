"""`gateway servers`: each language's server, whether it is installed, and the backend in use."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.langs import LanguageRegistry
from gateway.lsp.discovery import find_server, server_version


def server_status(registry: LanguageRegistry, use_servers: bool) -> list[dict[str, Any]]:
    rows = []
    for lang in sorted(registry.languages.values(), key=lambda lang: lang.name):
        command = find_server(lang.server)
        if not lang.symbol_backend:
            backend = "none"
        elif command and use_servers:
            backend = f"lsp:{Path(command[0]).name}"
        else:
            backend = "tree-sitter"
        rows.append(
            {
                "language": lang.name,
                "server": lang.server.name,
                "command": " ".join(lang.server.command),
                "found": command is not None,
                "path": command[0] if command else None,
                "version": server_version(command[0], lang.server.version_args) if command else None,
                "backend": backend,
                "install": None if command else lang.server.install,
            }
        )
    return rows
