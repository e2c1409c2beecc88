"""A fake language server for fault injection only: crash, hang, garbage or a workspace that
never finishes loading, or no symbols at all, by $FAKE_LSP_MODE.

In mode "ok" it answers documentSymbol with one function `f` on the file's first two lines.
"""

from __future__ import annotations

import os
import sys
import time

from lsprotocol import types
from pygls.server import LanguageServer

server = LanguageServer("fake-lsp", "0.1")


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
def document_symbol(params: types.DocumentSymbolParams) -> object:
    mode = os.environ.get("FAKE_LSP_MODE", "ok")
    if mode == "crash":
        os._exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        return "not a list of symbols"
    if mode == "malformed":
        return [{"name": "f", "kind": 12}]
    if mode == "empty":  # as a server does for a file outside the project it loaded
        return []
    return [
        types.DocumentSymbol(
            name="f",
            kind=types.SymbolKind.Function,
            range=types.Range(types.Position(0, 0), types.Position(1, 12)),
            selection_range=types.Range(types.Position(0, 4), types.Position(0, 5)),
        )
    ]


@server.feature(types.INITIALIZED)
def initialized(params: types.InitializedParams) -> None:
    if os.environ.get("FAKE_LSP_MODE") == "loading":  # says it is importing the project, and never that it is done
        server.send_notification("language/status", {"type": "Starting", "message": "42% Importing projects"})


if __name__ == "__main__":
    if "--version" in sys.argv:
        print("fake-lsp 0.1")
        sys.exit(0)
    server.start_io()
