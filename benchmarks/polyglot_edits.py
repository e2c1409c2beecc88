"""The polyglot benchmark's exercises, and the edits that turn a stub into its solution.

An exercise (`<language>/exercises/practice/<name>/`) names its solution files and the
reference files that solve them in `.meta/config.json`; a reference file is paired with the
solution file of the same name (or, for `example.*` and `proof.ci.js`, the same extension),
and one without a partner is a new file. A Rust solution's `.meta/Cargo-example.toml` is
its Cargo.toml.

The edits are the ones an agent makes: one `old_string` → `new_string` replacement per
definition (a stub definition replaced by the solution's, a definition the solution adds
inserted beside its neighbour, one it drops removed), read with the gateway's own definition
extraction, going into every definition that holds others (a class, an impl, a namespace);
then one replacement per remaining differing hunk of lines (imports, constants, fields, a
header). Each `old_string` is whole lines, grown by a line at a time until it is unique.
Applied in order as plain string replacements they give the solution byte for byte.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gateway.edits import occurrences
from gateway.langs import Language, LanguageRegistry
from gateway.symbols.backends import TreeSitterBackend
from gateway.symbols.model import Symbol
from gateway.symbols.operations import syntax_errors
from gateway.symbols.service import symbols_of
from gateway.syntax import language_for

LANGUAGES = ("cpp", "go", "java", "javascript", "python", "rust")
MAX_STEPS = 400


@dataclass(frozen=True)
class FilePair:
    """A file of the exercise as the agent finds it (`stub`, None when the solution creates
    it) and as the reference solution has it."""

    path: str
    stub: str | None
    solution: str


@dataclass(frozen=True)
class Exercise:
    language: str
    name: str
    directory: Path
    files: tuple[FilePair, ...]


@dataclass(frozen=True)
class Edit:
    """One replacement, named by what it does: replace, insert or remove a definition, or a
    hunk of lines outside them (`lines`)."""

    path: str
    kind: str
    label: str
    old: str
    new: str


@dataclass
class _Node:
    symbol: Symbol
    children: list[_Node] = field(default_factory=list)

    @property
    def key(self) -> tuple[str, str]:
        return self.symbol.kind, self.symbol.name


def exercises(root: Path, language: str) -> list[Exercise]:
    """The exercises of one language in a checkout of the benchmark, in name order."""
    found = []
    for config in sorted((root / language / "exercises" / "practice").glob("*/.meta/config.json")):
        directory = config.parent.parent
        files = json.loads(config.read_text())["files"]
        found.append(Exercise(language, directory.name, directory, _pairs(directory, files["solution"], files.get("example", []))))
    return found


def _pairs(directory: Path, solution: list[str], example: list[str]) -> tuple[FilePair, ...]:
    pairs = []
    for reference in example:
        name = Path(reference).name
        same_name = [s for s in solution if Path(s).name == name]
        generic = Path(reference).name.split(".")[0] in ("example", "proof")  # .meta/example.py, proof.ci.js
        same_suffix = [s for s in solution if generic and Path(s).suffix == Path(reference).suffix]
        target = (same_name or same_suffix or [None])[0]
        if target is None:  # a class of its own (Java): created next to the solution's first file
            target = str(Path(solution[0]).parent / name)
        stub = directory / target
        pairs.append(FilePair(target, stub.read_text() if stub.is_file() else None, (directory / reference).read_text()))
    manifest = directory / ".meta" / "Cargo-example.toml"  # a Rust solution's own dependencies
    if manifest.is_file():
        pairs.append(FilePair("Cargo.toml", (directory / "Cargo.toml").read_text(), manifest.read_text()))
    return tuple(pairs)


def _forest(symbols: list[Symbol]) -> list[_Node]:
    """Definitions as a tree by extent: each symbol under the innermost one that contains it."""
    roots: list[_Node] = []
    stack: list[_Node] = []
    for symbol in sorted(symbols, key=lambda s: (s.doc_start, -s.end)):
        node = _Node(symbol)
        while stack and not (stack[-1].symbol.doc_start <= symbol.doc_start and symbol.end <= stack[-1].symbol.end):
            stack.pop()
        (stack[-1].children if stack else roots).append(node)
        stack.append(node)
    return roots


class _Planner:
    """The next definition-level step from the current text C towards the solution T."""

    def __init__(self, lang: Language, path: str, current: str, target: str, done: set[tuple[str, ...]]) -> None:
        self.lang, self.path, self.c, self.t, self.done = lang, path, current, target, done
        self.c_roots = _forest(symbols_of(lang, Path(path), current, TreeSitterBackend()))
        self.t_roots = _forest(symbols_of(lang, Path(path), target, TreeSitterBackend()))

    def text_c(self, node: _Node) -> str:
        return self.c[node.symbol.doc_start : node.symbol.end]

    def text_t(self, node: _Node) -> str:
        return self.t[node.symbol.doc_start : node.symbol.end]

    def step(self) -> tuple[int, int, str, str, str] | None:
        """(start, end, replacement in C, kind, label), or None when every definition is done."""
        return self._walk(self.c_roots, self.t_roots, (), None)

    def _walk(self, kids_c: list[_Node], kids_t: list[_Node], where: tuple[str, ...], parent: _Node | None) -> tuple[int, int, str, str, str] | None:
        partner = _match(kids_c, kids_t)
        for index, t in enumerate(kids_t):
            label = "/".join((*where, t.symbol.name))
            c = partner.get(index)
            if c is not None and self.text_c(c) == self.text_t(t):
                continue
            if c is not None and t.children:
                found = self._walk(c.children, t.children, (*where, t.symbol.name), c)
                if found is not None:
                    return found
                continue
            step_id = ("replace" if c else "insert", label, str(index))
            if step_id in self.done:
                continue
            self.done.add(step_id)
            if c is not None:
                return c.symbol.doc_start, c.symbol.end, self.text_t(t), "replace", label
            return (*self._insertion(kids_t, partner, index, parent), "insert", label)
        kept = set(map(id, partner.values()))
        for c in kids_c:
            step_id = ("remove", "/".join((*where, c.symbol.name)), str(c.symbol.doc_start))
            if id(c) not in kept and step_id not in self.done:
                self.done.add(step_id)
                start, end = _whole_lines(self.c, c.symbol.doc_start, c.symbol.end)
                return start, end, "", "remove", step_id[1]
        return None

    def _insertion(self, kids_t: list[_Node], partner: dict[int, _Node], index: int, parent: _Node | None) -> tuple[int, int, str]:
        """Where in C the solution's definition `index` goes, and the text that goes there (with
        a blank line where the solution has one): after its previous sibling, else before its next
        one, else at the end of the (empty) definition that holds it, else where the lines
        around it in the solution are in C."""
        new = kids_t[index].symbol
        start, end = _whole_lines(self.t, new.doc_start, new.end)
        text = self.t[start:end] if self.t[start:end].endswith("\n") else self.t[start:end] + "\n"
        before = next((i for i in range(index - 1, -1, -1) if i in partner), None)
        if before is not None:
            at = _whole_lines(self.c, partner[before].symbol.doc_start, partner[before].symbol.end)[1]
            gap = self.t[kids_t[before].symbol.end : new.doc_start]
            return at, at, ("\n" if gap.count("\n") > 1 else "") + text
        after = next((i for i in range(index + 1, len(kids_t)) if i in partner), None)
        if after is not None:
            at = _whole_lines(self.c, partner[after].symbol.doc_start, partner[after].symbol.end)[0]
            gap = self.t[new.end : kids_t[after].symbol.doc_start]
            return at, at, text + ("\n" if gap.count("\n") > 1 else "")
        if parent is None:
            at = _mapped_offset(self.c, self.t, start)
            return at, at, text
        last = self.c.rfind("\n", 0, parent.symbol.end - 1) + 1
        closing = last > parent.symbol.doc_start and self.c[last : parent.symbol.end].strip()[:1] in ("}", ")", "]", "e")
        at = last if closing else _whole_lines(self.c, parent.symbol.doc_start, parent.symbol.end)[1]
        return at, at, text


def _match(kids_c: list[_Node], kids_t: list[_Node]) -> dict[int, _Node]:
    """Index in kids_t → the C definition it replaces: same kind and name, in order."""
    matcher = difflib.SequenceMatcher(None, [k.key for k in kids_c], [k.key for k in kids_t], autojunk=False)
    partner: dict[int, _Node] = {}
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            partner[block.b + k] = kids_c[block.a + k]
    return partner


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) grown to whole lines (with the last line's newline) where only blanks are around it."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        line_start = start
    line_end = text.find("\n", end)
    line_end = len(text) if line_end == -1 else line_end + 1
    if text[end:line_end].strip():
        line_end = end
    return line_start, line_end


def _mapped_offset(current: str, target: str, offset: int) -> int:
    """The line start in `current` that corresponds to the line start `offset` of `target`."""
    lines_c, lines_t = current.splitlines(keepends=True), target.splitlines(keepends=True)
    line_t = target.count("\n", 0, offset)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, lines_c, lines_t, autojunk=False).get_opcodes():
        if j1 <= line_t < j2 or (line_t == j2 == len(lines_t)):
            line_c = i1 + (line_t - j1) if tag == "equal" else i1
            return sum(len(line) for line in lines_c[:line_c])
    return len(current)


def anchored(text: str, start: int, end: int, replacement: str) -> tuple[str, str]:
    """(old_string, new_string) replacing text[start:end] with `replacement`: whole lines, grown
    a line at a time (above first) until old_string is unique and not blank."""
    low = text.rfind("\n", 0, start) + 1
    high = text.find("\n", end)
    high = len(text) if high == -1 else high
    grow_up = True
    while True:
        old = text[low:high]
        if old.strip() and occurrences(text, old) == [low]:
            return old, text[low:start] + replacement + text[end:high]
        can_up, can_down = low > 0, high < len(text)
        if not (can_up or can_down):
            return old, text[low:start] + replacement + text[end:high]
        if (grow_up and can_up) or not can_down:
            low = text.rfind("\n", 0, low - 1) + 1
        else:
            high = text.find("\n", high + 1)
            high = len(text) if high == -1 else high
        grow_up = not grow_up


def definition_edits(registry: LanguageRegistry, pair: FilePair) -> list[Edit]:
    """The edits turning `pair.stub` into `pair.solution`, one per definition, then one per
    remaining hunk of lines; applied in order they give the solution exactly. Like an agent's,
    no edit leaves more syntax errors (by tree-sitter) than the file had before it: such a
    definition step is left to the hunks, and a hunk is merged with the ones above it until
    its result parses as well as the file did."""
    assert pair.stub is not None
    lang = language_for(registry, Path(pair.path), pair.solution)
    if lang is None or not lang.symbol_backend:
        return _line_edits(pair.path, pair.stub, pair.solution, lambda text: 0)
    counted = lang
    current, target, done, edits = pair.stub, pair.solution, set[tuple[str, ...]](), []
    errors = functools.lru_cache(maxsize=64)(lambda text: len(syntax_errors(counted, text)))
    for _ in range(MAX_STEPS):
        step = _Planner(lang, pair.path, current, target, done).step()
        if step is None:
            break
        start, end, replacement, kind, label = step
        if current[start:end] == replacement:
            continue
        old, new = anchored(current, start, end, replacement)
        after = current.replace(old, new, 1)
        if errors(after) > errors(current):
            continue
        edits.append(Edit(pair.path, kind, label, old, new))
        current = after
    return edits + _line_edits(pair.path, current, target, errors)


def _line_edits(path: str, current: str, target: str, errors: Callable[[str], int]) -> list[Edit]:
    """One edit per differing hunk of lines (merged with the hunks above it while it would add
    a syntax error), bottom up so that each applies to what the ones before it leave."""
    lines_c, lines_t = current.splitlines(keepends=True), target.splitlines(keepends=True)
    starts = [0]
    for line in lines_c:
        starts.append(starts[-1] + len(line))
    hunks = [op for op in difflib.SequenceMatcher(None, lines_c, lines_t, autojunk=False).get_opcodes() if op[0] != "equal"]
    edits, text, last = [], current, len(hunks) - 1
    while last >= 0:
        first = last
        while True:
            (_, i1, _, j1, _), (_, _, i2, _, j2) = hunks[first], hunks[last]
            old, new = anchored(text, starts[i1], starts[i2], "".join(lines_t[j1:j2]))
            after = text.replace(old, new, 1)
            if first == 0 or errors(after) <= errors(text):
                break
            first -= 1
        edits.append(Edit(path, "lines", f"lines {i1 + 1}-{max(i1 + 1, i2)}", old, new))
        text, last = after, first - 1
    return edits


def plain(text: str, edits: list[Edit]) -> str:
    """The edits applied as plain string replacements (each old_string once)."""
    for edit in edits:
        text = text.replace(edit.old, edit.new, 1)
    return text
