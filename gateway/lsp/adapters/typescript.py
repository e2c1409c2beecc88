"""typescript-language-server: on its own typescript, and renames rename, they do not alias.

Left to itself it runs the workspace's `node_modules/typescript/lib/tsserver.js` (or
`.yarn/sdks/...`) before its own: a cloned repository's JavaScript. It is given the tsserver of
the typescript installed beside it (Node's resolution from its package, as its own fallback)
and runs only where there is one. That tsserver loads the plugins a tsconfig names only by
package name from its own node_modules (no `--allowLocalPluginLoads`), and automatic type
acquisition (npm installs of @types) is off.

By default tsserver keeps every old name visible by adding text around a renamed reference
(`{ greet }` becomes `{ greet: salute }`, `export { greet }` becomes `export { salute as greet }`);
the gateway renames what it is asked to rename and nothing else.

Its pushed diagnostics name no version and are not sent again while they stay the same (no
push cannot be told from "not analysed yet"): a file's errors are asked of tsserver itself,
`semanticDiagnosticsSync` and `syntacticDiagnosticsSync` through `typescript.tsserverRequest`,
which answer for the text last sent.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from gateway.errors import ServerFailed
from gateway.lsp.adapters.base import Adapter


@cache
def own_tsserver(program: str) -> Path | None:
    """The tsserver.js of the typescript that `program` (the server's launcher) would load as
    its own: the first `node_modules/typescript` up from its package, as Node resolves it."""
    start = Path(program).resolve().parent
    for folder in (start, *start.parents):
        candidate = folder / "node_modules" / "typescript" / "lib" / "tsserver.js"
        if folder.name != "node_modules" and candidate.is_file():
            return candidate
    return None


_TSSERVER_REQUEST = "typescript.tsserverRequest"
_SEVERITIES = {"error": 1, "warning": 2, "message": 3, "suggestion": 4}


def _lsp_diagnostic(found: dict[str, Any]) -> dict[str, Any]:
    """A tsserver diagnostic (1-based `line` and `offset`) as an LSP one."""
    start, end = found.get("start") or {}, found.get("end") or found.get("start") or {}
    return {
        "range": {"start": {"line": int(start.get("line", 1)) - 1, "character": int(start.get("offset", 1)) - 1},
                  "end": {"line": int(end.get("line", 1)) - 1, "character": int(end.get("offset", 1)) - 1}},
        "severity": _SEVERITIES.get(str(found.get("category")), 1),
        "message": str(found.get("text", "")),
        "source": str(found.get("source") or "typescript"),
    }


class TypeScriptAdapter(Adapter):
    def diagnostic_requests(self, path: Path) -> tuple[dict[str, Any], ...]:
        return tuple({"command": _TSSERVER_REQUEST, "arguments": [kind, {"file": str(path)}]}
                     for kind in ("syntacticDiagnosticsSync", "semanticDiagnosticsSync"))

    def diagnostics_of_commands(self, replies: list[Any]) -> list[dict[str, Any]]:
        found = []
        for reply in replies:
            body = reply.get("body") if isinstance(reply, dict) else None
            if not isinstance(body, list):
                raise ValueError(f"no diagnostics in tsserver's answer: {str(reply)[:120]}")
            found += [_lsp_diagnostic(item) for item in body if isinstance(item, dict)]
        return found

    def version(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        return super().version(program, version_args, path) if own_tsserver(program) else None

    def why_not_running(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        if own_tsserver(program) is None:
            return f"no typescript is installed beside {program} (the workspace's own is never run)"
        return super().why_not_running(program, version_args, path)

    def initialization_options(self, program: str) -> dict[str, Any]:
        tsserver = own_tsserver(program)
        if tsserver is None:  # gone since its version was asked: never the workspace's instead
            raise ServerFailed(f"typescript-language-server: {self.why_not_running(program, ())}")
        return {
            "preferences": {"providePrefixAndSuffixTextForRename": False},
            # One tsserver, not a second "partial semantic" one beside it, which only answers an
            # editor's syntax requests sooner while the first loads (1.4 s of CPU per start).
            "tsserver": {"path": str(tsserver), "useSyntaxServer": "never"},
            "disableAutomaticTypingAcquisition": True,
        }


ADAPTER = TypeScriptAdapter()
