"""Pure: (language, effect) → verdict.

A write is structural when it adds, removes or renames a definition (B's and A's
definitions matched by name path and order; one an ERROR node swallows counts as removed),
or, when it is multi-line, changes a definition's header: its tokens outside the body
(decorators, modifiers, name, parameters, bases, return type). Changes confined to bodies
pass, whatever old_string carried as context. Only the definitions that overlap the change,
or whose syntax the change altered, are looked at. A C or C++ write that adds or removes what
a macro call defines (gate/macros.py; headers and a server are read through the
`MacroSources` the caller gives) is refused as it is.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

from tree_sitter import Tree

from gateway.gate.effect import Effect, line_breaks
from gateway.gate.judgement import _Judgement, judge
from gateway.gate.macros import MacroEffect, MacroSources, Side, macro_effect
from gateway.gate.readings import judged_reading
from gateway.gate.shadows import Hidden, guarded, shadowed
from gateway.gate.unreadable import Unseen, unseen
from gateway.gate.syntax_problems import SyntaxProblem, first_problem, new_syntax_problem
from gateway.gate.tree_errors import error_total
from gateway.gate.verdict import ChangedLines, Classification, Tool, TouchedDefinition, allow, block_message, syntax_refusal
from gateway.langs import Language
from gateway.namepath import address_for
from gateway.results import SuggestedOperation
from gateway.syntax import Definition, definitions, definitions_named, header_tokens, parse, utf8

Span = tuple[int, int]


def _byte_offsets(text: str, offsets: Iterable[int]) -> dict[int, int]:
    """UTF-8 byte offsets of character offsets, encoding each stretch once."""
    wanted = sorted(set(offsets))
    if text.isascii():
        return {o: o for o in wanted}
    found, char, byte = {}, 0, 0
    for offset in wanted:
        byte += len(text[char:offset].encode("utf-8"))
        char = offset
        found[offset] = byte
    return found


def _line_numbers(text: str, offsets: Iterable[int]) -> dict[int, int]:
    """1-based line of each character offset, line breaks as LINE_BREAK counts them."""
    found, char, line = {}, 0, 1
    for offset in sorted(set(offsets)):
        line += line_breaks(text, char, offset)
        char = offset
        found[offset] = line
    return found


def _at_line_start(text: str, offset: int) -> bool:
    return offset == 0 or line_breaks(text, offset - 1, offset) == 1


def changed_lines(effect: Effect) -> tuple[ChangedLines, ...]:
    """The whole lines each region changes: a change inside a line changes that line (one line
    before, one after); text inserted between lines changes none before."""
    before = effect.before or ""
    # A region that ends inside a line (on either side) changes that line too.
    whole = [_at_line_start(before, r.before[1]) and _at_line_start(effect.after, r.after[1]) for r in effect.regions]
    ends_b = [r.before[1] - 1 if w and r.before[1] > r.before[0] else r.before[1] for r, w in zip(effect.regions, whole, strict=True)]
    ends_a = [r.after[1] - 1 if w and r.after[1] > r.after[0] else r.after[1] for r, w in zip(effect.regions, whole, strict=True)]
    lines_b = _line_numbers(before, [r.before[0] for r in effect.regions] + ends_b)
    lines_a = _line_numbers(effect.after, [r.after[0] for r in effect.regions] + ends_a)
    result = []
    for region, ended, end_b, end_a in zip(effect.regions, whole, ends_b, ends_a, strict=True):
        (b0, b1), (a0, a1) = region.before, region.after
        count_b = lines_b[end_b] - lines_b[b0] + 1 if b1 > b0 or not ended else 0
        count_a = lines_a[end_a] - lines_a[a0] + 1 if a1 > a0 or not ended else 0
        result.append(ChangedLines(lines_b[b0], count_b, lines_a[a0], count_a))
    return tuple(result)


def _windows(effect: Effect) -> tuple[bytes, bytes, list[tuple[Span, Span]]]:
    before_text = effect.before or ""
    bb = _byte_offsets(before_text, [o for r in effect.regions for o in r.before])
    ab = _byte_offsets(effect.after, [o for r in effect.regions for o in r.after])
    regions = [((bb[r.before[0]], bb[r.before[1]]), (ab[r.after[0]], ab[r.after[1]])) for r in effect.regions]
    return utf8(before_text), utf8(effect.after), regions


def _outermost(defs: list[Definition]) -> list[Definition]:
    return [d for d in defs if not any(o is not d and o.start_byte <= d.start_byte and d.end_byte <= o.end_byte for o in defs)]


class _Addresses:
    """Name paths that resolve to exactly one definition of the file before the write."""

    def __init__(self, judgement: _Judgement) -> None:
        self.judgement = judgement

    @functools.cached_property
    def before(self) -> list[Definition]:
        return definitions(self.judgement.lang, self.judgement.tree_b)

    @functools.cached_property
    def after(self) -> list[Definition]:
        return definitions(self.judgement.lang, self.judgement.tree_a)

    def of(self, definition: Definition) -> str:
        """The shortest address of B's definition, among those of its name (no other matches its
        name path; a name holding the separator, a C++ `operator/`, among all)."""
        named = self.before if "/" in definition.name else definitions_named(self.judgement.lang, self.judgement.tree_b, definition.name)
        position = next((i for i, d in enumerate(named) if d.start_byte == definition.start_byte and d.name_path == definition.name_path), None)
        return definition.name_path if position is None else address_for([d.name_path for d in named], position)

    def _in_before(self, a: Definition) -> Definition | None:
        """The definition of B an unchanged definition of A stands for."""
        for b, paired in self.judgement.matching.pairs:
            if paired == a:
                return b
        low, high = self.judgement.window_a
        if a.end_byte <= low or a.start_byte >= high:
            start = a.start_byte - (self.judgement.delta if a.start_byte >= high else 0)
            return next((b for b in self.before if b.start_byte == start), None)
        return None

    def insert_anchor(self, added: Definition) -> tuple[str, str] | None:
        """(name path, position) of the sibling the added definition goes beside, or None."""
        parent = added.name_path.rpartition("/")[0]
        new = {id(d) for d in self.judgement.matching.added}
        siblings = [d for d in self.after if d.name_path.rpartition("/")[0] == parent and id(d) not in new]
        previous = [d for d in siblings if d.end_byte <= added.start_byte]
        following = [d for d in siblings if d.start_byte >= added.end_byte]
        for candidates, position in ((previous[::-1], "after"), (following, "before")):
            for sibling in candidates[:1]:
                b = self._in_before(sibling)
                if b is not None:
                    return self.of(b), position
        return ("/", "after") if not parent else None


def overrides(tree: Tree, definition: Definition) -> bool:
    """Whether the definition says it overrides its supertype's (`@Override`, `override`): its
    name is that method's, which calls reach it through, and which a rename would rename too."""
    tokens = header_tokens(tree, definition)
    return "override" in tokens or any(t == "@" and after == "Override" for t, after in zip(tokens, tokens[1:]))


