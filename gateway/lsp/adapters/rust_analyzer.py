"""rust-analyzer names impl blocks `impl Point` or `impl Display for Point`: both are Point."""

from __future__ import annotations

import re

from gateway.lsp.adapters.base import Adapter

_IMPL = re.compile(r"^impl(?:<[^>]*>)?\s+(?:.+?\s+for\s+)?(?P<type>[\w:]+)")


class RustAnalyzerAdapter(Adapter):
    path_programs = ("cargo", "rustc")

    def name_segments(self, name: str) -> list[str]:
        match = _IMPL.match(name)
        return [match.group("type").split("::")[-1]] if match else [name]


ADAPTER = RustAnalyzerAdapter()
