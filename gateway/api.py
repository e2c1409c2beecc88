"""`Gateway(workspace)`: the one facade every surface (CLI, JSON-RPC, MCP, hook) calls."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import Any

from gateway.classify import Classification, classify_edit
from gateway.edits import apply_string_edit
from gateway.errors import Blocked
from gateway.langs import LanguageRegistry, default_registry
from gateway.workspace import Workspace


@dataclass(frozen=True)
class EditResult:
    classification: Classification
    path: str
    replacements: int
    lines: tuple[int, ...]
    diff: str

    def to_json(self) -> dict[str, Any]:
        return {
            **self.classification.to_json(),
            "applied": True,
            "path": self.path,
            "replacements": self.replacements,
            "lines": list(self.lines),
            "diff": self.diff,
        }


def unified_diff(path: str, before: str, after: str) -> str:
    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


class Gateway:
    def __init__(self, workspace: str | os.PathLike[str] = ".", registry: LanguageRegistry | None = None) -> None:
        self.workspace = Workspace(workspace)
        self.registry = registry or default_registry()

    def classify(self, path: str, old_string: str, new_string: str, replace_all: bool = False) -> Classification:
        source = self.workspace.read(path)
        return classify_edit(
            source.display,
            source.normalize(old_string),
            source.normalize(new_string),
            content=source.text,
            replace_all=replace_all,
            registry=self.registry,
        )

    def edit(self, path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        """Apply an exact-match edit if the gate allows it; raise Blocked (file untouched) if not."""
        with self.workspace.locked(path):
            source = self.workspace.read(path)
            old, new = source.normalize(old_string), source.normalize(new_string)
            classification = classify_edit(
                source.display, old, new, content=source.text, replace_all=replace_all, registry=self.registry
            )
            if classification.blocked:
                raise Blocked(classification)
            edit = apply_string_edit(source.text, old, new, replace_all, source.display)
            self.workspace.write(source, edit.text)
        return EditResult(
            classification=classification,
            path=source.display,
            replacements=edit.replacements,
            lines=edit.lines,
            diff=unified_diff(source.display, source.text, edit.text),
        )
