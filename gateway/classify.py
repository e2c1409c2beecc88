"""The structural gate: which proposed text edits must go through a symbol operation instead."""

from __future__ import annotations

import os
import shlex
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gateway.langs import Language, LanguageRegistry, default_registry
from gateway.namepath import address_for
from gateway.syntax import Definition, definitions, find_definitions, parse, reparse

Decision = Literal["allow", "block"]
Tool = Literal["replace_symbol", "insert_code", "remove_symbol"]
Change = Literal["edited", "removed", "added"]


@dataclass(frozen=True)
class TouchedDefinition:
    """A definition the edit rewrites, removes or adds; `line` is its name's line."""

    kind: str
    name: str
    name_path: str
    line: int
    change: Change

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "name": self.name,
            "name_path": self.name_path,
            "line": self.line,
            "change": self.change,
        }


@dataclass(frozen=True)
class Classification:
    decision: Decision
    reason: str
    path: str
    language: str | None
    message: str
    suggested_tool: Tool | None = None
    definitions: tuple[TouchedDefinition, ...] = ()
    commands: tuple[str, ...] = ()

    @property
    def blocked(self) -> bool:
        return self.decision == "block"

    def to_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "reason": self.reason,
            "path": self.path,
            "language": self.language,
            "suggested_tool": self.suggested_tool,
            "definitions": [d.to_json() for d in self.definitions],
            "commands": list(self.commands),
            "message": self.message,
        }


@dataclass
class _Analysis:
    """What the edit does to definitions, in the original file and in the file after it."""

    touched: list[Definition]
    added: list[Definition]
    removed_names: set[str]
    inserted: list[Definition] = field(default_factory=list)
    insert_before: bool = False
    before_defs: list[Definition] = field(default_factory=list)
    after_defs: list[Definition] = field(default_factory=list)
    span: tuple[int, int] | None = None


def spans_lines(text: str) -> bool:
    """Two or more lines, not counting one trailing line break."""
    return "\n" in text.strip("\n")


def _lf(text: str) -> str:
    return text.replace("\r\n", "\n")


def _occurrences(source: bytes, fragment: bytes) -> list[int]:
    found: list[int] = []
    start = source.find(fragment) if fragment else -1
    while start != -1:
        found.append(start)
        start = source.find(fragment, start + len(fragment))
    return found


def _within(defs: list[Definition], spans: list[tuple[int, int]]) -> list[Definition]:
    return [d for d in defs if any(d.name_within(start, end) for start, end in spans)]


def _analyse(lang: Language, content: str | None, old: str, new: str, replace_all: bool) -> _Analysis:
    old_b, new_b = old.encode(), new.encode()
    source = content.encode() if content is not None else b""
    positions = _occurrences(source, old_b)
    if not positions:
        # No file, or the text is not in it: the fragments are all there is to parse.
        touched = find_definitions(lang, old_b) if old_b else []
        in_new = find_definitions(lang, new_b)
        kept_at = new_b.find(old_b)
        retained = [(kept_at, kept_at + len(old_b))] if kept_at >= 0 else []
        return _compare(touched, in_new, retained, [], in_new, None)
    if not replace_all:
        positions = positions[:1]
    tree = parse(lang, source)
    before = definitions(lang, tree)
    touched = _within(before, [(p, p + len(old_b)) for p in positions])
    edited, new_spans = bytearray(), []
    cursor = 0
    for p in positions:
        edited += source[cursor:p]
        new_spans.append((len(edited), len(edited) + len(new_b)))
        edited += new_b
        cursor = p + len(old_b)
    edited += source[cursor:]
    if len(positions) == 1:
        start = positions[0]
        tree = reparse(lang, tree, source, bytes(edited), start, start + len(old_b), start + len(new_b))
        after = definitions(lang, tree)
    else:
        after = find_definitions(lang, bytes(edited))
    in_new = _within(after, new_spans)
    kept_at = new_b.find(old_b)
    retained = [(s + kept_at, s + kept_at + len(old_b)) for s, _ in new_spans] if kept_at >= 0 else []
    return _compare(touched, in_new, retained, before, after, (positions[0], positions[0] + len(old_b)))


