"""typescript-language-server: renames rename, they do not alias.

By default tsserver keeps every old name visible by adding text around a renamed reference
(`{ greet }` becomes `{ greet: salute }`, `export { greet }` becomes `export { salute as greet }`);
the gateway renames what it is asked to rename and nothing else.
"""

from __future__ import annotations

from typing import Any

from gateway.lsp.adapters.base import Adapter


class TypeScriptAdapter(Adapter):
    def initialization_options(self) -> dict[str, Any]:
        return {"preferences": {"providePrefixAndSuffixTextForRename": False}}


ADAPTER = TypeScriptAdapter()
