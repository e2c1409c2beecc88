"""A fake language server for fault injection only: crash, hang, garbage, a workspace that
never finishes loading ("loading"), no symbols at all ("empty") or no analysis of a file it
is sent while it versions its diagnostics ("unanalysed"), by $FAKE_LSP_MODE ("flaky",
"cache-race": its first documentSymbol fails as jedi's now and then do). In modes "pull-hang"
and "pull-crash" it offers pull diagnostics and never answers a pull, or exits on one.

In mode "die-starting" it exits as it is initialised. In mode "loud" it writes a line of 100 KiB
to stderr before each documentSymbol answer (as zuban does now and then).
In mode "ok" it answers documentSymbol with one function `f` on the file's first two lines.
In mode "rename-by-text" it renames by text: every whole word of the name in the document.
$FAKE_LSP_SLOW (seconds) makes it slow: it answers initialize that much later, and before its
first documentSymbol answer it announces work ($/progress "Indexing", 40%) for as long.
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
import time

from lsprotocol import types
from pygls.server import LanguageServer

server = LanguageServer("fake-lsp", "0.1")
SLOW = float(os.environ.get("FAKE_LSP_SLOW", "0"))
indexed = False
asked = 0


@server.feature(types.INITIALIZE)
def initialize(params: types.InitializeParams) -> None:
    if os.environ.get("FAKE_LSP_MODE") == "die-starting":  # exits while it starts, answering nothing
        os._exit(5)
    time.sleep(SLOW)  # runs before the reply to initialize is sent


async def index() -> None:
    global indexed
    token = "fake-indexing"
    await server.progress.create_async(token)
    server.progress.begin(token, types.WorkDoneProgressBegin(title="Indexing", percentage=0))
    server.progress.report(token, types.WorkDoneProgressReport(message="2/5 files", percentage=40))
    await asyncio.sleep(SLOW)
    server.progress.end(token, types.WorkDoneProgressEnd())
    indexed = True


@server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
async def document_symbol(params: types.DocumentSymbolParams) -> object:
    if SLOW and not indexed:
        await index()
    return symbols()


def symbols() -> object:
    global asked
    mode = os.environ.get("FAKE_LSP_MODE", "ok")
    asked += 1
    if mode == "loud":  # blocks here once the pipe is full, unless stderr is read whatever its lines' length
        sys.stderr.write("x" * 100_000 + "\n")
        sys.stderr.flush()
    if mode == "flaky" and asked == 1:  # as jedi on CPython 3.11 now and then
        raise SystemError("AST constructor recursion depth mismatch (before=63, after=7)")
    if mode == "cache-race" and asked == 1:  # as jedi reading a parso cache file another jedi is writing
        raise EOFError("Ran out of input")
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
    if os.environ.get("FAKE_LSP_MODE") == "unanalysed":  # versions its diagnostics, and never diagnoses a file it is sent
        server.publish_diagnostics("file:///elsewhere.py", [], version=1)


if os.environ.get("FAKE_LSP_MODE") == "unanalysed":

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def references(params: types.ReferenceParams) -> list[types.Location]:
        return []


if os.environ.get("FAKE_LSP_MODE", "").startswith("pull-"):

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(inter_file_dependencies=True, workspace_diagnostics=False))
    async def pull(params: types.DocumentDiagnosticParams) -> object:
        if os.environ["FAKE_LSP_MODE"] == "pull-crash":
            os._exit(4)
        await asyncio.sleep(3600)
        return None


if os.environ.get("FAKE_LSP_MODE") == "rename-by-text":

    @server.feature(types.TEXT_DOCUMENT_RENAME)
    def rename(params: types.RenameParams) -> types.WorkspaceEdit:
        """Every whole word spelling the name at the position, renamed (what a server must not do)."""
        document = server.workspace.get_text_document(params.text_document.uri)
        lines = document.source.split("\n")
        line, column = params.position.line, params.position.character
        word = re.match(r"\w+", lines[line][column:])
        edits = [types.TextEdit(types.Range(types.Position(at, m.start()), types.Position(at, m.end())), params.new_name)
                 for at, text in enumerate(lines) for m in re.finditer(rf"\b{word.group(0)}\b", text)] if word else []
        return types.WorkspaceEdit(changes={params.text_document.uri: edits})


if __name__ == "__main__":
    if "--version" in sys.argv:
        print("fake-lsp 0.1")
        sys.exit(0)
    server.start_io()