def _compare(
    touched: list[Definition],
    in_new: list[Definition],
    retained: list[tuple[int, int]],
    before: list[Definition],
    after: list[Definition],
    span: tuple[int, int] | None,
) -> _Analysis:
    old_count = Counter(d.name for d in touched)
    new_count = Counter(d.name for d in in_new)
    seen: Counter[str] = Counter()
    added = []
    for definition in in_new:
        seen[definition.name] += 1
        if seen[definition.name] > old_count[definition.name]:
            added.append(definition)
    removed_names = {name for name, count in old_count.items() if new_count[name] < count}
    inserted: list[Definition] = []
    insert_before = False
    if retained:
        inside = _within(in_new, retained)
        inserted = [d for d in in_new if d not in inside]
        insert_before = bool(inserted) and all(d.name_end_byte <= retained[0][0] for d in inserted)
    return _Analysis(touched, added, removed_names, inserted, insert_before, before, after, span)


def outermost(defs: list[Definition]) -> list[Definition]:
    """The definitions not nested in another one of `defs`."""
    return [
        d
        for d in defs
        if not any(o is not d and o.start_byte <= d.start_byte and d.end_byte <= o.end_byte for o in defs)
    ]


def _enclosing(analysis: _Analysis) -> Definition | None:
    if analysis.span is None:
        return None
    start, end = analysis.span
    around = [d for d in analysis.before_defs if d.start_byte <= start and end <= d.end_byte]
    return around[-1] if around else None


def _neighbour(analysis: _Analysis) -> tuple[str, str]:
    """An anchor for inserting near the edited text: (name path, position)."""
    before = analysis.before_defs
    enclosing = _enclosing(analysis)
    if enclosing is not None:
        return _addressed(enclosing, before), "after"
    if analysis.span is not None:
        start, _ = analysis.span
        top = outermost(before)
        previous = [d for d in top if d.end_byte <= start]
        if previous:
            return _addressed(previous[-1], before), "after"
        following = [d for d in top if d.start_byte >= start]
        if following:
            return _addressed(following[0], before), "before"
    return "/", "after"


def _suggest(old: str, new: str, analysis: _Analysis) -> Tool:
    if not new.strip():
        return "remove_symbol"
    if old in new and analysis.inserted:
        return "insert_code"
    return "replace_symbol"


def _addressed(definition: Definition, among: list[Definition]) -> str:
    """The name path that picks exactly this definition in its file."""
    return address_for([d.name_path for d in among], among.index(definition))


def _parent_path(definition: Definition) -> str:
    return definition.name_path.rpartition("/")[0]


def _insert_anchor(analysis: _Analysis) -> tuple[str, str]:
    """The sibling the first inserted definition lands next to, in the file after the edit."""
    first = analysis.inserted[0]
    siblings = [
        d
        for d in analysis.after_defs
        if d not in analysis.inserted and _parent_path(d) == _parent_path(first)
    ]
    previous = [d for d in siblings if d.end_byte <= first.start_byte]
    if previous:
        return _addressed(previous[-1], analysis.after_defs), "after"
    following = [d for d in siblings if d.start_byte >= first.end_byte]
    if following:
        return _addressed(following[0], analysis.after_defs), "before"
    return _neighbour(analysis)


def _insert_command(anchor: tuple[str, str], path: str) -> str:
    name_path, position = anchor
    return f"gateway insert-code {shlex.quote(name_path)} {shlex.quote(path)} --position {position} --code-file NEW_CODE_FILE"


