"""Pure: definitions a macro call makes, where a write adds, removes or changes the call.

A line holding only a call of a function-like macro, at the top of a file, in a namespace or
in a class (`HANDLER(on_close)`, `CONFIG_GETTER_SETTER(width, setWidth, int)`), may define
functions and methods that tree-sitter never sees. What such a call makes is read from the
macro's `#define` where the file or a workspace header it includes shows it (expanded, and the
expansion parsed), else from the language server where one answers (clangd lists a macro
call with the definitions its expansion makes), else it is not known: then the write is
allowed, saying that it went unverified. Calls inside function bodies (`assert(x)`) are
statements, never looked at.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tree_sitter import Tree

from gateway.langs import Language
from gateway.preprocessor import Macro, expand, function_macros, split_arguments
from gateway.syntax import definitions, parse

Span = tuple[int, int]

# A line holding only a call: `NAME(args)`, `NAME(args);`, a `//` comment after it.
_CALL_LINE = re.compile(
    rb"^[ \t]*([A-Za-z_]\w*)[ \t]*\(((?:[^()\n;{}]|\((?:[^()\n]|\([^()\n]*\))*\))*)\)[ \t]*;?[ \t]*(?://[^\n]*)?\r?$", re.MULTILINE)
# Lines before a call that end a statement or a declaration: anything else (`static int` on
# the line above `f(int x);`) makes the call part of a declaration.
_ENDS_BEFORE = re.compile(rb"(?:[;{}:)]|\*/|^[ \t]*#.*|^[ \t]*[A-Z_][A-Z0-9_]*|^)[ \t]*(?://[^\n]*)?\r?$")
_NOT_MACROS = frozenset({
    "if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "defined", "decltype", "static_assert",
    "_Static_assert", "alignas", "_Alignas", "typeof", "__typeof__", "__attribute__", "__declspec", "operator",
    "template", "requires", "noexcept", "catch", "throw", "delete", "new", "__asm__", "asm",
})
# Nodes a call line may not stand in to be a declaration: a body, an initializer, arguments.
_NOT_DECLARATIONS = frozenset({
    "compound_statement", "initializer_list", "argument_list", "enumerator_list", "parameter_list",
    "template_argument_list", "lambda_expression", "condition_clause", "preproc_arg", "preproc_function_def",
    "preproc_def", "comment", "string_literal", "raw_string_literal",
})
_MEMBER_LISTS = frozenset({"field_declaration_list"})
_WRAPPER = "__gateway_expansion__"


@dataclass(frozen=True)
class ServerMacro:
    """A macro call a language server lists: its line (1-based), the macro, and the
    definitions its expansion makes, as (kind, name)."""

    line: int
    macro: str
    made: tuple[tuple[str, str], ...]


# (language, path, text) -> the macro calls the server lists in that text, or None: no server answers.
ServerCalls = Callable[[Language, str, str], "list[ServerMacro] | None"]


@dataclass(frozen=True)
class MacroSources:
    """Where macros are read beyond the file: `headers` gives the function-like macros of the
    workspace headers a file (path, bytes) includes; `server` lists what a server sees."""

    headers: Callable[[str, bytes], dict[str, Macro]] | None = None
    server: ServerCalls | None = None


@dataclass(frozen=True)
class MacroCall:
    name: str
    args: tuple[str, ...]
    start: int
    end: int
    line: int
    scope: str  # the name path of the class or namespace it stands in ("" at the top)
    member: bool  # in a class body
    text: str
    read: bool  # tree-sitter reads a definition on its line (a constructor's declaration)


@dataclass(frozen=True)
class Made:
    """A definition a macro call makes."""

    kind: str
    name: str
    name_path: str
    line: int
    call: str
    source: str  # how that is known: "its #define at handlers.h:2", "as clangd expands it"


@dataclass
class MacroEffect:
    added: list[Made] = field(default_factory=list)
    removed: list[Made] = field(default_factory=list)
    unverified: list[tuple[str, MacroCall]] = field(default_factory=list)  # ("added" | "removed", the call)


def _declaration_level(tree: Tree, start: int) -> bool | None:
    """None where a call at `start` is a statement or part of an expression; else whether it
    stands in a class body (True) or at the top, a namespace or a linkage block (False)."""
    node = tree.root_node.descendant_for_byte_range(start, start)
    while node is not None:
        if node.type in _NOT_DECLARATIONS:
            return None
        if node.type in _MEMBER_LISTS:
            return True
        node = node.parent
    return False


def _line_end(source: bytes, at: int) -> int:
    end = source.find(b"\n", at)
    return len(source) if end < 0 else end


def _previous_line(source: bytes, start: int) -> bytes:
    """The last line before `start` (a line's start) that is not blank."""
    end = start - 1
    while end > 0:
        begin = source.rfind(b"\n", 0, end) + 1
        line = source[begin:end].rstrip(b" \t\r")
        if line.strip():
            return line
        end = begin - 1
    return b""


def calls(lang: Language, source: bytes, tree: Tree, spans: Sequence[Span], names: frozenset[str] = frozenset()) -> list[MacroCall]:
    """The call lines of `source` at declaration level that meet `spans` (edges included), and
    every call line of the macros `names`."""
    windows = [(0, len(source))] if names else sorted({(source.rfind(b"\n", 0, s) + 1, _line_end(source, e)) for s, e in spans})
    matches = {m.span(): m for low, high in windows for m in _CALL_LINE.finditer(source, low, high)}
    found, listed = [], definitions(lang, tree) if matches else []
    for (start, end), match in sorted(matches.items()):
        name = match.group(1).decode("utf-8", "replace")
        if name in _NOT_MACROS or (names and name not in names and not any(s <= end and start <= e for s, e in spans)):
            continue
        previous = _previous_line(source, source.rfind(b"\n", 0, start) + 1)
        if previous.endswith(b"\\") or not _ENDS_BEFORE.search(previous):
            continue
        if source[end:].lstrip().startswith(b"{"):
            continue  # `TEST_IMPL(name) {...}`: a definition the definitions query reads
        level = _declaration_level(tree, start + len(match.group(0)) - len(match.group(0).lstrip()))
        if level is None:
            continue
        enclosing = [d for d in listed if d.start_byte < start and end <= d.end_byte]
        scope = max(enclosing, key=lambda d: d.start_byte).name_path if enclosing else ""
        read = any(start <= d.name_start_byte < end for d in listed)
        args = split_arguments(match.group(2).decode("utf-8", "replace"))
        text = " ".join(match.group(0).decode("utf-8", "replace").split())
        found.append(MacroCall(name, args, start, end, source.count(b"\n", 0, start) + 1, scope, level, text, read))
    return found


def _expanded(lang: Language, call: MacroCall, macros: dict[str, Macro]) -> list[tuple[str, str]] | None:
    """(kind, name) of what a call of a visible macro makes; None when the macro is not visible."""
    text = expand(call.name, call.args, macros)
    if text is None:
        return None
    wrapped = f"struct {_WRAPPER} {{\n{text}\n}};\n" if call.member else text + "\n"
    made = []
    for d in definitions(lang, parse(lang, wrapped.encode("utf-8", "surrogatepass"))):
        parts = d.name_path.split("/")
        if call.member and parts[:1] == [_WRAPPER] and len(parts) == 2:
            made.append((d.kind, parts[1]))
        elif not call.member and len(parts) == 1:
            made.append((d.kind, d.name))
    return made


class _Reader:
    """What each call of one text makes, asking the server at most once per text."""

    def __init__(self, lang: Language, path: str, text: str, macros: dict[str, Macro], server: ServerCalls | None) -> None:
        self.lang, self.path, self.text, self.macros, self.server = lang, path, text, macros, server
        self._listed: list[ServerMacro] | None = None
        self._asked = False

    def _from_server(self, call: MacroCall) -> tuple[list[tuple[str, str]], str] | None:
        if self.server is None:
            return None
        if not self._asked:
            self._asked = True
            self._listed = self.server(self.lang, self.path, self.text)
        if self._listed is None:
            return None
        listed = next((m for m in self._listed if m.line == call.line and m.macro == call.name), None)
        # A call the server lists nothing for makes nothing (`Q_DECLARE_METATYPE(T)` makes a specialization).
        return (list(listed.made) if listed else [], f"as {self.lang.server.name} expands it")

    def made(self, call: MacroCall) -> list[Made] | None:
        expanded = _expanded(self.lang, call, self.macros)
        if expanded is not None:
            found: tuple[list[tuple[str, str]], str] | None = (expanded, f"its #define at {self.macros[call.name].where}")
        else:
            found = self._from_server(call)
        if found is None:
            return None
        made, source = found
        prefix = call.scope + "/" if call.scope else ""
        return [Made(kind, name, prefix + name, call.line, call.text, source) for kind, name in made]


def _difference(these: list[Made], those: list[Made]) -> list[Made]:
    left = Counter((m.name_path, m.kind) for m in those)
    found = []
    for m in these:
        if left[(m.name_path, m.kind)]:
            left[(m.name_path, m.kind)] -= 1
        else:
            found.append(m)
    return found


@dataclass(frozen=True)
class Side:
    """One side of a write, as the macro reading needs it."""

    text: str
    source: bytes
    tree: Tree
    spans: list[Span]


def _near_directive(side: Side) -> bool:
    """Whether a changed line is a directive's or continues one (a `#define` may be changed)."""
    for start, end in side.spans:
        low, high = side.source.rfind(b"\n", 0, start) + 1, _line_end(side.source, end)
        if b"#" in side.source[low:high] or side.source[max(0, low - 3) : low].rstrip(b"\r\n").endswith(b"\\"):
            return True
    return False


def macro_effect(lang: Language, path: str, before: Side, after: Side, sources: MacroSources) -> MacroEffect:
    """Definitions the calls the write touches make before it and not after (removed), and
    after and not before (added); calls whose macro nobody can read, added or removed."""
    result = MacroEffect()
    calls_b = calls(lang, before.source, before.tree, before.spans)
    calls_a = calls(lang, after.source, after.tree, after.spans)
    if not calls_b and not calls_a and not _near_directive(before) and not _near_directive(after):
        return result
    own = {"b": function_macros(before.source, path), "a": function_macros(after.source, path)}
    # A `#define` the write changes changes what every call of it makes.
    redefined = frozenset(m.name for key, side in (("b", before), ("a", after)) for m in own[key].values()
                          if any(s <= m.span[1] and m.span[0] <= e for s, e in side.spans))
    if redefined:
        calls_b = calls(lang, before.source, before.tree, before.spans, redefined)
        calls_a = calls(lang, after.source, after.tree, after.spans, redefined)
    if not calls_b and not calls_a:
        return result
    wanted = {c.name for c in calls_b if c.name not in own["b"]} | {c.name for c in calls_a if c.name not in own["a"]}
    headers = sources.headers(path, before.source) if sources.headers and wanted else {}
    made: dict[str, list[Made]] = {"b": [], "a": []}
    unknown: dict[str, list[MacroCall]] = {"b": [], "a": []}
    for key, side, found in (("b", before, calls_b), ("a", after, calls_a)):
        reader = _Reader(lang, path, side.text, {**headers, **own[key]}, sources.server)
        for call in found:
            listed = reader.made(call)
            if listed is None:
                if not call.read:
                    unknown[key].append(call)
            else:
                made[key] += listed
    result.removed = _difference(made["b"], made["a"])
    result.added = _difference(made["a"], made["b"])
    texts_b, texts_a = Counter((c.scope, c.text) for c in unknown["b"]), Counter((c.scope, c.text) for c in unknown["a"])
    result.unverified = [("removed", c) for c in unknown["b"] if (texts_b - texts_a)[(c.scope, c.text)]]
    result.unverified += [("added", c) for c in unknown["a"] if (texts_a - texts_b)[(c.scope, c.text)]]
    return result
