"""The gate for whole-file writes: the file's definitions before against the new content's.

A write that leaves every definition's text as it was (imports, constants, comments) is
allowed, and so is creating a file; one that rewrites, removes or adds a definition is
blocked with the symbol operations that do the same.
"""

from __future__ import annotations

import os
import shlex
from collections import defaultdict

from gateway.classify import Classification, TouchedDefinition, block_message, outermost, read_if_exists
from gateway.langs import LanguageRegistry, default_registry
from gateway.namepath import address_for
from gateway.syntax import Definition, find_definitions


def _texts(source: bytes, defs: list[Definition]) -> dict[str, list[bytes]]:
    by_path: dict[str, list[bytes]] = defaultdict(list)
    for d in defs:
        by_path[d.name_path].append(source[d.start_byte : d.end_byte])
    return by_path


def classify_write(
    path: str | os.PathLike[str], new_content: str, content: str | None = None, registry: LanguageRegistry | None = None
) -> Classification:
    display = str(path)
    lang = (registry or default_registry()).for_path(path)
    if lang is None or not lang.symbol_backend:
        reason = "not_source" if lang is None else "no_symbol_backend"
        return Classification("allow", reason, display, lang.name if lang else None, "Allowed: not gated.")
    if content is None:
        content = read_if_exists(path)
    if content is None:
        return Classification("allow", "new_file", display, lang.name, "Allowed: creating a new file.")
    old_src, new_src = content.replace("\r\n", "\n").encode(), new_content.replace("\r\n", "\n").encode()
    old_defs, new_defs = find_definitions(lang, old_src), find_definitions(lang, new_src)
    old_texts, new_texts = _texts(old_src, old_defs), _texts(new_src, new_defs)
    seen: dict[str, int] = defaultdict(int)
    touched: list[tuple[Definition, str]] = []
    for d in old_defs:
        rank = seen[d.name_path]
        seen[d.name_path] += 1
        after = new_texts.get(d.name_path, [])
        if rank >= len(after):
            touched.append((d, "removed"))
        elif after[rank] != old_texts[d.name_path][rank]:
            touched.append((d, "edited"))
    seen.clear()
    added = []
    for d in new_defs:
        seen[d.name_path] += 1
        if seen[d.name_path] > len(old_texts.get(d.name_path, [])):
            added.append(d)
    if not touched and not added:
        return Classification("allow", "no_definition", display, lang.name, "Allowed: the write changes no definition.")
    changes = {d.name_path: change for d, change in touched}
    top_touched = outermost([d for d, _ in touched])
    quoted = shlex.quote(display)
    names = [d.name_path for d in old_defs]
    commands = []
    for d in top_touched:
        address = shlex.quote(address_for(names, old_defs.index(d)))
        if changes[d.name_path] == "removed":
            commands.append(f"gateway remove-symbol {address} {quoted}")
        else:
            commands.append(f"gateway replace-symbol {address} {quoted} --body-file NEW_DEFINITION_FILE")
    for d in outermost(added):
        commands.append(f"gateway insert-code {_anchor(d, new_defs, old_defs)} {quoted} --position after --code-file NEW_CODE_FILE")
    kinds = {change for _, change in touched}
    tool = "insert_code" if not touched else "remove_symbol" if kinds == {"removed"} and not added else "replace_symbol"
    listed = tuple(TouchedDefinition(d.kind, d.name, d.name_path, d.name_line, change) for d, change in touched) + tuple(
        TouchedDefinition(d.kind, d.name, d.name_path, d.name_line, "added") for d in added
    )
    message = block_message(display, lang, tool, listed, commands, action="whole-file write")
    return Classification("block", "definition", display, lang.name, message, tool, listed, tuple(commands))


def _anchor(added: Definition, new_defs: list[Definition], old_defs: list[Definition]) -> str:
    """The existing definition the added one follows in the new content (`/`: the file)."""
    old_names = [d.name_path for d in old_defs]
    before = [d for d in new_defs if d.end_byte <= added.start_byte and d.name_path in old_names]
    if not before:
        return "/"
    previous = before[-1]
    rank = [d for d in new_defs if d.name_path == previous.name_path].index(previous)
    namesakes = [i for i, name in enumerate(old_names) if name == previous.name_path]
    return shlex.quote(address_for(old_names, namesakes[min(rank, len(namesakes) - 1)]))
