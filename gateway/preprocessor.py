"""Pure: C and C++ as the compiler reads them, approximately, at the same byte offsets.

tree-sitter parses the text as written, so an `if (...) {` split across `#ifdef`/`#else`, an
`extern "C" {` whose `}` sits in another `#ifdef __cplusplus` block, or a macro call on a line
of its own (`DEFINE_GETTER(counter)`, no `;`) reads as broken or glued to what follows. A view
keeps one branch of every conditional (the first, or the last) and blanks the other branches,
the conditional directives themselves and the lines that hold only a macro call. Blanked bytes
become spaces (line breaks stay), so a view's offsets, lines and columns are the text's own.
Conditions the language's data names as defined or undefined (`__cplusplus`) are evaluated.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from gateway.langs import Preprocessor
from gateway.preprocessor_scan import first_words, hash_lines, whole_words
from gateway.textmemo import per_text

Span = tuple[int, int]

# A conditional directive's line, backslash-newlines continuing it.
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b[ \t]*((?:\\\r?\n|[^\n])*)", re.MULTILINE)
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef)\b", re.MULTILINE)


@dataclass(frozen=True)
class View:
    """One reading of a text: `text` with `inactive` (the branches not taken) blanked."""

    kind: str
    text: bytes
    inactive: tuple[Span, ...]
    blanked: tuple[Span, ...] = ()  # every span blanked, in order: where `text` may differ from the text as written

    def hides(self, start: int, end: int) -> bool:
        """Whether [start, end) lies wholly in branches this view does not take."""
        return any(s <= start and end <= e for s, e in self.inactive)


_TOKEN = re.compile(rb"\s*(\|\||&&|!|\(|\)|\w+|\S)")


def _expression(spec: Preprocessor, tokens: list[bytes]) -> bool | None:
    """A condition of `defined`, names, 0/1, `!`, `&&`, `||` and parentheses, in three values
    (None: the data does not decide it); anything else (a comparison) is not decided."""
    at = 0

    def unary() -> bool | None:
        nonlocal at
        token = tokens[at] if at < len(tokens) else b""
        at += 1
        if token == b"!":
            value = unary()
            return None if value is None else not value
        if token == b"(":
            value = either()
            if tokens[at : at + 1] != [b")"]:
                raise ValueError
            at += 1
            return value
        if token == b"defined":
            parens = tokens[at : at + 1] == [b"("]
            if parens and tokens[at + 2 : at + 3] != [b")"]:
                raise ValueError
            name = tokens[at + 1] if parens else tokens[at]
            at += 3 if parens else 1
            word = name.decode("ascii", "replace")
            return True if word in spec.defined else False if word in spec.undefined else None
        if token in (b"0", b"1"):
            return token == b"1"
        if re.fullmatch(rb"[A-Za-z_]\w*", token):  # an undefined name is 0
            return False if token.decode() in spec.undefined else None
        raise ValueError

    def both() -> bool | None:
        nonlocal at
        values = [unary()]
        while tokens[at : at + 1] == [b"&&"]:
            at += 1
            values.append(unary())
        return False if False in values else True if all(values) else None

    def either() -> bool | None:
        nonlocal at
        values = [both()]
        while tokens[at : at + 1] == [b"||"]:
            at += 1
            values.append(both())
        return True if True in values else False if all(v is False for v in values) else None

    try:
        value = either()
    except (ValueError, IndexError):
        return None
    return value if at == len(tokens) else None


def _value(spec: Preprocessor, keyword: bytes, condition: bytes) -> bool | None:
    """A condition's value where the language's data decides it; None when it does not."""
    condition = condition.replace(b"\\\n", b" ").split(b"//")[0].split(b"/*")[0].strip()
    if keyword in (b"ifdef", b"ifndef"):
        word = condition.decode("ascii", "replace")
        value = True if word in spec.defined else False if word in spec.undefined else None
        return None if value is None else value != (keyword == b"ifndef")
    return _expression(spec, _TOKEN.findall(condition))


@dataclass
class _Branch:
    start: int
    end: int
    value: bool | None  # taken, not taken, or unknown


def _branch_value(spec: Preprocessor, keyword: bytes, condition: bytes, earlier: list[_Branch]) -> bool | None:
    """A branch is not taken after one that is; `#else` is taken after ones that are not."""
    if any(b.value for b in earlier):
        return False
    if keyword == b"else":
        return True if all(b.value is False for b in earlier) else None
    return _value(spec, b"if" if keyword == b"elif" else keyword, condition)


@per_text
def _groups(spec: Preprocessor, source: bytes) -> tuple[list[list[_Branch]], list[Span]]:
    """Every conditional group's branches (outermost last) and every directive line (shared:
    callers never change them)."""
    groups: list[list[_Branch]] = []
    stack: list[list[_Branch]] = []
    directives: list[Span] = []
    for found in hash_lines(_DIRECTIVE, source):
        start, end = found.span()
        keyword, condition = found.group(1), found.group(2).rstrip(b"\r")
        directives.append((start, end))
        if keyword in (b"if", b"ifdef", b"ifndef"):
            stack.append([_Branch(end, end, _branch_value(spec, keyword, condition, []))])
        elif not stack:
            continue
        elif keyword == b"endif":
            stack[-1][-1].end = start
            groups.append(stack.pop())
        else:
            branches = stack[-1]
            branches[-1].end = start
            branches.append(_Branch(end, end, _branch_value(spec, keyword, condition, branches)))
    for branches in stack:  # an #if the text never closes: its last branch runs to the end
        branches[-1].end = len(source)
        groups.append(branches)
    return groups, directives


def _taken(branches: list[_Branch], kind: str) -> int | None:
    """The branch a view keeps: the one the data decides, else the first (or last) that may run."""
    for i, branch in enumerate(branches):
        if branch.value:
            return i
    possible = [i for i, branch in enumerate(branches) if branch.value is None]
    if not possible:
        return None
    return possible[0] if kind == "first" else possible[-1]


_BLANKS = bytes(byte if byte in b"\r\n" else ord(" ") for byte in range(256))


def blank(buffer: bytearray, start: int, end: int) -> None:
    buffer[start:end] = buffer[start:end].translate(_BLANKS)


# An object-like macro the file defines as nothing or as declaration specifiers (`#define
# EXTERN_C extern "C"`, `#define API __attribute__((visibility("default")))`).
_PREFIX_DEFINE = re.compile(
    rb'^[ \t]*#[ \t]*define[ \t]+([A-Z_][A-Z0-9_]*)(?:[ \t]+(?:extern[ \t]+"C"|static|inline|__inline__|__inline|__forceinline'
    rb'|__attribute__[ \t]*\(\(.*\)\)|__declspec[ \t]*\(.*\)|[A-Z_][A-Z0-9_]*)[ \t]*)*$', re.MULTILINE)


@per_text
def prefix_names(source: bytes) -> tuple[bytes, ...]:
    """The prefix macros the text defines (its `#define` lines name them)."""
    return tuple(sorted({m.group(1) for m in hash_lines(_PREFIX_DEFINE, source)}))


@functools.lru_cache(maxsize=32)
def prefix_use(names: tuple[bytes, ...]) -> re.Pattern[bytes] | None:
    """A use of one of these prefix macros."""
    return re.compile(rb"^[ \t]*(" + b"|".join(re.escape(n) for n in names) + rb")(?=[ \t]+[A-Za-z_])", re.MULTILINE) if names else None


@per_text
def prefix_macros(source: bytes) -> tuple[Span, ...]:
    """Where a line starts with such a macro before a declaration: tree-sitter reads `EXTERN_C
    void __attribute__((x)) f(void)` as a declaration of `void` and a function without a name."""
    return tuple(first_words(source, prefix_names(source)))


# An object-like macro defined as nothing, or as an argument followed by its comma (`#define
# PAR_UNSEQ std::execution::par_unseq,`): tree-sitter cannot read `f(PAR_UNSEQ a, b)`.
_FRAGMENT_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*([^\n]*?)[ \t]*$", re.MULTILINE)


@per_text
def fragment_names(source: bytes) -> tuple[bytes, ...]:
    """The fragment macros the text defines (only names every definition in the file gives
    such a body)."""
    bodies: dict[bytes, set[bool]] = {}
    for found in hash_lines(_FRAGMENT_DEFINE, source):
        body = found.group(2)
        bodies.setdefault(found.group(1), set()).add(body == b"" or body.endswith(b","))
    return tuple(sorted(name for name, fragments in bodies.items() if fragments == {True}))


@functools.lru_cache(maxsize=32)
def fragment_use(names: tuple[bytes, ...]) -> re.Pattern[bytes] | None:
    """A use of one of these fragment macros."""
    return re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in names) + rb")\b") if names else None


@per_text
def fragment_macros(source: bytes) -> tuple[Span, ...]:
    """Where such a macro is used outside directives: blanked, it reads as its expansion does
    (or, for the argument, as the call without it)."""
    return tuple((start, end) for start, end in whole_words(source, fragment_names(source))
                 if not source[source.rfind(b"\n", 0, start) + 1 : start].lstrip().startswith(b"#"))


@per_text
def both_views(spec: Preprocessor, source: bytes) -> tuple[View, ...]:
    """The first-branch and the last-branch view of a text, or none when there is nothing to
    read differently."""
    macro_lines = [m.span() for m in spec.macro_line.finditer(source)] if spec.macro_line.pattern else []
    macro_lines += prefix_macros(source) + fragment_macros(source)
    if not macro_lines and next(hash_lines(_CONDITIONAL, source), None) is None:
        return ()
    groups, directives = _groups(spec, source)
    found: list[View] = []
    for kind in ("first", "last"):
        inactive: list[Span] = []
        for branches in groups:
            taken = _taken(branches, kind)
            inactive += [(b.start, b.end) for i, b in enumerate(branches) if i != taken and b.start < b.end]
        buffer = bytearray(source)
        blanked = sorted(inactive + directives + macro_lines)
        for start, end in blanked:
            blank(buffer, start, end)
        found.append(View(kind, bytes(buffer), tuple(sorted(inactive)), tuple(blanked)))
    return tuple(found)


def distinct(both: tuple[View, ...]) -> tuple[View, ...]:
    """The first view, and the last where its text is another."""
    return both[:1] + tuple(v for v in both[1:] if v.text != both[0].text)


@per_text
def views(spec: Preprocessor, source: bytes) -> tuple[View, ...]:
    """The first-branch and last-branch views of a text (one when they are the same), or none
    when there is nothing to read differently."""
    return distinct(both_views(spec, source))


def decided(spec: Preprocessor, source: bytes) -> tuple[list[Span], list[Span]]:
    """The branches the data decides are not compiled, and every conditional directive's line."""
    groups, directives = _groups(spec, source)
    return [(b.start, b.end) for branches in groups for b in branches if b.value is False], directives


