"""One adapter per server: what it needs at initialize and how its answers are normalised.

The operations never ask which server they talk to; whatever a server does differently
is translated here.
"""

from __future__ import annotations

from importlib import import_module

from gateway.lsp.adapters.base import Adapter

_MODULES = {
    "generic": "gateway.lsp.adapters.base",
    "jedi": "gateway.lsp.adapters.jedi",
    "zuban": "gateway.lsp.adapters.zuban",
    "typescript": "gateway.lsp.adapters.typescript",
    "gopls": "gateway.lsp.adapters.gopls",
    "clangd": "gateway.lsp.adapters.clangd",
    "rust_analyzer": "gateway.lsp.adapters.rust_analyzer",
    "jdtls": "gateway.lsp.adapters.jdtls",
    "kotlin": "gateway.lsp.adapters.signatures",
    "bash": "gateway.lsp.adapters.bash",
    "csharp": "gateway.lsp.adapters.signatures",
    "ruby": "gateway.lsp.adapters.base",
}


def adapter_for(name: str) -> Adapter:
    module = import_module(_MODULES.get(name, "gateway.lsp.adapters.base"))
    adapter: Adapter = module.ADAPTER
    return adapter
