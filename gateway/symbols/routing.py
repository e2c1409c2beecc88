"""Routing: a structural write performed as the symbol operations it lifts to.

The lift (lift.py) splits B → A into patches of whole definitions; here each operation
gets the name path the backend knows it by, the result R is re-parsed and checked, and a
refusal says why. Nothing is written here: `commit` in the service writes R.
"""

from __future__ import annotations


import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gateway.edits import occurrences
from gateway.errors import GatewayError, SyntaxBroken
from gateway.gate.classify import overrides
from gateway.gate.effect import Effect
from gateway.namepath import address_for
from gateway.results import SuggestedOperation
from gateway.symbols.backends import TreeSitterBackend
from gateway.symbols.lift import LiftedOperation, Patch, lift
from gateway.symbols.model import Symbol
from gateway.symbols.nearby import lift_near
from gateway.gate.judgement import Mapping
from gateway.gate.syntax_problems import new_syntax_problem
from gateway.symbols.operations import TextChange, verify
from gateway.symbols.references import Referrers, listed, still_referenced
from gateway.symbols.service import FileSymbols, symbols_of
from gateway.symbols.text import LineIndex, char_to_byte
from gateway.syntax import definitions, parse, utf8

if TYPE_CHECKING:
    from tree_sitter import Tree

    from gateway.gate.verdict import Classification
    from gateway.langs import Language

# The places (path:line) outside a definition of the file before the write that refer, or may
# refer, to it (gateway.symbols.references.referrers on that file).
References = Callable[[Symbol], Referrers]


class RouteRefused(GatewayError):
    """The structural write cannot be performed as symbol operations; `reason` says why."""

    kind = "route_refused"
    suggested: tuple[SuggestedOperation, ...]

    def __init__(self, reason: str, message: str, suggested: tuple[SuggestedOperation, ...] = ()) -> None:
        super().__init__(message, suggested=suggested)
        self.reason = reason


@dataclass(frozen=True)
class RoutedOperation:
    """One performed operation. Lines are in the result, except for a removal (in the file before)."""

    tool: str
    name_path: str
    path: str
    start_line: int
    end_line: int
    backend: str
    position: str | None = None

    def to_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "tool": self.tool,
            "name_path": self.name_path,
            "path": self.path,
            "start_line": self.start_line,
            "end_line": self.end_line,
            "backend": self.backend,
        }
        if self.position:
            entry["position"] = self.position
        return entry

    def describe(self) -> str:
        if self.tool == "text":
            return f"a text change (lines {self.start_line}-{self.end_line})"
        if self.tool == "insert_code":
            where = "at the end of the file" if self.name_path == "/" else f"{self.position} `{self.name_path}`"
            return f"insert_code {where} (lines {self.start_line}-{self.end_line})"
        return f"{self.tool} `{self.name_path}` (lines {self.start_line}-{self.end_line})"


@dataclass(frozen=True)
class Route:
    """R, the operations that produce it from B, and how R compares with A."""

    path: str
    before: str
    result: str
    patches: tuple[tuple[tuple[int, int], tuple[int, int]], ...]
    operations: tuple[RoutedOperation, ...]
    backend: str
    exact: bool
    difference: str = ""
    note: str = ""  # why tree-sitter's symbols routed it where a server runs (it is still starting, say)

    def summary(self, dry_run: bool = False) -> str:
        """One or two sentences an agent can act on; `dry_run`: said of a write not made."""
        done = "; ".join(o.describe() for o in self.operations)
        checked = "re-parsed: no new syntax errors, no other definition added or lost"
        same = "the result is byte for byte the requested edit" if self.exact else f"the result differs from the requested edit: {self.difference}"
        via = f"{self.backend} ({self.note})" if self.note else self.backend
        if dry_run:
            return f"Dry run, nothing written: the gateway would perform this write on {self.path} as {done} via {via}; {checked}; {same}."
        return f"The gateway performed this write on {self.path} as {done} via {via}; {checked}; {same}."

    def to_json(self) -> dict[str, Any]:
        note = {"note": self.note} if self.note else {}
        return {"operations": [o.to_json() for o in self.operations], "exact": self.exact, "backend": self.backend, **note}

    def as_edit(self) -> tuple[str, str]:
        """(old_string, new_string): whole lines of B covering every patch, unique in B, whose
        replacement gives R."""
        before, index = self.before, LineIndex.of(self.before)
        low, high = self.patches[0][0][0], self.patches[-1][0][1]
        grow = len(self.result) - len(before)
        low = index.line_start(index.line_of(low))
        high = index.line_end(index.line_of(high))
        while True:
            old = before[low:high]
            whole = low == 0 and high == len(before)
            if whole or (old.strip() and occurrences(before, old) == [low]):
                return old, self.result[low : high + grow]
            low = index.line_start(index.line_of(low - 1)) if low > 0 else 0
            high = index.line_end(index.line_of(high + 1)) if high < len(before) else high