@per_text
def openings(spec: Preprocessor, source: bytes) -> dict[Span, Span]:
    """Each conditional's opening directive line (`#if`, `#ifdef`, `#ifndef`), and the span from
    it to its `#endif` line's end (the text's end when it has none)."""
    groups, directives = _groups(spec, source)
    by_end = {end: (start, end) for start, end in directives}
    by_start = {start: (start, end) for start, end in directives}
    found: dict[Span, Span] = {}
    for branches in groups:
        opening = by_end.get(branches[0].start)
        if opening is not None:
            found[opening] = (opening[0], by_start.get(branches[-1].end, (len(source), len(source)))[1])
    return found


_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define\b(?:\\\r?\n|[^\n])*", re.MULTILINE)


def in_macro_body(source: bytes, offset: int) -> bool:
    """Whether `offset` lies inside a `#define` with its continued lines (past its first byte,
    before its end): its body is code only where it is expanded, and tree-sitter ends it early at
    a comment followed by `\\`, reading the rest as code. Only the lines continuing one another
    around `offset` are read."""
    start = source.rfind(b"\n", 0, offset) + 1
    while start > 0 and _continued(source, start - 1):
        start = source.rfind(b"\n", 0, start - 1) + 1
    while start <= offset:  # the first `#define` of these lines runs to their end
        found = _DEFINE.match(source, start)
        if found is not None:
            return found.start() < offset < found.end()
        start = source.find(b"\n", start) + 1
        if start == 0:
            break
    return False


