"""Replace, insert and remove as pure functions from a text and its symbols to a new text.

Each result is checked before anything is written: it must not add syntax errors, no
definition outside the edited region may appear or vanish, and the edited symbol must
be present after a replacement or insertion and gone after a removal.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from operator import attrgetter

from tree_sitter import Tree

from gateway.errors import Collision, SyntaxBroken, UsageError
from gateway.gate.judgement import Mapping
from gateway.incremental import named_within
from gateway.gate.syntax_problems import first_problem, new_syntax_problem
from gateway.gate.tree_errors import error_lines
from gateway.langs import Language
from gateway.symbols.model import Symbol
from gateway.symbols.normalize import Locator
from gateway.symbols.text import LineIndex, as_taken_from_column, byte_to_char, char_to_byte, reindent
from gateway.syntax import Definition, definitions, find_definitions, header_tokens, kept_definitions, parse, parse_from, utf8


@dataclass(frozen=True)
class TextChange:
    """The new text; `replaced` is the changed span of the old text, `region` that of the new."""

    text: str
    start_line: int
    end_line: int
    replaced: tuple[int, int]
    region: tuple[int, int]


def _code_lines(code: str) -> str:
    lines = code.replace("\r\n", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    if not lines:
        raise UsageError("the new code is empty")
    return "\n".join(lines)  # each line as given: a blank at a line's end may be inside a string literal


def _change(text: str, start: int, end: int, inserted: str) -> TextChange:
    new = text[:start] + inserted + text[end:]
    first = new.count("\n", 0, start) + 1
    return TextChange(new, first, first + inserted.count("\n"), (start, end), (start, start + len(inserted)))


def replace_text(lang: Language, text: str, symbol: Symbol, body: str, start: int | None = None) -> TextChange:
    """The symbol's definition replaced by `body`, re-indented to the symbol's column.

    Doc comment, decorators and leading modifiers (`export`, `pub`, `public static`) are
    replaced when `body` brings its own, kept when not; `start` (one of the symbol's
    doc_start, start, header_start) overrides that choice for the doc comment and decorators.
    """
    code = reindent(_code_lines(body), symbol.indent)
    index = LineIndex.of(text)
    probe = text[: symbol.doc_start] + code + text[symbol.end :]
    tree = parse_from(lang, utf8(text), utf8(probe))
    taken = as_taken_from_column(_code_lines(body), symbol.indent)
    if taken is not None:  # checked by the parse: a dedented body of the column's width reads otherwise
        taken_probe = text[: symbol.doc_start] + taken + text[symbol.end :]
        taken_tree = parse_from(lang, utf8(text), utf8(taken_probe))
        if first_problem(lang, "", taken_probe, taken_tree) is None or first_problem(lang, "", probe, tree) is not None:
            code, probe, tree = taken, taken_probe, taken_tree
    locate = Locator(lang, probe, tree)
    first = index.line_of(symbol.doc_start)
    if start is None:
        if locate.is_comment_line(first):
            start = symbol.doc_start
        elif locate.is_decorator_line(first):
            start = symbol.start
        else:
            start = symbol.header_start
    if text[index.line_start(index.line_of(start)) : start].strip():
        code = code.lstrip()  # the definition starts mid-line, after words that stay (`declare `)
    else:
        code = _with_modifiers(lang, text, symbol, code, locate, first)
    if text[symbol.end - 1] == ";" and not code.endswith(";"):
        code += ";"
    return _change(text, start, symbol.end, code)


def _with_modifiers(lang: Language, text: str, symbol: Symbol, code: str, probe: Locator, first: int) -> str:
    """`code` (placed at line `first` in `probe`) with the symbol's modifiers when it brings none."""
    if not lang.modifiers:
        return code
    old = Locator(lang, text, parse(lang, utf8(text)))
    kept = old.leading_modifiers(old.index.line_of(symbol.header_start))
    header = first
    while header < probe.index.line_count - 1 and (probe.is_decorator_line(header) or probe.is_comment_line(header)):
        header += 1
    if not kept or probe.leading_modifiers(header):
        return code
    lines = code.split("\n")
    at = header - first
    indent = probe.index.indentation(header)
    lines[at] = indent + kept + " " + lines[at][len(indent) :]
    return "\n".join(lines)


def _gap(index: LineIndex, upper: Symbol, lower: Symbol) -> int | None:
    """Blank lines between two symbols, or None if anything else stands between them."""
    lines = range(index.line_of(upper.end) + 1, index.line_of(lower.doc_start))
    return len(lines) if all(index.is_blank(line) for line in lines) else None


