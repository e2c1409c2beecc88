"""The grammars tree-sitter parses with, each loaded alone, and what a parser is given: the text
with lone CRs as LFs and, for a language with a preprocessor, its rewrites made (redone only
around the changes where the text is an edited one)."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import import_module
from importlib.util import find_spec, module_from_spec, spec_from_file_location
from pathlib import Path

from tree_sitter import Language as TreeSitterLanguage
from tree_sitter import Parser

from gateway.langs import Language, Preprocessor
from gateway.textmemo import per_text


# Grammars the pack ships as packages of their own rather than in its bindings folder.
_SEPARATE_PACKAGES = {"csharp": "tree_sitter_c_sharp", "yaml": "tree_sitter_yaml", "embeddedtemplate": "tree_sitter_embedded_template"}


@functools.cache
def grammar(name: str) -> TreeSitterLanguage:
    """One grammar, loaded alone.

    Importing tree_sitter_language_pack loads several grammars eagerly (~40 ms, paid by
    every hook process), so its one binding module is loaded directly; the pack's own
    loader is the fallback.
    """
    try:
        if name in _SEPARATE_PACKAGES:
            module = import_module(_SEPARATE_PACKAGES[name])
        else:
            pack = find_spec("tree_sitter_language_pack")
            assert pack is not None and pack.submodule_search_locations
            binary = next((Path(pack.submodule_search_locations[0]) / "bindings").glob(f"{name}.*so"))
            spec = spec_from_file_location(f"tree_sitter_language_pack.bindings.{name}", binary)
            assert spec is not None and spec.loader is not None
            module = module_from_spec(spec)
            spec.loader.exec_module(module)
        return TreeSitterLanguage(module.language())
    except (AssertionError, ImportError, StopIteration, AttributeError):
        from tree_sitter_language_pack import get_language

        return get_language(name)  # type: ignore[arg-type]


@functools.cache
def parser_for(name: str) -> Parser:
    return Parser(grammar(name))


_LONE_CR = re.compile(rb"\r(?!\n)")
_SPACED_SPLICE = re.compile(rb"\\([ \t]+)(?=\r?\n)")


def parse_input(lang: Language, source: bytes) -> bytes:
    """Grammars break lines at LF only; a lone CR (classic Mac files) becomes LF, byte for byte.
    In C and C++, a backslash before blanks at a line's end splices the lines as the compilers
    do (a comment ending in a backslash and a space comments out the next line); it is moved to the line's end, in place."""
    if b"\r" in source:
        source = _LONE_CR.sub(b"\n", source)
    return _preprocessed(lang.preprocessor, source) if lang.preprocessor is not None else source


@per_text
def _preprocessed(spec: Preprocessor, source: bytes) -> bytes:
    """The language's rewrites made (once per text: a judgement parses its texts more than once)."""
    if b"\\" in source:
        source = _SPACED_SPLICE.sub(lambda m: m.group(1) + b"\\", source)
    for pattern, word, needs in spec.rewrites:
        if not needs or any(needed in source for needed in needs):
            source = pattern.sub(lambda m: _rewritten(m, word), source)
    return source


Change = tuple[int, int, int, int]  # [start, end) of a base text replaced by [start, end) of a text


def input_after(lang: Language, base: bytes, source: bytes, changes: Sequence[Change]) -> bytes:
    """`parse_input(lang, source)`, where `source` is `base` with `changes` made (sorted, apart):
    from `base`'s, the rewrites redone on the lines around each change only. A rewrite's pattern
    matches within one line, looking ahead to the next line's start at most (docs/languages.md)."""
    spec = lang.preprocessor
    if spec is None or not changes or b"\r" in source or b"\r" in base:
        return parse_input(lang, source)
    known = _preprocessed.known(spec, source)
    if known is not None:
        return known
    # The lines to redo: from the line before each change (a pattern there may look ahead into
    # it) to the end of its last line, as [start, end) in the text, and how far the changes
    # before each end have moved it from where it is in `base`.
    windows: list[list[int]] = []
    shift = 0
    for base_start, base_end, start, end in changes:
        low, high = _line_start(source, _line_start(source, start) - 1), _line_end(source, end)
        if windows and low <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], high)
        else:
            windows.append([low, high, shift, shift])
        shift += (end - start) - (base_end - base_start)
        windows[-1][3] = shift
    base_input, pieces, copied = _preprocessed(spec, base), [], 0
    for low, high, moved_low, moved_high in windows:
        context = _line_start(source, low - 1)
        redone = _preprocessed.function(spec, source[context : _line_end(source, high)])
        pieces += [base_input[copied : low - moved_low], redone[low - context : high - context]]
        copied = high - moved_high
    pieces.append(base_input[copied:])
    found = b"".join(pieces)
    if len(found) != len(source):
        return parse_input(lang, source)
    _preprocessed.keep((spec, source), found)
    return found


def _line_start(source: bytes, at: int) -> int:
    return source.rfind(b"\n", 0, max(at, 0)) + 1


def _line_end(source: bytes, at: int) -> int:
    """Past the line break ending the line `at` is on (the text's end, without one)."""
    found = source.find(b"\n", at)
    return len(source) if found < 0 else found + 1


def _rewritten(match: re.Match[bytes], word: bytes) -> bytes:
    start, end = match.span("text")
    whole = match.group(0)
    offset = match.start()
    return whole[: start - offset] + word.ljust(end - start)[: end - start] + whole[end - offset :]