OVERRIDE = "an override: calls reach it through the method it overrides, which rename_symbol would rename too"


def _touched(judgement: _Judgement) -> list[tuple[TouchedDefinition, Definition]]:
    m = judgement.matching
    listed: list[tuple[TouchedDefinition, Definition]] = []
    for b, a in judgement.header:
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "header"), b))
    for b, a in m.renamed:
        detail = OVERRIDE if overrides(judgement.tree_b, b) else None
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "renamed", a.name_path, detail), b))
    for b in _outermost(m.removed + judgement.swallowed):
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "removed"), b))
    for a in _outermost(m.added):
        listed.append((TouchedDefinition(a.kind, a.name, a.name_path, a.name_line, "added"), a))
    return sorted(listed, key=lambda item: (item[0].change == "added", item[0].line))


def _suggested(judgement: _Judgement, listed: list[tuple[TouchedDefinition, Definition]],
               path: str) -> tuple[Tool, tuple[SuggestedOperation, ...]]:
    """The symbol operation for each touched definition (a text parameter's value names a file
    holding the text: NEW_DEFINITION_FILE), and the tool they mostly are."""
    addresses = _Addresses(judgement)
    swallowed = {id(d) for d in judgement.swallowed}
    suggested: list[SuggestedOperation] = []
    for touched, definition in listed:
        if touched.change == "shadowed" or (touched.change == "removed" and id(definition) not in swallowed):
            suggested.append(SuggestedOperation.of("remove_symbol", name_path=addresses.of(definition), path=path))
        elif touched.change == "added":
            anchor = addresses.insert_anchor(definition)
            if anchor is None:
                parent = next((b for b, a in judgement.matching.pairs if a.name_path == definition.name_path.rpartition("/")[0]), None)
                target = addresses.of(parent) if parent else definition.name_path.rpartition("/")[0]
                suggested.append(SuggestedOperation.of("replace_symbol", name_path=target, path=path, body="NEW_DEFINITION_FILE"))
            else:
                suggested.append(SuggestedOperation.of("insert_code", name_path=anchor[0], path=path, position=anchor[1], code="NEW_CODE_FILE"))
        elif touched.change == "renamed" and touched.new_name_path is not None and touched.detail is None:
            new_name = touched.new_name_path.rpartition("/")[2]
            suggested.append(SuggestedOperation.of("rename_symbol", name_path=addresses.of(definition), path=path, new_name=new_name))
        else:
            suggested.append(SuggestedOperation.of("replace_symbol", name_path=addresses.of(definition), path=path, body="NEW_DEFINITION_FILE"))
    changes = {t.change for t, _ in listed}
    tool: Tool = "replace_symbol"
    if changes == {"renamed"} and all(t.detail is None for t, _ in listed):
        tool = "rename_symbol"
    elif changes <= {"removed", "shadowed"} and not swallowed:
        tool = "remove_symbol"
    elif changes == {"added"} and all(s.operation == "insert_code" for s in suggested):
        tool = "insert_code"
    return tool, tuple(dict.fromkeys(suggested))


