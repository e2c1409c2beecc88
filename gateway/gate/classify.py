"""Pure: (language, effect) → verdict.

A write is structural when it adds, removes or renames a definition (B's and A's
definitions matched by name path and order; one an ERROR node swallows counts as removed),
or, when it is multi-line, changes a definition's header: its tokens outside the body
(decorators, modifiers, name, parameters, bases, return type). Changes confined to bodies
pass, whatever old_string carried as context. Only the definitions that overlap the change, or whose
syntax the change altered, are looked at.
"""

from __future__ import annotations

import bisect
import functools
import shlex
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tree_sitter import Tree

from gateway.gate.effect import Effect, line_breaks
from gateway.gate.syntax_problems import first_problem, new_syntax_problem
from gateway.gate.verdict import ChangedLines, Classification, Tool, TouchedDefinition, allow, block_message, syntax_refusal
from gateway.langs import Language
from gateway.namepath import address_for
from gateway.syntax import Definition, definitions, edited_tree, header_tokens, parse, widened_range

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


def changed_lines(effect: Effect) -> tuple[ChangedLines, ...]:
    before = effect.before or ""
    ends_b = [max(r.before[0], r.before[1] - 1) for r in effect.regions]
    ends_a = [max(r.after[0], r.after[1] - 1) for r in effect.regions]
    lines_b = _line_numbers(before, [r.before[0] for r in effect.regions] + ends_b)
    lines_a = _line_numbers(effect.after, [r.after[0] for r in effect.regions] + ends_a)
    result = []
    for region, end_b, end_a in zip(effect.regions, ends_b, ends_a, strict=True):
        (b0, b1), (a0, a1) = region.before, region.after
        count_b = lines_b[end_b] - lines_b[b0] + 1 if b1 > b0 else 0
        count_a = lines_a[end_a] - lines_a[a0] + 1 if a1 > a0 else 0
        result.append(ChangedLines(lines_b[b0], count_b, lines_a[a0], count_a))
    return tuple(result)


class _Mapping:
    """Byte offsets of B carried to A through the changed regions (None: inside one)."""

    def __init__(self, regions: Sequence[tuple[Span, Span]]) -> None:
        self.regions = sorted(regions)

    def __call__(self, offset: int) -> int | None:
        shift = 0
        for (b0, b1), (_, a1) in self.regions:
            if offset < b0:
                return offset + shift
            if offset == b0 == b1:
                return a1
            if offset < b1:
                return None
            shift = a1 - b1
        return offset + shift


def _touches(spans: Iterable[Span], regions: Sequence[Span], ends: Sequence[int]) -> bool:
    """Whether any span meets any region (sorted, disjoint), edges included."""
    for start, end in spans:
        at = bisect.bisect_left(ends, start)
        if at < len(regions) and regions[at][0] <= end:
            return True
    return False


@dataclass
class _Matching:
    pairs: list[tuple[Definition, Definition]] = field(default_factory=list)
    removed: list[Definition] = field(default_factory=list)
    added: list[Definition] = field(default_factory=list)
    renamed: list[tuple[Definition, Definition]] = field(default_factory=list)


def _key(definition: Definition, renames: dict[str, str]) -> str:
    """B's name path with renamed ancestors given their new names."""
    parts = definition.name_path.split("/")
    for cut in range(len(parts) - 1, 0, -1):
        prefix = "/".join(parts[:cut])
        if prefix in renames:
            return renames[prefix] + "/" + "/".join(parts[cut:])
    return definition.name_path


