"""gopls names methods after their receiver: `(*Rect).Area` or `Rect.Area` is Rect/Area.

It still answers for single files when the Go toolchain cannot load the module (a go.mod
that needs a newer Go, a syntax error in it, a requirement that cannot be had), so what it
says about loading the workspace is read here: its errors on go.mod and go.work, and the
"errors loading workspace" it logs."""

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
    reason = reason.split("\n\tsnapshot=")[0]
    reason = reason.rsplit("stderr: ", 1)[-1]
    reason = _TEMP_MOD.sub("go.mod", reason).replace(f"{root}/", "")
    return " ".join(reason.split()).rstrip(";: ")


class GoplsAdapter(Adapter):
    diagnoses_after_loading = True
    path_programs = ("go",)

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
            return uri, one_line(str(errors[0].get("message", "")), root) if errors else None
        message = str(params.get("message", ""))
        failed = _LOAD_FAILED.search(message)
        if method == "window/logMessage" and failed and params.get("type") == _ERROR:
            return "load", one_line(failed.group("reason"), root)
        if method == "window/logMessage" and _LOADED in message and "updating metadata" in message:
            return "load", None
        return None


ADAPTER = GoplsAdapter()