def _commands(tool: Tool, path: str, analysis: _Analysis) -> list[str]:
    quoted = shlex.quote(path)
    top = outermost(analysis.touched)
    addressed = [_addressed(d, analysis.before_defs or analysis.touched) for d in top]
    if tool == "remove_symbol":
        return [f"gateway remove-symbol {shlex.quote(name_path)} {quoted}" for name_path in addressed]
    if tool == "insert_code":
        return [_insert_command(_insert_anchor(analysis), path)]
    targets = addressed
    if not targets:
        enclosing = _enclosing(analysis)
        if enclosing is None:
            return [_insert_command(_neighbour(analysis), path)]
        targets = [_addressed(enclosing, analysis.before_defs)]
    return [
        f"gateway replace-symbol {shlex.quote(t)} {quoted} --body-file NEW_DEFINITION_FILE" for t in targets
    ]


def _touched_list(analysis: _Analysis) -> tuple[TouchedDefinition, ...]:
    listed = [
        TouchedDefinition(
            d.kind, d.name, d.name_path, d.name_line, "removed" if d.name in analysis.removed_names else "edited"
        )
        for d in analysis.touched
    ]
    listed += [TouchedDefinition(d.kind, d.name, d.name_path, d.name_line, "added") for d in analysis.added]
    return tuple(listed)


_VERBS = {"edited": "rewrites", "removed": "removes", "added": "adds"}
_WHAT = {
    "replace_symbol": "passing the complete new definition",
    "insert_code": "passing only the new code",
    "remove_symbol": "which also removes its decorators, attributes and doc comment",
}


def block_message(
    path: str, lang: Language, tool: Tool, touched: tuple[TouchedDefinition, ...], commands: list[str], action: str = "multi-line edit"
) -> str:
    shown = [f"{_VERBS[d.change]} {d.kind} `{d.name_path}` (line {d.line})" for d in touched[:6]]
    if len(touched) > 6:
        shown.append(f"{len(touched) - 6} more")
    joined = "; ".join(commands)
    return (
        f"Blocked: this {action} to {path} {', '.join(shown)}. "
        f"Definitions in {lang.name} change through symbol operations, not string replacement; "
        f"there is no bypass. Use {tool} (MCP tool `{tool}`), {_WHAT[tool]}: {joined}"
    )


def _allow(path: str, language: str | None, reason: str, message: str) -> Classification:
    return Classification("allow", reason, path, language, f"Allowed: {message}")


def read_if_exists(path: str | os.PathLike[str]) -> str | None:
    from gateway.textfile import decode

    candidate = Path(path)
    return decode(candidate.read_bytes(), str(path))[0] if candidate.is_file() else None


def classify_edit(
    path: str | os.PathLike[str],
    old_string: str,
    new_string: str,
    content: str | None = None,
    *,
    replace_all: bool = False,
    registry: LanguageRegistry | None = None,
) -> Classification:
    """Decide whether replacing `old_string` with `new_string` in `path` may go through as text.

    `content` is the file's text; when None the file is read if it exists. Definitions are
    located in the file's own syntax tree (old) and in the tree of the file after the edit
    (new), so fragments that do not parse alone are still judged correctly.
    """
    display = str(path)
    lang = (registry or default_registry()).for_path(path)
    if lang is None:
        return _allow(display, None, "not_source", "not source code of a supported language.")
    if not lang.symbol_backend:
        return _allow(display, lang.name, "no_symbol_backend", f"{lang.name} has no symbol backend.")
    if content is None:
        content = read_if_exists(path)
    old, new = _lf(old_string), _lf(new_string)
    analysis = _analyse(lang, _lf(content) if content is not None else None, old, new, replace_all)
    if not (spans_lines(old) or (spans_lines(new) and analysis.added)):
        return _allow(display, lang.name, "single_line", "single-line edit.")
    if not analysis.touched and not analysis.added:
        return _allow(display, lang.name, "no_definition", "the edit touches no definition.")
    tool = _suggest(old, new, analysis)
    touched = _touched_list(analysis)
    commands = _commands(tool, display, analysis)
    return Classification(
        decision="block",
        reason="definition",
        path=display,
        language=lang.name,
        message=block_message(display, lang, tool, touched, commands),
        suggested_tool=tool,
        definitions=touched,
        commands=tuple(commands),
    )
