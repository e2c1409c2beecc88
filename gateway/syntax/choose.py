"""Which language a file is in, where several claim it: the one whose grammar reads it best."""

from __future__ import annotations

import os

from tree_sitter import Query, QueryCursor

from gateway.langs import Language, LanguageRegistry
from gateway.syntax.trees import _grammar, parse

_ERRORS: dict[str, Query] = {}


def error_count(lang: Language, source: bytes) -> int:
    """How many places of `source` the language's grammar cannot parse: ERROR nodes, and the
    tokens it had to make up (MISSING `;`: C reading a C++ `enum class`)."""
    tree = parse(lang, source)
    if not tree.root_node.has_error:
        return 0
    query = _ERRORS.get(lang.grammar) or _ERRORS.setdefault(lang.grammar, Query(_grammar(lang.grammar), "(ERROR) @error (MISSING) @error"))
    return len(QueryCursor(query).captures(tree.root_node).get("error", []))

def pick(candidates: list[Language], text: str, also: str | None = None) -> Language | None:
    """Of the languages that may claim a file, the one whose grammar reads `text` (and `also`:
    the text a write leaves, where `text` is the one before it) best; ties go to the first."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    sources = [t.encode("utf-8", "surrogatepass") for t in (text, also) if t is not None]
    return min(candidates, key=lambda lang: sum(error_count(lang, source) for source in sources))


def language_for(registry: LanguageRegistry, path: str | os.PathLike[str], text: str | None, also: str | None = None) -> Language | None:
    """The file's language: by its name (or `#!` line), and where several claim it, by grammar
    (an empty C++ header reads as C too: what a write puts in it decides)."""
    candidates = registry.candidates(path, text)
    return pick(candidates, text, also) if text is not None else (candidates[0] if candidates else None)