def _pair(defs_b: list[Definition], defs_a: list[Definition], mapping: _Mapping, renames: dict[str, str]) -> _Matching:
    """Same name path: the one at the same place first, then in order."""
    by_path: dict[str, list[Definition]] = defaultdict(list)
    for d in defs_a:
        by_path[d.name_path].append(d)
    result, waiting = _Matching(), defaultdict(list)
    for b in defs_b:
        candidates = by_path.get(_key(b, renames), [])
        target = mapping(b.name_start_byte)
        same = next((a for a in candidates if a.name_start_byte == target), None)
        if same is None:
            waiting[_key(b, renames)].append(b)
            continue
        candidates.remove(same)
        result.pairs.append((b, same))
    for path, left in waiting.items():
        candidates = by_path.get(path, [])
        result.pairs += zip(left, candidates[: len(left)])
        result.removed += left[len(candidates) :]
        del candidates[: len(left)]
    result.added = sorted((a for rest in by_path.values() for a in rest), key=lambda d: d.start_byte)
    result.removed.sort(key=lambda d: d.start_byte)
    return result


def _same_place(b: Definition, a: Definition, mapping: _Mapping) -> bool:
    end = mapping(b.end_byte - 1)
    return mapping(b.start_byte) == a.start_byte or (end is not None and end + 1 == a.end_byte)


def _match(defs_b: list[Definition], defs_a: list[Definition], mapping: _Mapping) -> _Matching:
    """Pairs, removals, additions and renames; a rename's children keep their pairing."""
    renames: dict[str, str] = {}
    total = _Matching()
    left_b, left_a = defs_b, defs_a
    for _ in range(16):
        step = _pair(left_b, left_a, mapping, renames)
        total.pairs += step.pairs
        left_b, left_a = step.removed, step.added
        found = []
        for b in left_b:
            parent = _key(b, renames).rpartition("/")[0]
            a = next((a for a in left_a if a.kind == b.kind and a.name_path.rpartition("/")[0] == parent and _same_place(b, a, mapping)), None)
            if a is not None:
                found.append((b, a))
                left_a = [x for x in left_a if x is not a]
        if not found:
            break
        total.renamed += found
        renames.update({b.name_path: a.name_path for b, a in found})
        left_b = [b for b in left_b if all(b is not r for r, _ in found)]
    total.removed, total.added = left_b, left_a
    return total


def _outermost(defs: list[Definition]) -> list[Definition]:
    return [d for d in defs if not any(o is not d and o.start_byte <= d.start_byte and d.end_byte <= o.end_byte for o in defs)]


@dataclass
class _Judgement:
    """Everything the verdict and its commands need."""

    lang: Language
    tree_b: Tree
    tree_a: Tree
    matching: _Matching
    header: list[tuple[Definition, Definition]]
    swallowed: list[Definition]
    inside: bool
    delta: int
    window_a: Span
    mapping: _Mapping

    @property
    def structural(self) -> bool:
        m = self.matching
        return bool(self.header or self.swallowed or m.removed or m.added or m.renamed)


def _windows(effect: Effect) -> tuple[bytes, bytes, list[tuple[Span, Span]]]:
    before_text = effect.before or ""
    bb = _byte_offsets(before_text, [o for r in effect.regions for o in r.before])
    ab = _byte_offsets(effect.after, [o for r in effect.regions for o in r.after])
    regions = [((bb[r.before[0]], bb[r.before[1]]), (ab[r.after[0]], ab[r.after[1]])) for r in effect.regions]
    return before_text.encode("utf-8"), effect.after.encode("utf-8"), regions


