"""A server's rename cross-checked on the syntax trees before any of it is written: an edit
that lands on the name of another definition than the one renamed (of another kind, or a
member where it is not one: zuban's `debug = log.debug` beside `Log.debug`) is not a reference
to it, and the rename is refused naming it; an edit of a JavaScript or TypeScript shorthand
property (`{helper}`) renames the reference and keeps the object's key (`{helper: assist}`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gateway.errors import Ambiguous
from gateway.langs import Language
from gateway.symbols.model import Symbol
from gateway.symbols.text import LineIndex, char_to_byte
from gateway.syntax import Definition, definitions, parse, utf8

# Definitions named after another (Rust's `impl Buf`), renamed with the type they name.
_NAMED_AFTER_ANOTHER = frozenset({"impl"})
_SHORTHAND_KEYS = frozenset({"shorthand_property_identifier"})
_CALLABLE = frozenset({"function", "method"})

Edits = dict[Path, list[dict[str, Any]]]


def cross_checked(target: tuple[Path, Symbol], texts: dict[Path, tuple[Language, str, str]], edits: Edits, server: str) -> Edits:
    """`edits` (the server's rename of the symbol at `target`), checked on each file's text
    before it (`texts`: language, text and the name the file is shown by); Ambiguous, naming
    them, where some rename another definition."""
    path, symbol = target
    lang, text, _ = texts[path]
    renamed = _definition_at(lang, text, symbol)
    checked: Edits = {}
    others: list[str] = []
    for file, changes in edits.items():
        lang, text, display = texts[file]
        tree = parse(lang, utf8(text))
        named = {d.name_start_byte: d for d in definitions(lang, tree)}
        index, to_byte = LineIndex.of(text), char_to_byte(text)
        checked[file] = []
        for change in changes:
            start = index.from_utf16(change["range"]["start"]["line"], change["range"]["start"]["character"])
            at = to_byte(start)
            node = tree.root_node.descendant_for_byte_range(at, at + len(symbol.name.encode()))
            other = named.get(at)
            if other is not None and renamed is not None and not (file == path and other.name_start_byte == renamed.name_start_byte) \
                    and not _same_role(other, renamed):
                others.append(f"{display}:{other.name_line} ({other.kind} `{other.name_path}`)")
            if renamed is not None and node is not None and node.type in _SHORTHAND_KEYS and node.text == symbol.name.encode():
                change = {**change, "newText": f"{symbol.name}: {change['newText']}"}
            checked[file].append(change)
    if others:
        raise Ambiguous(
            f"{texts[path][2]}: the rename of {symbol.name_path} the server proposed ({server}) also renames {', '.join(others[:5])}, another "
            f"definition than the one renamed; nothing renamed (its edits are not applied: rename {symbol.name_path} and the places that "
            f"refer to it by hand)")
    return checked


def _definition_at(lang: Language, text: str, symbol: Symbol) -> Definition | None:
    """The syntax trees' definition whose name starts where the symbol's does (None: none)."""
    at = char_to_byte(text)(symbol.name_start)
    return next((d for d in definitions(lang, parse(lang, utf8(text))) if d.name_start_byte == at), None)


def _same_role(other: Definition, renamed: Definition) -> bool:
    """Whether a definition renamed with another may be the same thing under the language's
    rules: its declaration elsewhere (the same name path), an override or implementation (a
    member of the same kind), a constructor named after its class, or one named after it; not
    a function where a member was renamed, nor one of another kind."""
    if other.name_path == renamed.name_path or other.kind in _NAMED_AFTER_ANOTHER:
        return True
    if other.name_path.rpartition("/")[0] == renamed.name_path:  # a constructor: a member named after its type
        return True
    return _kind(other) == _kind(renamed) and ("/" in other.name_path) == ("/" in renamed.name_path)


def _kind(definition: Definition) -> str:
    """A definition's kind, a method defined outside its class (C++'s `int B::f()`, a function
    to the grammar) the same as one defined in it."""
    return "callable" if definition.kind in _CALLABLE else definition.kind
