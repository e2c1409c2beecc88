"""gopls names methods after their receiver: `(*Rect).Area` or `Rect.Area` is Rect/Area.

It still answers for single files when the Go toolchain cannot load the module (a go.mod
that needs a newer Go, a syntax error in it, a requirement that cannot be had), so what it
says about loading the workspace is read here: its errors on go.mod and go.work, and the
"errors loading workspace" it logs. The go command it runs never switches to a toolchain the
workspace names (`pins`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from gateway.lsp.adapters.base import Adapter

_METHOD = re.compile(r"^\(?\*?(?P<receiver>[A-Za-z_][\w]*)(?:\[[^\]]*\])?\)?\.(?P<name>\w+)$")
_LOAD_FAILED = re.compile(r"(?:errors loading workspace|initial workspace load failed): (?P<reason>.*)", re.DOTALL)
_LOADED = "go/packages.Load #"
_MODULE_FILES = ("go.mod", "go.work")
# gopls runs `go list` on a temporary copy of go.mod and quotes its name.
_TEMP_MOD = re.compile(r"\S*/go\.[0-9a-f]{16,}\.\d+\.mod")
_ERROR = 1


def one_line(reason: str, root: Path) -> str:
    """gopls's wording as one line: past its wrappers, with the workspace's paths relative."""
    reason = reason.split("\n\t")[0]  # gopls's key=value fields (view_id, snapshot, directory) follow
    reason = reason.rsplit("stderr: ", 1)[-1]
    reason = _TEMP_MOD.sub("go.mod", reason).replace(f"{root}/", "")
    return " ".join(reason.split()).rstrip(";: ")


def _located(uri: str, diagnostic: dict[str, Any], root: Path) -> str:
    """A diagnostic on go.mod or go.work as the go command words it: `go.mod:5: syntax error ...`
    (gopls from v0.2x leaves the place to the diagnostic's range)."""
    message = one_line(str(diagnostic.get("message", "")), root)
    name = uri.rsplit("/", 1)[-1]
    if message.startswith(name) or message.startswith("go:"):
        return message
    try:
        line = int(diagnostic["range"]["start"]["line"]) + 1
    except (KeyError, TypeError, ValueError):
        return f"{name}: {message}"
    return f"{name}:{line}: {message}"


class GoplsAdapter(Adapter):
    diagnoses_after_loading = True
    path_programs = ("go",)

    def pins(self, path: str) -> dict[str, str]:
        """The go command runs the Go it is, never one a go.mod or go.work `go`/`toolchain`
        line would have it download and run (it says the module needs a newer Go instead)."""
        return {"GOTOOLCHAIN": "local"}

    def initialization_options(self, program: str) -> dict[str, Any]:
        """Pull diagnostics (experimental in gopls, answered with `kind: ""`), bound to the
        text asked about (gateway.lsp.diagnostics)."""
        return {"pullDiagnostics": True}

    def name_segments(self, name: str) -> list[str]:
        match = _METHOD.match(name)
        return [match.group("receiver"), match.group("name")] if match else [name]

    def workspace_report(self, method: str, params: Any, root: Path) -> tuple[str, str | None] | None:
        if not isinstance(params, dict):
            return None
        if method == "textDocument/publishDiagnostics":
            uri = str(params.get("uri", ""))
            if not uri.endswith(tuple("/" + name for name in _MODULE_FILES)):
                return None
            errors = [d for d in params.get("diagnostics") or [] if isinstance(d, dict) and d.get("severity") == _ERROR]
            return uri, _located(uri, errors[0], root) if errors else None
        message = str(params.get("message", ""))
        failed = _LOAD_FAILED.search(message)
        if method == "window/logMessage" and failed and params.get("type") == _ERROR:
            return "load", one_line(failed.group("reason"), root)
        if method == "window/logMessage" and _LOADED in message and "updating metadata" in message:
            return "load", None
        return None


ADAPTER = GoplsAdapter()