def _continued(source: bytes, newline: int) -> bool:
    """Whether the line break at `newline` is escaped (`\\` before it, or before its `\r`)."""
    return source[newline - 1 : newline] == b"\\" or source[max(newline - 2, 0) : newline] == b"\\\r"


# A function-like macro's definition: `#define NAME(a, b) body`, continued lines and all.
_FUNCTION_DEFINE = re.compile(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\(([^)\n]*)\)((?:\\\r?\n|[^\n])*)", re.MULTILINE)
_COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.DOTALL)
_PP_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|##|::|->|#|[A-Za-z_]\w*|\d[\w.]*|\S')


@dataclass(frozen=True)
class Macro:
    """A function-like macro: its parameters (`...` as `__VA_ARGS__`), its body, and where it is
    defined ("handlers.h:2")."""

    name: str
    params: tuple[str, ...]
    body: str
    where: str
    span: Span = (0, 0)  # of the `#define` in its text


def function_macros(source: bytes, where: str) -> dict[str, Macro]:
    """The function-like macros a text defines (a later definition of a name wins)."""
    found: dict[str, Macro] = {}
    for match in _FUNCTION_DEFINE.finditer(source):
        name = match.group(1).decode("utf-8", "replace")
        params = tuple(p.strip().replace("...", "__VA_ARGS__") for p in match.group(2).decode("utf-8", "replace").split(",") if p.strip())
        body = _COMMENTS.sub(" ", re.sub(r"\\\r?\n", " ", match.group(3).decode("utf-8", "replace")))
        line = source.count(b"\n", 0, match.start()) + 1
        found[name] = Macro(name, params, body.strip(), f"{where}:{line}", match.span())
    return found