def siblings(symbols: list[Symbol], anchor: Symbol) -> list[Symbol]:
    """The symbols that stand beside `anchor` in the text: same innermost enclosing symbol.

    Physical, not by name path: a Go method is named under its type but stands at file
    level, and jedi reports `self.x` inside a method as a member of the class.
    """
    parent: dict[int, int | None] = {}
    stack: list[Symbol] = []
    for symbol in sorted(symbols, key=lambda s: (s.start, -s.end)):
        while stack and not (stack[-1].start <= symbol.start and symbol.end <= stack[-1].end):
            stack.pop()
        parent[id(symbol)] = id(stack[-1]) if stack else None
        stack.append(symbol)
    return sorted((s for s in symbols if parent[id(s)] == parent[id(anchor)]), key=lambda s: s.start)


def refuse_collision(symbols: list[Symbol], symbol: Symbol, new_name: str, where: str) -> None:
    """Collision if `symbol`, renamed to `new_name`, would share its name with a sibling."""
    if new_name == symbol.name:
        return
    taken = next((s for s in siblings(symbols, symbol) if s.name == new_name), None)
    if taken is not None:
        raise Collision(
            f"{where}: {new_name} already exists beside {symbol.name_path}: {taken.name_path} "
            f"({taken.kind}, line {taken.start_line}); nothing written"
        )


def _may_share_a_name(lang: Language, tree: Tree, new: Definition, old: Definition) -> bool:
    """Two definitions of one name in one scope that the language reads as two: a declaration
    beside its definition (a prototype, an overload signature), a decorated one (a property's
    setter, `@overload`), or an overload with a header of its own where the language has them."""
    if new.kind != old.kind or new.body_start_byte is None or old.body_start_byte is None:
        return True
    new_header, old_header = header_tokens(tree, new), header_tokens(tree, old)
    if "@" in (new_header[:1] + old_header[:1]):
        return True
    return lang.overloading and new_header != old_header


def refuse_duplicate(lang: Language, where: str, change: TextChange) -> None:
    """Collision if the code `change` inserts defines a name its scope already has."""
    tree = parse(lang, change.text.encode())
    to_char = byte_to_char(change.text)
    found = definitions(lang, tree)
    inside = [d for d in found if change.region[0] <= to_char(d.name_start_byte) < change.region[1]]
    outside = [d for d in found if d not in inside]
    for new in inside:
        taken = next((old for old in outside if old.name_path == new.name_path and not _may_share_a_name(lang, tree, new, old)), None)
        if taken is not None:
            raise Collision(
                f"{where}: {new.name_path} already exists ({taken.kind}, line {taken.start_line}); the code would define it "
                "a second time in the same scope. Change the existing one with replace_symbol; nothing written"
            )


def defined_name(lang: Language, change: TextChange) -> str | None:
    """The name of the first definition the changed region of `change` holds."""
    return _first_defined(lang, change.text, change.region)


def replaced_name(lang: Language, text: str, change: TextChange) -> str | None:
    """The name of the first definition the span `change` replaced held in `text` (tree-sitter's
    reading, as `defined_name`'s: a C++ partial specialization's is its template's name)."""
    return _first_defined(lang, text, change.replaced)


def _first_defined(lang: Language, text: str, span: tuple[int, int]) -> str | None:
    to_char = byte_to_char(text)
    inside = (d for d in definitions(lang, parse(lang, text.encode())) if span[0] <= to_char(d.name_start_byte) < span[1])
    return next((d.name for d in sorted(inside, key=lambda d: d.start_byte)), None)


def top_level(symbols: list[Symbol]) -> list[Symbol]:
    """The symbols no other symbol contains, in text order."""
    return sorted((s for s in symbols if not any(o.contains(s) for o in symbols)), key=lambda s: s.start)


def _spacing(lang: Language, index: LineIndex, symbols: list[Symbol], anchor: Symbol | None, after: bool, name: str | None,
             lines: int) -> int:
    """Blank lines to put between inserted code and its anchor, copied from the file where it can be:
    from the nearest siblings shaped like the code (one-line ones for a line of code, others for a
    block: a module spaces its constants apart less than its functions), else any siblings.

    An overload (code defining the anchor's own name) copies the spacing between namesakes.
    """
    at_top = anchor is None or not any(o.contains(anchor) for o in symbols)
    default = lang.blank_lines_top if at_top else lang.blank_lines_nested
    namesakes: list[tuple[Symbol, Symbol]] = []
    if anchor is None:
        top = top_level(symbols)
        pairs = list(zip(top, top[1:]))[:: -1 if after else 1]  # nearest the file's end, or its start, first
    else:
        beside = siblings(symbols, anchor)
        at = beside.index(anchor)
        near = [(anchor, beside[at + 1])] if at + 1 < len(beside) else []
        before = [(beside[at - 1], anchor)] if at > 0 else []
        every = list(zip(beside, beside[1:]))
        namesakes = [(a, b) for a, b in every if a.name == b.name == name == anchor.name]
        pairs = (near + before if after else before + near) + every
    block = lines > 1
    alike = [(a, b) for a, b in pairs if (a.start_line != a.end_line or b.start_line != b.end_line) == block]
    gaps = (_gap(index, upper, lower) for upper, lower in namesakes + alike + pairs)
    return next((gap for gap in gaps if gap is not None), default)