class _Namer:
    """Name paths for B's definitions, each worked out when asked (the shortest unique one
    costs a pass over the file's names, so naming every symbol up front would be quadratic)."""

    def __init__(self, view: FileSymbols, structure: Sequence[Symbol]) -> None:
        self.backend = view.backend.name
        self.known = {(s.doc_start, s.end): i for i, s in enumerate(view.symbols)}
        self.known_paths = [s.name_path for s in view.symbols]
        self.paths = [s.name_path for s in structure]
        self.structure = list(structure)

    def name(self, symbol: Symbol) -> tuple[str, str]:
        """(name path, backend) for a definition of B: the backend's where it reports it."""
        at = self.known.get((symbol.doc_start, symbol.end))
        if at is not None:
            return address_for(self.known_paths, at), self.backend
        around = (address_for(self.known_paths, i) for (start, end), i in self.known.items() if start <= symbol.name_start < end)
        fallback = next((address for address in around if address.endswith(symbol.name)), None)
        if fallback is not None:
            return fallback, self.backend
        return address_for(self.paths, self.structure.index(symbol)), "tree-sitter"


def _lines(index: LineIndex, span: tuple[int, int]) -> tuple[int, int]:
    return index.line_of(span[0]) + 1, index.line_of(max(span[1] - 1, span[0])) + 1


def _operation(namer: _Namer, path: str, lifted: LiftedOperation, patch: Patch, indexes: tuple[LineIndex, LineIndex], shift: int,
               left_behind: Callable[[Symbol], Referrers | None]) -> RoutedOperation:
    result, (index_b, index_r) = lifted.result, indexes
    if lifted.tool == "text":
        start, end = _lines(index_r, (patch.after[0] + shift, patch.after[1] + shift))
        return RoutedOperation("text", "/", path, start, end, namer.backend)
    if lifted.tool == "remove_symbol" and lifted.symbol is not None:
        name, backend = namer.name(lifted.symbol)
        start, end = _lines(index_b, (lifted.symbol.doc_start, lifted.symbol.end))
        return RoutedOperation("remove_symbol", name, path, start, end, backend)
    assert result is not None
    start, end = _lines(index_r, (result.doc_start + shift, result.end + shift))
    if lifted.tool == "insert_code":
        name, backend = namer.name(lifted.symbol) if lifted.symbol is not None else ("/", namer.backend)
        return RoutedOperation("insert_code", name, path, start, end, backend, position=lifted.position)
    assert lifted.symbol is not None
    name, backend = namer.name(lifted.symbol)
    if lifted.renamed_to is not None:
        _refuse_rename(name, path, lifted.renamed_to.rpartition("/")[2], left_behind(lifted.symbol))
    return RoutedOperation("replace_symbol", name, path, start, end, backend)


def _left_behind(lang: Language, before: str, tree: Tree, references: References | None) -> Callable[[Symbol], Referrers | None]:
    """The places a rename by text of a definition of `before` leaves referring to the old name
    (None: not known): none for an override, which calls reach through the method it overrides."""
    to_byte = char_to_byte(before)

    def left(symbol: Symbol) -> Referrers | None:
        at = to_byte(symbol.name_start)
        if any(d.name_start_byte == at and overrides(tree, d) for d in definitions(lang, tree)):
            return Referrers()
        return references(symbol) if references is not None else None

    return left


