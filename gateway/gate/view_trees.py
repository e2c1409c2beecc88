"""The trees of a C or C++ text's preprocessor views (gateway/preprocessor.py), parsed from the
tree of the text as written, or of another view of it, where they differ in few places."""

from __future__ import annotations

from collections.abc import Sequence

from tree_sitter import Tree

from gateway.langs import Language
from gateway.preprocessor import View
from gateway.syntax import parse_blanked


def view_tree(lang: Language, source: bytes, view: View, parsed: Sequence[View] = ()) -> Tree:
    """`view`'s tree (a view of `source`), incrementally from `source`'s cached tree or from one
    of the views `parsed` already: the same tree as a parse from scratch."""
    return parse_blanked(lang, view.text, [(source, view.blanked), *((other.text, other.blanked + view.blanked) for other in parsed)])
