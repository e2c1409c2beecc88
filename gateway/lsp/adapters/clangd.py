"""clangd names out-of-line members by their qualified name: `Circle::name` is Circle/name.
It lists a macro call at the top or in a class as a symbol of kind String named by the macro,
holding the definitions its expansion makes (`HANDLER(on_close)` holding `on_close`)."""

from __future__ import annotations

from typing import Any

from gateway.gate.macros import ServerMacro
from gateway.lsp.adapters.base import Adapter

_MACRO_CALL = 15  # SymbolKind.String, which clangd gives a macro call's symbol
_KINDS = {3: "namespace", 5: "class", 6: "method", 8: "field", 9: "constructor", 10: "enum", 12: "function",
          13: "variable", 14: "constant", 23: "struct", 26: "type_parameter"}


def _made(symbols: list[Any]) -> list[tuple[str, str]]:
    """What a macro call's children define, a macro call among them looked into."""
    found = []
    for symbol in symbols:
        if symbol.get("kind") == _MACRO_CALL:
            found += _made(symbol.get("children") or [])
        else:
            found.append((_KINDS.get(symbol.get("kind"), "definition"), str(symbol.get("name", ""))))
    return found


class ClangdAdapter(Adapter):
    lists_macros = True
    references_rule_on_name_matches = False

    def name_segments(self, name: str) -> list[str]:
        if "::" not in name or name.startswith("operator"):
            return [name]
        return [part for part in name.split("::") if part]

    def macro_calls(self, reply: Any) -> list[ServerMacro]:
        """The macro calls a documentSymbol reply lists, each with what it makes (a call whose
        expansion makes nothing clangd lists, or that clangd cannot expand, is not among them)."""
        found: list[ServerMacro] = []
        waiting = list(reply or [])
        while waiting:
            symbol = waiting.pop()
            if not isinstance(symbol, dict) or "range" not in symbol:
                continue  # a flat SymbolInformation list names no macro calls
            if symbol.get("kind") == _MACRO_CALL:
                line = int(symbol["range"]["start"]["line"]) + 1
                found.append(ServerMacro(line, str(symbol.get("name", "")), tuple(_made(symbol.get("children") or []))))
            else:
                waiting += symbol.get("children") or []
        return sorted(found, key=lambda m: m.line)


ADAPTER = ClangdAdapter()
