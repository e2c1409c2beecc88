"""jdtls, Kotlin servers and C# servers put the parameter list in method names: `count(String)`."""

from __future__ import annotations

from gateway.lsp.adapters.base import Adapter


class SignatureNameAdapter(Adapter):
    def name_segments(self, name: str) -> list[str]:
        head = name.split("(", 1)[0].strip()
        return [head or name]


ADAPTER = SignatureNameAdapter()