def _hidden(judgement: _Judgement) -> list[Hidden]:
    """Definitions the write takes away without deleting them, each once, unless already listed."""
    listed = {id(b) for b, _ in judgement.header} | {id(b) for b in judgement.matching.removed} | {id(b) for b, _ in judgement.matching.renamed}
    found: dict[tuple[int, str], Hidden] = {}
    for hidden in guarded(judgement) + shadowed(judgement):
        key = (hidden.definition.start_byte, hidden.definition.name_path)
        if id(hidden.definition) not in listed and key not in found:
            found[key] = hidden
    return [h for h in found.values() if not any(o is not h and o.definition.start_byte < h.definition.start_byte < o.definition.end_byte
                                                   for o in found.values())]


def _unreadable(path: str, language: str, action: str, invisible: list[Unseen], changed: tuple[ChangedLines, ...]) -> Classification:
    """A write that adds or removes definitions where tree-sitter cannot read the file: refused
    as it is (no symbol operation can be planned on a tree that does not show them)."""
    touched = tuple(TouchedDefinition(u.kind, u.name, u.name, u.line, "added" if u.change == "added" else "removed") for u in invisible)
    shown = "; ".join(f"{'adds' if u.change == 'added' else 'removes'} {u.kind} `{u.name}` (line {u.line})" for u in invisible[:6])
    find = SuggestedOperation.of("find_symbol", name_path=invisible[0].name, path=path)
    message = (
        f"Blocked: this {action} to {path} {shown}, in lines tree-sitter cannot read as part of the file (macros or "
        f"syntax its {language} grammar does not know), so no symbol operation can be planned there. Nothing was "
        f"written; make the change with the symbol tools, which ask the language server "
        f"(find it with `{find}`), or by hand outside the gateway's hosts."
    )
    return Classification("block", "unreadable", path, language, message, None, touched, (find,), changed)