def _refuse_rename(name: str, path: str, new_name: str, places: Referrers | None) -> None:
    """RouteRefused for a rename by text that leaves `places` (None: not known) referring, or
    maybe referring, to the old name; a definition nothing refers to is renamed by replacing it."""
    if places is not None and not places.places:
        return
    rename = SuggestedOperation.of("rename_symbol", name_path=name, path=path, new_name=new_name)
    shown = "any reference to the old name"
    if places is not None:
        said = [f"the references to the old name at {listed(places.sure)}"] if places.sure else []
        said += [f"the places spelling it at {listed(places.unsure)} (which may refer to it: {', '.join(places.whys)})"] if places.unsure else []
        shown = " and ".join(said)
    # The refusal this completes already names the rename_symbol command.
    raise RouteRefused("rename", f"it renames `{name}` to `{new_name}` by text, which leaves {shown} behind; nothing was written", (rename,))


def plan_route(view: FileSymbols, effect: Effect, references: References | None = None) -> Route:
    """The route for `effect` on the file in `view` (B = view's text); RouteRefused when there is
    none. `references`: where a definition is used (None: not known), which a rename by text leaves behind."""
    lang, before, after, display = view.lang, view.source.text, effect.after, view.source.display
    source_b, source_a = utf8(before), utf8(after)
    tree_b, tree_a = parse(lang, source_b), parse(lang, source_a)
    problem = new_syntax_problem(lang, display, (before, tree_b), (after, tree_a), Mapping.between(source_b, source_a))
    if problem is not None:
        raise RouteRefused("syntax", f"{display}: the edited file would add a syntax error at {problem}")
    structure_b = symbols_of(lang, view.source.path, before, TreeSitterBackend(), tree_b)
    left_behind = _left_behind(lang, before, tree_b, None if references is None else _left_by(references, view, effect))
    regions = [(r.before, r.after) for r in effect.regions]
    patches = lift_near(lang, before, tree_b, structure_b, after, tree_a, regions)
    if patches is None:
        patches = lift(before, structure_b, after, symbols_of(lang, view.source.path, after, TreeSitterBackend(), tree_a), regions)
    if not patches:
        raise RouteRefused("no_change", f"{display}: the write changes nothing")
    text, spans = _applied(before, after, patches)
    namer, index_b, index_r = _Namer(view, structure_b), LineIndex.of(before), LineIndex.of(text)
    operations = tuple(
        _operation(namer, display, lifted, patch, (index_b, index_r), in_result[0] - patch.after[0], left_behind)
        for patch, (_, in_result) in zip(patches, spans, strict=True)
        for lifted in patch.operations
    )
    low, high = patches[0].before[0], patches[-1].before[1]
    change = TextChange(text, 1, 1, (low, high), (low, high + len(text) - len(before)))
    try:
        expect = any(o.tool in ("replace_symbol", "insert_code") for o in operations)
        verify(lang, display, before, change, expect, (tree_b, tree_a) if text == after else None)
    except SyntaxBroken as broken:
        raise RouteRefused("verification", str(broken)) from None
    exact = text == after
    difference = "" if exact else _difference(after, text)
    return Route(display, before, text, spans, operations, view.backend.name, exact, difference, view.backend.note)


def _applied(before: str, after: str, patches: list[Patch]) -> tuple[str, tuple[tuple[tuple[int, int], tuple[int, int]], ...]]:
    """R: every patch's span of B replaced by its text of A; and each patch as (span in B, span in R)."""
    pieces, spans, cursor, delta = [], [], 0, 0
    for patch in patches:
        length = patch.after[1] - patch.after[0]
        pieces += [before[cursor : patch.before[0]], after[patch.after[0] : patch.after[1]]]
        spans.append((patch.before, (patch.before[0] + delta, patch.before[0] + delta + length)))
        delta += length - (patch.before[1] - patch.before[0])
        cursor = patch.before[1]
    return "".join(pieces) + before[cursor:], tuple(spans)


def _difference(wanted: str, got: str) -> str:
    at = next((i for i, (x, y) in enumerate(zip(wanted, got)) if x != y), min(len(wanted), len(got)))
    return f"from line {wanted.count(chr(10), 0, at) + 1} on"