def judge(lang: Language, effect: Effect) -> _Judgement:
    before, after, regions = _windows(effect)
    low = min(b0 for (b0, _), _ in regions)
    high_b, high_a = max(b1 for (_, b1), _ in regions), max(a1 for _, (_, a1) in regions)
    tree_b = parse(lang, before)
    tree_a, changed = edited_tree(lang, tree_b, before, after, low, high_b, high_a)
    delta = high_a - high_b
    start = min([low] + [s for s, _ in changed])
    end_a = max([high_a] + [e for _, e in changed])
    end_a = max(end_a, start + 1)
    # Widened alike on both sides, so a definition outside the change is on both lists or on neither.
    wide_b = widened_range(lang, tree_b, (start, end_a - delta))[1]
    wide_a = widened_range(lang, tree_a, (start, end_a))[1]
    window_a = (start, max(wide_a, wide_b + delta))
    defs_b = definitions(lang, tree_b, (start, window_a[1] - delta))
    defs_a = definitions(lang, tree_a, window_a)
    mapping, back = _Mapping(regions), _Mapping([(a, b) for b, a in regions])
    matching = _match(defs_b, defs_a, mapping)
    # A definition the change shrinks (or grows) out of one window is looked up where it starts.
    more_a = _at_starts(lang, tree_a, matching.removed, mapping, defs_a)
    more_b = _at_starts(lang, tree_b, matching.added, back, defs_b)
    if more_a or more_b:
        defs_b = sorted(defs_b + more_b, key=lambda d: (d.start_byte, -d.end_byte))
        defs_a = sorted(defs_a + more_a, key=lambda d: (d.start_byte, -d.end_byte))
        matching = _match(defs_b, defs_a, mapping)
    spans_b, spans_a = sorted(r for r, _ in regions), sorted(r for _, r in regions)
    ends_b, ends_a = [e for _, e in spans_b], [e for _, e in spans_a]
    header, swallowed = [], []
    for b, a in matching.pairs:
        if a.in_error and not b.in_error:
            swallowed.append(b)
        elif b.kind != a.kind or (
            (_touches(b.header_spans, spans_b, ends_b) or _touches(a.header_spans, spans_a, ends_a))
            and header_tokens(tree_b, b) != header_tokens(tree_a, a)
        ):
            header.append((b, a))
    inside = any(_touches([(d.start_byte, d.end_byte)], spans_b, ends_b) for d in defs_b)
    return _Judgement(lang, tree_b, tree_a, matching, header, swallowed, inside, delta, window_a, mapping)


def _at_starts(lang: Language, tree: Tree, unmatched: list[Definition], mapping: _Mapping, known: list[Definition]) -> list[Definition]:
    """Definitions of the other side that begin where the unmatched ones begin (mapped)."""
    found: list[Definition] = []
    for d in unmatched:
        at = mapping(d.start_byte)
        if at is None:
            continue
        for other in definitions(lang, tree, (at, at + 1)):
            if other.start_byte == at and other not in known and other not in found:
                found.append(other)
    return found


class _Addresses:
    """Name paths that resolve to exactly one definition of the file before the write."""

    def __init__(self, judgement: _Judgement) -> None:
        self.judgement = judgement
        self.before = definitions(judgement.lang, judgement.tree_b)
        self.paths = [d.name_path for d in self.before]

    @functools.cached_property
    def after(self) -> list[Definition]:
        return definitions(self.judgement.lang, self.judgement.tree_a)

    def of(self, definition: Definition) -> str:
        position = next((i for i, d in enumerate(self.before) if d.start_byte == definition.start_byte and d.name_path == definition.name_path), None)
        return definition.name_path if position is None else address_for(self.paths, position)

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


def _touched(judgement: _Judgement) -> list[tuple[TouchedDefinition, Definition]]:
    m = judgement.matching
    listed: list[tuple[TouchedDefinition, Definition]] = []
    for b, a in judgement.header:
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "header"), b))
    for b, a in m.renamed:
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "renamed", a.name_path), b))
    for b in _outermost(m.removed + judgement.swallowed):
        listed.append((TouchedDefinition(b.kind, b.name, b.name_path, b.name_line, "removed"), b))
    for a in _outermost(m.added):
        listed.append((TouchedDefinition(a.kind, a.name, a.name_path, a.name_line, "added"), a))
    return sorted(listed, key=lambda item: (item[0].change == "added", item[0].line))


