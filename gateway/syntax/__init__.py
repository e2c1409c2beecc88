"""Parsing and definition extraction with tree-sitter, driven by the queries in `queries/`:
trees (`trees`), definitions and headers (`definitions`), a tree's whole list of them, derived
from its base's after an incremental parse (`listing`), and the choice of a grammar where
several languages claim a file (`choose`)."""

from gateway.syntax.choose import error_count, language_for, pick
from gateway.syntax.definitions import (
    Definition,
    _definitions,
    empty_query,
    extra_query,
    header_tokens,
    widened_range,
)
from gateway.syntax.listing import definitions, definitions_named, definitions_near, find_definitions, kept_definitions
from gateway.syntax.grammars import parser_for
from gateway.syntax.trees import (
    attach,
    attached,
    attached_to_base,
    base_of,
    changes_since,
    common_ends,
    edited_tree,
    parse,
    parse_from,
    parse_blanked,
    parse_once,
    reparse,
    utf8,
)

__all__ = [
    "Definition", "_definitions", "attach", "attached", "attached_to_base", "base_of", "changes_since", "common_ends",
    "definitions", "definitions_named", "definitions_near", "edited_tree", "empty_query", "error_count", "extra_query", "find_definitions", "header_tokens", "kept_definitions", "language_for",
    "parse", "parse_blanked", "parse_from", "parse_once", "parser_for", "pick", "reparse", "utf8", "widened_range",
]
