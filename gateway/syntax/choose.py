"""Which language a file is in, where several claim it: the one whose grammar reads it best."""

from __future__ import annotations

import os
import re

from tree_sitter import Query, QueryCursor

from gateway.langs import Language, LanguageRegistry
from gateway.preprocessor import decided
from gateway.syntax.grammars import grammar
from gateway.syntax.trees import parse

_ERRORS: dict[str, Query] = {}


def error_count(lang: Language, source: bytes) -> int:
    """How many places of `source` the language's grammar cannot parse: ERROR nodes, and the
    tokens it had to make up (MISSING `;`: C reading a C++ `enum class`)."""
    tree = parse(lang, source)
    if not tree.root_node.has_error:
        return 0
    query = _ERRORS.get(lang.grammar) or _ERRORS.setdefault(lang.grammar, Query(grammar(lang.grammar), "(ERROR) @error (MISSING) @error"))
    return len(QueryCursor(query).captures(tree.root_node).get("error", []))

_BLOCK_COMMENT = re.compile(rb"/\*.*?\*/", re.DOTALL)


def _marked(lang: Language, others: list[Language], source: bytes) -> bool:
    """Whether `source` shows one of the language's markers, outside block comments and
    outside the branches another candidate's preprocessor data decides it does not compile
    (a C header's `#ifdef __cplusplus` block may hold C++)."""
    if lang.markers is None:
        return False
    buffer = bytearray(_BLOCK_COMMENT.sub(lambda m: re.sub(rb"[^\n]", b" ", m.group(0)), source))
    for other in others:
        if other.preprocessor is not None:
            for start, end in decided(other.preprocessor, bytes(buffer))[0]:
                buffer[start:end] = re.sub(rb"[^\n]", b" ", bytes(buffer[start:end]))
    return lang.markers.search(bytes(buffer).decode("utf-8", "replace")) is not None


def pick(candidates: list[Language], text: str, also: str | None = None) -> Language | None:
    """Of the languages that may claim a file, one whose markers `text` (or `also`: the text a
    write leaves, where `text` is the one before it) shows, else the one whose grammar reads
    them best; ties go to the first."""
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    sources = [t.encode("utf-8", "surrogatepass") for t in (text, also) if t is not None]
    marked = [lang for lang in candidates if any(_marked(lang, [o for o in candidates if o is not lang], s) for s in sources)]
    return min(marked or candidates, key=lambda lang: sum(error_count(lang, source) for source in sources))


def language_for(registry: LanguageRegistry, path: str | os.PathLike[str], text: str | None, also: str | None = None) -> Language | None:
    """The file's language: by its name (or `#!` line), and where several claim it, by grammar
    (an empty C++ header reads as C too: what a write puts in it decides)."""
    candidates = registry.candidates(path, text)
    return pick(candidates, text, also) if text is not None else (candidates[0] if candidates else None)
