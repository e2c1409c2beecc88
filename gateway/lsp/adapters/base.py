"""The adapter every server starts from: standard client capabilities, names as given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gateway.gate.macros import ServerMacro

CLIENT_CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True, "symbolKind": {"valueSet": list(range(1, 27))}},
        "rename": {"prepareSupport": False, "dynamicRegistration": False},
        # Pull diagnostics: pyright offers them only by registering them (gateway.lsp.diagnostics).
        "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False},
        "publishDiagnostics": {"versionSupport": True},
    },
    "workspace": {
        "workspaceEdit": {"documentChanges": True, "resourceOperations": []},
        "workspaceFolders": True,
        "configuration": False,
        "didChangeWatchedFiles": {"dynamicRegistration": False},
    },
    "window": {"workDoneProgress": True},
}


class Adapter:
    # Whether the server publishes a file's diagnostics only after it has tried to load the
    # workspace (gopls): then what it says about loading can be waited for.
    diagnoses_after_loading = False
    # Parts of error replies the server gives now and then and not again (asked again, it answers).
    transient_errors: tuple[str, ...] = ()
    # Programs the server runs, found on the PATH it is given: two callers whose PATHs find
    # different ones get servers of their own (`discovery.launch_key`). Without one of them it
    # cannot load any workspace (gopls without `go` answers every request "no views"), so it is
    # not started where the PATH has none, and tree-sitter answers saying why (`discovery.missing_programs`).
    path_programs: tuple[str, ...] = ()
    # Whether the daemon restarts the server once it has grown by `[daemon] server_growth_mib`
    # since its first answer: for servers whose caches have no bound of their own and come
    # back quickly, not for those whose restart costs a long re-parse (clangd) or re-load.
    restart_when_grown = False
    # Whether a process about to exit may kill the server rather than ask it to shut down: it
    # keeps nothing on disk that a kill could leave half-written (jedi). Servers that keep a
    # workspace or an index (jdtls' data directory, clangd's, gopls' caches) are asked politely.
    killed_at_exit = False
    # Languages whose symbols the server answers for the text it opened, whatever it is sent
    # after (jdtls's Kotlin): while a document differs from that text, its symbols come from
    # tree-sitter.
    symbols_of_opened_text: frozenset[str] = frozenset()
    # Whether the server keeps its own view of the files on disk beside the texts it is sent:
    # then it is told (workspace/didChangeWatchedFiles) of a document it holds open that changed
    # on disk, even to the same text (jdtls refuses to rename in a file it thinks out of sync).
    # The others read an open document only from what they are sent, so they are not told: a
    # host's every write would cost a message to the server in the next hook.
    keeps_disk_view = False
    # Whether a documentSymbol range runs past its definition, up to where the next statement
    # starts (zuban: a function's range ends on the next one's line, blank lines and comments
    # between them included): the definition's extent is then the syntax tree's.
    ranges_run_on = False

    # Why the server's diagnostics cannot tell whether an edit broke the program, when they
    # cannot ("{server}": the server's name; None: they can): used only where the server offers no pull and no command for
    # them (gateway.lsp.diagnostics), whatever else it pushes.
    no_semantic_errors: str | None = None

    # Seconds without any push while files asked are unanswered, after which those are sent
    # again (then twice as long, and so on; None: never): jdtls, sent many changes at once,
    # now and then analyses some of them and never the rest.
    unanswered_resent_after: float | None = None

    def syntax_only(self, diagnostics: list[dict[str, Any]]) -> str | None:
        """Why a file's `diagnostics` are syntax errors only, where one of them says so (jdtls
        on a file outside the projects it loaded); None: they are the server's whole check."""
        return None

    def diagnostic_requests(self, path: Path) -> tuple[dict[str, Any], ...]:
        """`workspace/executeCommand` requests whose answers are `path`'s diagnostics for the
        text last sent, where the server has such a command (`diagnostics_of_commands` reads
        them); none by default. Used only where the server lists the command."""
        return ()

    def diagnostics_of_commands(self, replies: list[Any]) -> list[dict[str, Any]]:
        """The answers to `diagnostic_requests` as LSP diagnostics."""
        return []

    def workspace_report(self, method: str, params: Any, root: Path) -> tuple[str, str | None] | None:
        """What one of the server's messages (window/showMessage, window/logMessage,
        language/status, textDocument/publishDiagnostics) says about loading the workspace: (key, why it
        failed) or (key, None) when that failure is over; None when it says nothing of it.
        Servers that report nothing are taken at their word that they loaded."""
        return None

    # Whether the server may answer documentSymbol with [] for a file it has just been given,
    # while it still analyses it (bash-language-server): an empty answer for a file whose
    # syntax tree has definitions is asked again, for up to this many seconds.
    empty_symbols_while_analysing = 0.0
    # Whether the server announces when it has loaded the workspace (`readiness`); until then
    # the symbol operations answer from tree-sitter.
    announces_ready = False

    def reopens_early_documents(self, root: Path) -> bool:
        """Whether a document of `root` opened before the server announced it had loaded the
        workspace is opened again once it has (`SyncedDocuments.reopen_early`): jdtls takes one
        opened before the project it was given exists for a file outside any project, and
        analyses no change of it after."""
        return False

    def readiness(self, method: str, params: Any) -> tuple[bool, str] | None:
        """(loaded, what it says of its loading) from one of the server's messages; None when
        the message says nothing of it."""
        return None

    def pins(self, path: str) -> dict[str, str]:
        """The environment that keeps the programs the server runs (found on `path`) from taking
        a toolchain, wrapper or download the workspace names: given to its version check and
        to the server alike."""
        return {}

    def version(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        """The server's version, or None when it cannot run here (PATH `path`: by default the
        call's own `search_path`)."""
        from gateway.lsp.discovery import search_path, server_version

        path = search_path() if path is None else path
        return server_version(program, version_args, path, self.pins(path))

    def why_not_running(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        """Why `program`, which is installed, cannot run here (None: it can)."""
        from gateway.lsp.discovery import search_path, version_failure

        path = search_path() if path is None else path
        return version_failure(program, version_args, path, self.pins(path))

    def launch(self, command: tuple[str, ...], root: Path, path: str) -> tuple[tuple[str, ...], dict[str, str]]:
        """The command line and environment (over the gateway's own, with PATH `path`) that
        start the server for the workspace `root`."""
        return command, {"PATH": path, **self.pins(path)}

    def renames(self, language: str) -> str | None:
        """None when the server renames the language's symbols; else why not (the checked
        tree-sitter rename is used instead)."""
        return None

    def initialize_params(self, root: Path, program: str) -> dict[str, Any]:
        return {
            "processId": os.getpid(),
            "clientInfo": {"name": "gateway"},
            "rootPath": str(root),
            "rootUri": root.as_uri(),
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "capabilities": CLIENT_CAPABILITIES,
            "initializationOptions": self.initialization_options(program),
        }

    def initialization_options(self, program: str) -> dict[str, Any]:
        """The server's settings; `program`: the server's own, as found."""
        return {}

    def name_segments(self, name: str) -> list[str]:
        """A server's symbol name as name-path segments (most servers name symbols plainly)."""
        return [name]

    # Whether the server's references are complete for the files it was given, so that a name
    # match it does not list (a method of another type) is not a reference (references.referrers).
    # clangd's come from an index a file enters only once its whole translation unit is parsed.
    references_rule_on_name_matches = True

    # Whether `macro_calls` reads a documentSymbol answer (so it is kept as decoded beside the
    # symbols read from it; documents.Outline).
    lists_macros = False

    def macro_calls(self, reply: Any) -> list[ServerMacro] | None:
        """The macro calls a documentSymbol reply lists with what each makes; None: the server
        does not list them (only clangd does)."""
        return None


ADAPTER = Adapter()