def insert_text(lang: Language, text: str, symbols: list[Symbol], anchor: Symbol | None, position: str, code: str) -> TextChange:
    """`code` as a sibling before or after `anchor` (None: the file's start or end)."""
    if position not in ("before", "after"):
        raise UsageError(f"position must be 'before' or 'after', not {position!r}")
    index = LineIndex.of(text)
    defined = find_definitions(lang, code.encode())
    gap = _spacing(lang, index, symbols, anchor, position == "after", defined[0].name if defined else None, len(code.strip("\n").split("\n")))
    block = reindent(_code_lines(code), anchor.indent if anchor else "")
    if anchor is None:
        if position == "before":
            return _change(text, 0, 0, block + "\n" + "\n" * gap)
        body = text.rstrip("\n")
        lead = "\n" * (gap + 1) if body else ""
        change = _change(body, len(body), len(body), lead + block + "\n")
        return TextChange(change.text, change.start_line + (1 if body else 0), change.end_line, change.replaced, change.region)
    if position == "after":
        at = index.line_end(index.line_of(anchor.end))
        change = _change(text, at, at, "\n" + "\n" * gap + block)
        return TextChange(change.text, change.start_line + 1 + gap, change.end_line, change.replaced, change.region)
    at = index.line_start(index.line_of(anchor.doc_start))
    change = _change(text, at, at, block + "\n" + "\n" * gap)
    return TextChange(change.text, change.start_line, change.end_line - 1 - gap, change.replaced, change.region)


def remove_text(text: str, symbols: list[Symbol], symbol: Symbol) -> TextChange:
    """The symbol removed with its doc comment and decorators, and the blank lines it leaves."""
    index = LineIndex.of(text)
    first, last = index.line_of(symbol.doc_start), index.line_of(symbol.end)
    rest = text[symbol.end : index.line_end(last)].strip()
    if text[index.line_start(first) : symbol.doc_start].strip() or rest not in ("", ";", ","):
        return _change(text, symbol.doc_start, symbol.end, "")
    beside = siblings(symbols, symbol)
    at = beside.index(symbol)
    # Take the blank lines that face the next sibling only when nothing else stands between
    # them (not `private:`, not a closing brace); otherwise those before.
    if at + 1 < len(beside) and _gap(index, symbol, beside[at + 1]) is not None:
        while last + 1 < index.line_count - 1 and index.is_blank(last + 1):
            last += 1
    else:
        while first > 0 and index.is_blank(first - 1):
            first -= 1
    start = index.line_start(first)
    end = min(index.line_end(last) + 1, len(text))
    change = _change(text, start, end, "")
    return TextChange(change.text, symbol.start_line, symbol.end_line, change.replaced, change.region)


def syntax_errors(lang: Language, text: str, tree: Tree | None = None) -> list[int]:
    """Lines of the text's syntax errors (as `verify` counts them); `tree`: the text's, if parsed already."""
    return error_lines(lang, tree or parse(lang, text.encode()))


def _names(lang: Language, text: str, tree: Tree, region: tuple[int, int]) -> tuple[Counter[str], int]:
    """Definitions outside `region` (by name path) and how many lie inside it."""
    to_byte = char_to_byte(text)
    low, high = to_byte(region[0]), to_byte(region[1])  # a name starts on a character's first byte
    found = kept_definitions(lang, tree)
    inside = named_within(found, low, high)
    outside = Counter(map(attrgetter("name_path"), found))
    for definition in inside:
        outside[definition.name_path] -= 1
        if not outside[definition.name_path]:
            del outside[definition.name_path]  # no zero counts: two such Counters are equal as dicts are
    return outside, len(inside)


def verify(lang: Language, where: str, before: str, change: TextChange, expect_inside: bool, trees: tuple[Tree, Tree] | None = None) -> None:
    """Refuse a change that breaks the syntax, disturbs other definitions or loses its own.
    `trees`: the texts' syntax trees, when the caller has parsed them already."""
    source_b, source_a = utf8(before), utf8(change.text)
    old_tree, new_tree = trees or (parse(lang, source_b), parse_from(lang, source_b, source_a))
    problem = new_syntax_problem(lang, where, (before, old_tree), (change.text, new_tree), Mapping.between(source_b, source_a))
    if problem is not None:
        raise SyntaxBroken(f"{where}: the result would add a syntax error at {problem}; nothing written")
    old_outside, _ = _names(lang, before, old_tree, change.replaced)
    new_outside, inside = _names(lang, change.text, new_tree, change.region)
    if old_outside.items() != new_outside.items():  # as dicts (compared in C), not Counter's own comparison over every name
        moved = sorted(((old_outside - new_outside) + (new_outside - old_outside)).elements())
        raise SyntaxBroken(f"{where}: the result would change other definitions ({', '.join(moved[:5])}); nothing written")
    if expect_inside and not inside:
        raise SyntaxBroken(f"{where}: the new code holds no definition where one was expected; nothing written")