def _hidden_by_errors(judgement: _Judgement, b: Definition) -> bool:
    """Whether B's definition starts where A's parse broke (inside a node of A holding an error)."""
    start = judgement.mapping(b.start_byte)
    node = judgement.tree_a.root_node.descendant_for_byte_range(*((start, start + 1) if start is not None else judgement.window_a))
    while node is not None and node.parent is not None:
        if node.has_error:
            return True
        node = node.parent
    return False


def _macro_made(lang: Language, effect: Effect, judgement: _Judgement, regions: list[tuple[Span, Span]],
                sources: MacroSources) -> MacroEffect:
    if lang.preprocessor is None:
        return MacroEffect()
    before, after = effect.before or "", effect.after
    return macro_effect(lang, effect.path,
                        Side(before, utf8(before), judgement.tree_b, [b for b, _ in regions]),
                        Side(after, utf8(after), judgement.tree_a, [a for _, a in regions]), sources)


def _macro_block(path: str, language: str, action: str, made: MacroEffect, changed: tuple[ChangedLines, ...]) -> Classification:
    """A write that adds or removes definitions a macro call makes: refused as it is (symbol
    operations change definitions as written, not what a macro makes of a call)."""
    touched = tuple(TouchedDefinition(m.kind, m.name, m.name_path, m.line, "added", detail=f"made by `{m.call}`, {m.source}")
                    for m in made.added)
    touched += tuple(TouchedDefinition(m.kind, m.name, m.name_path, m.line, "removed", detail=f"made by `{m.call}`, {m.source}")
                     for m in made.removed)
    listed = [(t.change, m) for t, m in zip(touched, made.added + made.removed, strict=True)]
    shown = "; ".join(f"{'adds' if change == 'added' else 'removes'} {m.kind} `{m.name_path}` (line {m.line}), which "
                      f"`{m.call}` makes ({m.source})" for change, m in listed[:6])
    message = (
        f"Blocked: this {action} to {path} {shown}. Nothing was written: a definition a macro call makes is changed "
        f"by adding or removing the call, which symbol operations cannot plan; make this change by hand outside the "
        f"gateway's hosts, or change the definitions as written code with the symbol tools."
    )
    return Classification("block", "macro", path, language, message, None, touched, (), changed)


def _unverified(path: str, language: str, action: str, made: MacroEffect, changed: tuple[ChangedLines, ...]) -> Classification:
    shown = "; ".join(f"{'adds' if change == 'added' else 'removes'} `{call.text}` (line {call.line})" for change, call in made.unverified[:6])
    return allow(path, language, "unverified_macro", (
        f"unverified: this {action} {shown}, a macro call that may define functions or methods; its macro is defined "
        f"neither in the file nor in a workspace header it includes, and no language server listed what it makes."), changed)


def _uncertain(verdict: Classification, problem: SyntaxProblem, action: str) -> Classification:
    """An allowed write that may add a syntax error the grammar cannot judge: allowed, saying
    where and why it went unjudged."""
    if verdict.blocked:
        return verdict
    said = verdict.message.removeprefix("Allowed: ")
    message = (f"uncertain: this {action} to {verdict.path} may add a syntax error at {problem}, but the gateway could not "
               f"tell: {problem.unsure}. Build or compile the file to check line {problem.line}. Otherwise: {said}")
    return allow(verdict.path, verdict.language, "uncertain_syntax", message, verdict.changed_lines)


