"""The gate's one door: every write (CLI, API, JSON-RPC, MCP, the hook, contract steps) is
judged here, on the effect the write will have. No language-server imports."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from gateway.config import GateConfig
from gateway.errors import GatewayError, NotFound
from gateway.gate.classify import classify_effect
from gateway.gate.effect import Effect, edit_effect, multi_edit_effect, span_effect, write_effect
from gateway.gate.macros import MacroSources, ServerCalls
from gateway.gate.verdict import Classification
from gateway.langs import LanguageRegistry, default_registry
from gateway.preprocessor import Macro, function_macros
from gateway.reading import read_regular, too_large
from gateway.syntax import language_for
from gateway.textfile import check_declared_encoding, decode, editing_view, encoding_rule, normalize_fragment

ACTIONS = {"edit": "edit", "multi_edit": "multi-edit", "write": "whole-file write", "step": "contract text step", "patch": "patch"}
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_INCLUDE_DEPTH = 3
_MOST_HEADERS = 64  # headers read for one file's macros at most
_HEADER_MACROS: dict[tuple[Path, Path, int, int], dict[str, Macro]] = {}  # by (file, workspace, mtime, size): a warm daemon reads each once


class Gate:
    """`root`: the workspace, whose headers a C or C++ file includes are read for the macros
    they define; `server`: a language server's list of what macro calls make (clangd's)."""

    def __init__(self, registry: LanguageRegistry | None = None, config: GateConfig | None = None,
                 root: Path | None = None, server: ServerCalls | None = None) -> None:
        self.registry = registry or default_registry()
        self.config = config or GateConfig()
        self.root = root
        self.macros = MacroSources(self.included_macros, server)

    def included_macros(self, path: str, source: bytes) -> dict[str, Macro]:
        """The function-like macros of the headers `source` includes with `#include "..."`, and
        those they include, found beside the including file or at the workspace's top; only
        regular files inside the workspace (beside the file when there is none) are read."""
        start = Path(path) if self.root is None or os.path.isabs(path) else self.root / path
        limit = Path(os.path.realpath(self.root if self.root is not None else start.parent))
        found: dict[str, Macro] = {}
        seen: set[Path] = set()
        waiting = [(start, source, 0)]
        while waiting:
            including, text, depth = waiting.pop()
            for name in _INCLUDE.findall(text):
                for base in dict.fromkeys([including.parent, limit]):
                    header = Path(os.path.realpath(base / os.fsdecode(name)))
                    if header in seen or not header.is_relative_to(limit) or not header.is_file():
                        continue
                    seen.add(header)
                    data = self._header(header, limit)
                    if data is not None:
                        found = {**data[1], **found}
                        if depth + 1 < _INCLUDE_DEPTH and len(seen) < _MOST_HEADERS:
                            waiting.append((header, data[0], depth + 1))
                    break
        return found

    def _header(self, header: Path, limit: Path) -> tuple[bytes, dict[str, Macro]] | None:
        """A header's bytes and the function-like macros it defines; None when it cannot be read."""
        try:
            stat = header.stat()
            data = self.read(header)
        except (OSError, GatewayError):  # a header that cannot be read tells nothing
            return None
        if data is None:
            return None
        key = (header, limit, stat.st_mtime_ns, stat.st_size)
        if key not in _HEADER_MACROS:
            if len(_HEADER_MACROS) >= 256:
                _HEADER_MACROS.clear()
            _HEADER_MACROS[key] = function_macros(data, header.relative_to(limit).as_posix())
        return data, _HEADER_MACROS[key]

    def judged(self, path: str | os.PathLike[str], text: str | bytes | None = None) -> bool:
        """Whether writes to `path` are judged at all (a language with a symbol backend claims
        it; `text`, the file or its first bytes, names an extensionless file's by its `#!` line)."""
        return any(lang.symbol_backend for lang in self.registry.candidates(path, text))

    def may_judge(self, path: str | os.PathLike[str]) -> bool:
        """Whether `path` may be judged, before its text is known (its name, or its first line)."""
        return self.judged(path) or self.registry.by_first_line(path)

    def check_bytes(self, where: str, size: int) -> bool:
        """True when `size` bytes may be judged; TooLarge otherwise."""
        if size > self.config.max_file_bytes:
            raise too_large(where, size, self.config.max_file_bytes)
        return True

    def read(self, path: str | os.PathLike[str], where: str | None = None) -> bytes | None:
        """A file's bytes, if it is a regular file within the size limit; None when it does not exist."""
        return read_regular(path, where or str(path), self.config.max_file_bytes)

    def check_size(self, where: str, *texts: str | None) -> None:
        for text in texts:
            if text is not None and len(text) * 4 > self.config.max_file_bytes:
                self.check_bytes(where, len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass")))

    def check(self, effect: Effect, action: str = "edit") -> Classification:
        self.check_size(effect.path, effect.before, effect.after)
        lang = language_for(self.registry, effect.path, *((effect.before, effect.after) if effect.before is not None else (effect.after,)))
        if lang is not None:
            check_declared_encoding(effect.path, effect.before, effect.after, lang.encoding_cookie)
        return classify_effect(lang, effect, ACTIONS[action], self.config.on_new_syntax_error == "refuse", self.macros)

    def check_edit(self, path: str, text: str, old: str, new: str, replace_all: bool = False) -> tuple[Effect, Classification]:
        self.check_size(path, text, old, new)
        effect = edit_effect(path, text, old, new, replace_all)
        return effect, self.check(effect, "edit")

    def check_span(self, path: str, text: str, start: int, end: int, new: str) -> tuple[Effect, Classification]:
        self.check_size(path, text, new)
        effect = span_effect(path, text, start, end, new)
        return effect, self.check(effect, "step")

    def check_multi_edit(self, path: str, text: str, edits: Sequence[tuple[str, str, bool]]) -> tuple[Effect, Classification]:
        self.check_size(path, text, *(part for edit in edits for part in edit[:2]))
        effect = multi_edit_effect(path, text, edits)
        return effect, self.check(effect, "multi_edit")

    def check_write(self, path: str, text: str | None, content: str, action: str = "write") -> tuple[Effect, Classification]:
        """`action`: "patch" for a patch's net change of the file (its text before and after it)."""
        self.check_size(path, text, content)
        effect = write_effect(path, text, content)
        return effect, self.check(effect, action)


def read_text(path: str | os.PathLike[str], registry: LanguageRegistry | None = None) -> str | None:
    """A file's decoded text (by its language's encoding rule), exactly as on disk (no
    line-ending change); None if it does not exist. Only a regular file is read, at most the
    gate's default size limit (NotRegularFile, TooLarge)."""
    data = Gate(registry).read(path)
    if data is None:
        return None
    return decode(data, str(path), encoding_rule(path, registry, data))[0]


def classify_edit(
    path: str | os.PathLike[str],
    old_string: str,
    new_string: str,
    content: str | None = None,
    *,
    replace_all: bool = False,
    registry: LanguageRegistry | None = None,
) -> Classification:
    """The gate's verdict on replacing old_string with new_string in a file, as `gateway edit`
    would perform it (line endings as Workspace.read sees them). `content` defaults to the
    file's text; old_string must occur in it (NotFound otherwise)."""
    if os.path.realpath(path) != os.path.abspath(path):  # a link: judged as the file it leads to
        path = os.path.realpath(path)
    raw = content if content is not None else read_text(path, registry)
    gate = Gate(registry)
    if raw is None:
        if old_string:
            raise NotFound(f"old_string not found: {path} does not exist")
        return gate.check_write(str(path), None, new_string)[1]
    text, newline = editing_view(raw)
    old, new = normalize_fragment(old_string, newline), normalize_fragment(new_string, newline)
    return gate.check_edit(str(path), text, old, new, replace_all)[1]
