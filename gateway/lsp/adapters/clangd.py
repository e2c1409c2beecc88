"""clangd names out-of-line members by their qualified name: `Circle::name` is Circle/name."""

from __future__ import annotations

from gateway.lsp.adapters.base import Adapter


class ClangdAdapter(Adapter):
    def name_segments(self, name: str) -> list[str]:
        if "::" not in name or name.startswith("operator"):
            return [name]
        return [part for part in name.split("::") if part]


ADAPTER = ClangdAdapter()