def _left_by(references: References, view: FileSymbols, effect: Effect) -> References:
    """`references` of a definition (given as tree-sitter reads it, asked as the view's backend
    names it), less the places in the edited file that the write itself takes away: on a line
    it changes whose new text no longer spells the name."""
    index, display = LineIndex.of(view.source.text), view.source.display
    own: dict[tuple[int, str], Symbol] = {}  # made on the first ask: a write that renames or removes nothing makes none
    changed = [(index.line_of(r.before[0]) + 1, index.line_of(max(r.before[1] - 1, r.before[0])) + 1, effect.after[r.after[0] : r.after[1]])
               for r in effect.regions]

    def left(symbol: Symbol) -> Referrers:
        if not own:
            own.update(((s.name_start, s.name), s) for s in view.symbols)
        word = re.compile(r"(?<![\w$])" + re.escape(symbol.name) + r"(?![\w$])")

        def taken_away(place: str) -> bool:
            where, _, line = place.rpartition(":")
            return where == display and any(low <= int(line) <= high and not word.search(new) for low, high, new in changed)

        return references(own.get((symbol.name_start, symbol.name), symbol)).without(taken_away)

    return left


def refuse_referenced_removals(view: FileSymbols, effect: Effect, classification: Classification, references: References,
                               anyway_by: str | None = None) -> None:
    """StillReferenced, as `remove_symbol` refuses it, when the write removes a definition that
    other code (outside what the write changes) still refers to. A definition the write defines
    again under its name path, or whose name the written text spells, is not taken as removed. The refusal names the removal that goes through
    anyway (`remove_symbol` with force), since the writing surfaces have no force of their own;
    `anyway_by`: how the surface removes it anyway instead (a contract: a step of its own)."""
    touched = classification.definitions
    again = {d.name_path for d in touched if d.change == "added"}
    removed = [(d.name_path, d.line) for d in touched if d.change == "removed" and d.name_path not in again]
    if not removed:
        return
    lang, before = view.lang, view.source.text
    structure = symbols_of(lang, view.source.path, before, TreeSitterBackend(), parse(lang, utf8(before)))
    index, namer, left = LineIndex.of(before), _Namer(view, structure), _left_by(references, view, effect)
    written = [effect.after[r.after[0] : r.after[1]] for r in effect.regions]
    kept = _kept_namesakes(lang, view, effect.after)
    for symbol in structure:
        if (symbol.name_path, index.line_of(symbol.name_start) + 1) not in removed:
            continue
        if _signature(lang, before, symbol) in kept.get(symbol.name_path, ()):
            continue  # a duplicate removed (a definition moved, then its old copy deleted): the name is still defined
        word = re.compile(r"(?<![\w$])" + re.escape(symbol.name) + r"(?![\w$])")
        if any(word.search(text) for text in written):
            continue  # what the write puts there spells the name: it may bind it again (`f = partial(g)`)
        places = left(symbol)
        if places.places:
            name = namer.name(symbol)[0]
            if anyway_by is not None:
                raise still_referenced(view.source.display, name, places, anyway_by)
            anyway = SuggestedOperation.of("remove_symbol", name_path=name, path=view.source.display, force="true")
            raise still_referenced(view.source.display, name, places, str(anyway), (anyway,))


def _kept_namesakes(lang: Language, view: FileSymbols, after: str) -> dict[str, set[str]]:
    """The definitions the written file still has, by name path: each one's signature."""
    kept: dict[str, set[str]] = {}
    for symbol in symbols_of(lang, view.source.path, after, TreeSitterBackend(), parse(lang, utf8(after))):
        kept.setdefault(symbol.name_path, set()).add(_signature(lang, after, symbol))
    return kept


def _signature(lang: Language, text: str, symbol: Symbol) -> str:
    """What tells a definition from its namesakes: nothing where a name has one definition in
    scope (the last one binds it), the header up to its body where overloads may differ by it."""
    if not lang.overloading:
        return ""
    header = text[symbol.header_start : symbol.end].split("{", 1)[0]
    return " ".join(header.split())