def classify_effect(lang: Language | None, effect: Effect, action: str = "edit", refuse_syntax_errors: bool = True,
                    macros: MacroSources | None = None) -> Classification:
    """The gate's verdict on one write to one file. A write that adds a syntax error is refused
    as such, before (and instead of) any verdict on definitions; one the grammar cannot judge
    (`SyntaxProblem.unsure`) is judged on its definitions, and allowed as `uncertain_syntax`.
    `macros` says where else than the file macros are read (workspace headers, a language server)."""
    path = effect.path
    if lang is None:
        return allow(path, None, "not_source", "not source code of a supported language.")
    if not lang.symbol_backend:
        return allow(path, lang.name, "no_symbol_backend", f"{lang.name} has no symbol backend.")
    if action == "edit":
        action = "multi-line edit" if effect.multi_line else "one-line edit"
    if effect.before is None or not effect.before.strip():
        problem = first_problem(lang, path, effect.after, parse(lang, effect.after.encode("utf-8", "surrogatepass")), unsure=True)
        if problem is not None and problem.unsure is None and refuse_syntax_errors:
            return syntax_refusal(path, lang.name, action, problem, ())
        created = allow(path, lang.name, "new_file", "creating a new file (or filling an empty one).")
        return _uncertain(created, problem, action) if problem is not None and refuse_syntax_errors else created
    changed = changed_lines(effect)
    if not effect.changed:
        return allow(path, lang.name, "no_change", "the write changes nothing.")
    before, after, regions = _windows(effect)
    judgement = judge(lang, before, after, regions)
    problem = None
    if refuse_syntax_errors:
        problem = new_syntax_problem(lang, path, (effect.before, judgement.tree_b), (effect.after, judgement.tree_a), judgement.mapping, unsure=True)
        if problem is not None and problem.unsure is None:
            return syntax_refusal(path, lang.name, action, problem, changed)
    verdict = _on_definitions(lang, effect, (action, changed), (before, after, regions), judgement, (refuse_syntax_errors, problem, macros))
    return _uncertain(verdict, problem, action) if problem is not None else verdict


def _on_definitions(lang: Language, effect: Effect, said: tuple[str, tuple[ChangedLines, ...]], windows: tuple[bytes, bytes, list[tuple[Span, Span]]],
                    judgement: _Judgement, how: tuple[bool, SyntaxProblem | None, MacroSources | None]) -> Classification:
    """The verdict on what the write does to definitions (`said`: the action and its changed
    lines; `how`: whether new syntax errors are refused, the one the grammar could not judge,
    and where else macros are read)."""
    path, (action, changed) = effect.path, said
    before, after, regions = windows
    refused, unsure, macros = how
    judgement = judged_reading(lang, before, after, regions, judgement)
    if not refused or unsure is not None:  # a definition is not removed because the parse broke around it
        judgement.swallowed = []
        judgement.matching.removed = [b for b in judgement.matching.removed if not _hidden_by_errors(judgement, b)]
    if not effect.multi_line:
        # One line may change a header; it may not add, remove or rename a definition (nor
        # make a class a function), or consecutive one-line edits could take a definition
        # apart a line at a time.
        judgement.header = [(b, a) for b, a in judgement.header if b.kind != a.kind]
    hidden = _hidden(judgement)
    made = _macro_made(lang, effect, judgement, regions, macros or MacroSources())
    if made.added or made.removed:
        return _macro_block(path, lang.name, action, made, changed)
    if not judgement.structural and not hidden:
        invisible = unseen(lang, (judgement.tree_b, judgement.tree_a), (before, after), regions)
        if invisible:
            return _unreadable(path, lang.name, action, invisible, changed)
        if made.unverified:
            return _unverified(path, lang.name, action, made, changed)
        if not effect.multi_line:
            return allow(path, lang.name, "single_line", "single-line edit.", changed)
        if judgement.inside:
            return allow(path, lang.name, "body_only", "the change stays inside definition bodies.", changed)
        return allow(path, lang.name, "no_definition", "the change touches no definition.", changed)
    listed = _touched(judgement)
    listed += [(TouchedDefinition(h.definition.kind, h.definition.name, h.definition.name_path, h.definition.name_line, "shadowed",
                                  detail=f"{h.how} at line {h.line}"), h.definition) for h in hidden]
    tool, suggested = _suggested(judgement, listed, path)
    touched = tuple(t for t, _ in listed)
    broken = unsure is None and (bool(judgement.swallowed) or error_total(lang, judgement.tree_a) > error_total(lang, judgement.tree_b))
    message = block_message(path, lang.name, tool, touched, suggested, action, broken)
    return Classification("block", "definition", path, lang.name, message, tool, touched, suggested, changed)