def split_arguments(text: str) -> tuple[str, ...]:
    """A macro call's arguments as the preprocessor splits them: at commas outside parentheses."""
    parts, depth, current = [], 0, []
    for token in _PP_TOKEN.findall(text):
        if token == "," and depth == 0:
            parts.append(" ".join(current))
            current = []
            continue
        depth += (token in "([{") - (token in ")]}")
        current.append(token)
    parts.append(" ".join(current))
    return tuple(parts) if text.strip() else ()


def _substituted(macro: Macro, args: tuple[str, ...]) -> str:
    named = [p for p in macro.params if p != "__VA_ARGS__"]
    values = dict(zip(named, args, strict=False))
    if "__VA_ARGS__" in macro.params:
        values["__VA_ARGS__"] = ", ".join(args[len(named):])
    tokens, out, at = _PP_TOKEN.findall(macro.body), [], 0
    while at < len(tokens):
        token = tokens[at]
        following = tokens[at + 1] if at + 1 < len(tokens) else None
        if token == "#" and following in values:
            out.append('"' + values[following].replace('"', '\\"') + '"')
            at += 2
        elif token == "##" and out and following is not None:
            out[-1] += values.get(following, following)
            at += 2
        else:
            out.append(values.get(token, token))
            at += 1
    return " ".join(out)


def _call_at(text: str, start: int) -> tuple[str, int] | None:
    """The arguments of a call whose `(` is at `start`, and where it ends."""
    depth = 0
    for at in range(start, len(text)):
        depth += (text[at] == "(") - (text[at] == ")")
        if depth == 0:
            return text[start + 1 : at], at + 1
    return None


def expand(name: str, args: tuple[str, ...], macros: dict[str, Macro], depth: int = 4) -> str | None:
    """What a call of a visible macro expands to, the macros its expansion calls expanded too
    (a few levels deep); None when `name` is not one of `macros`."""
    macro = macros.get(name)
    if macro is None:
        return None
    text = _substituted(macro, args)
    calls = re.compile(r"\b(" + "|".join(re.escape(n) for n in sorted(macros) if n != name) + r")\s*\(") if len(macros) > 1 else None
    for _ in range(depth):
        found = calls.search(text) if calls else None
        if found is None:
            break
        call = _call_at(text, found.end() - 1)
        if call is None:
            break
        inner = expand(found.group(1), split_arguments(call[0]), {n: m for n, m in macros.items() if n != name}, depth - 1) or ""
        text = text[: found.start()] + inner + text[call[1] :]
    return text