def _commands(judgement: _Judgement, listed: list[tuple[TouchedDefinition, Definition]], path: str) -> tuple[Tool, tuple[str, ...]]:
    addresses = _Addresses(judgement)
    quoted = shlex.quote(path)
    swallowed = {id(d) for d in judgement.swallowed}
    commands: list[str] = []
    for touched, definition in listed:
        if touched.change == "removed" and id(definition) not in swallowed:
            commands.append(f"gateway remove-symbol {shlex.quote(addresses.of(definition))} {quoted}")
        elif touched.change == "added":
            anchor = addresses.insert_anchor(definition)
            if anchor is None:
                parent = next((b for b, a in judgement.matching.pairs if a.name_path == definition.name_path.rpartition("/")[0]), None)
                target = addresses.of(parent) if parent else definition.name_path.rpartition("/")[0]
                commands.append(f"gateway replace-symbol {shlex.quote(target)} {quoted} --body-file NEW_DEFINITION_FILE")
            else:
                commands.append(
                    f"gateway insert-code {shlex.quote(anchor[0])} {quoted} --position {anchor[1]} --code-file NEW_CODE_FILE"
                )
        else:
            commands.append(f"gateway replace-symbol {shlex.quote(addresses.of(definition))} {quoted} --body-file NEW_DEFINITION_FILE")
    changes = {t.change for t, _ in listed}
    tool: Tool = "replace_symbol"
    if changes == {"removed"} and not swallowed:
        tool = "remove_symbol"
    elif changes == {"added"} and all(c.startswith("gateway insert-code") for c in commands):
        tool = "insert_code"
    return tool, tuple(dict.fromkeys(commands))


def _hidden_by_errors(judgement: _Judgement, b: Definition) -> bool:
    """Whether B's definition starts where A's parse broke (inside a node of A holding an error)."""
    start = judgement.mapping(b.start_byte)
    node = judgement.tree_a.root_node.descendant_for_byte_range(*((start, start + 1) if start is not None else judgement.window_a))
    while node is not None and node.parent is not None:
        if node.has_error:
            return True
        node = node.parent
    return False


def classify_effect(lang: Language | None, effect: Effect, action: str = "edit", refuse_syntax_errors: bool = True) -> Classification:
    """The gate's verdict on one write to one file. A write that adds a syntax error is refused
    as such, before (and instead of) any verdict on definitions."""
    path = effect.path
    if lang is None:
        return allow(path, None, "not_source", "not source code of a supported language.")
    if not lang.symbol_backend:
        return allow(path, lang.name, "no_symbol_backend", f"{lang.name} has no symbol backend.")
    if action == "edit":
        action = "multi-line edit" if effect.multi_line else "one-line edit"
    if effect.before is None or not effect.before.strip():
        problem = first_problem(lang, path, effect.after, parse(lang, effect.after.encode("utf-8", "surrogatepass")))
        if problem is not None and refuse_syntax_errors:
            return syntax_refusal(path, lang.name, action, problem, ())
        return allow(path, lang.name, "new_file", "creating a new file (or filling an empty one).")
    changed = changed_lines(effect)
    if not effect.changed:
        return allow(path, lang.name, "no_change", "the write changes nothing.")
    judgement = judge(lang, effect)
    if refuse_syntax_errors:
        problem = new_syntax_problem(lang, path, (effect.before, judgement.tree_b), (effect.after, judgement.tree_a), judgement.mapping)
        if problem is not None:
            return syntax_refusal(path, lang.name, action, problem, changed)
    else:  # a definition is not removed because the parse broke around it
        judgement.swallowed = []
        judgement.matching.removed = [b for b in judgement.matching.removed if not _hidden_by_errors(judgement, b)]
    if not effect.multi_line:
        # One line may change a header; it may not add, remove or rename a definition, or
        # consecutive one-line edits could take a definition apart a line at a time.
        judgement.header = []
    if not judgement.structural:
        if not effect.multi_line:
            return allow(path, lang.name, "single_line", "single-line edit.", changed)
        if judgement.inside:
            return allow(path, lang.name, "body_only", "the change stays inside definition bodies.", changed)
        return allow(path, lang.name, "no_definition", "the change touches no definition.", changed)
    listed = _touched(judgement)
    tool, commands = _commands(judgement, listed, path)
    touched = tuple(t for t, _ in listed)
    broken = bool(judgement.swallowed) or (judgement.tree_a.root_node.has_error and not judgement.tree_b.root_node.has_error)
    message = block_message(path, lang.name, tool, touched, commands, action, broken)
    return Classification("block", "definition", path, lang.name, message, tool, touched, commands, changed)
