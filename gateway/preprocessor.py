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

import re
from dataclasses import dataclass

from gateway.langs import Preprocessor

Span = tuple[int, int]

# A conditional directive's line, backslash-newlines continuing it.
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b[ \t]*((?:\\\r?\n|[^\n])*)", re.MULTILINE)
_DEFINED = re.compile(rb"^(!?)\s*(?:defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+))$")
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef)\b", re.MULTILINE)


@dataclass(frozen=True)
class View:
    """One reading of a text: `text` with `inactive` (the branches not taken) blanked."""

    kind: str
    text: bytes
    inactive: tuple[Span, ...]

    def hides(self, start: int, end: int) -> bool:
        """Whether [start, end) lies wholly in branches this view does not take."""
        return any(s <= start and end <= e for s, e in self.inactive)


def _value(spec: Preprocessor, keyword: bytes, condition: bytes) -> bool | None:
    """A condition's value where the language's data decides it; None when it does not."""
    condition = condition.split(b"//")[0].split(b"/*")[0].strip()
    if keyword in (b"ifdef", b"ifndef"):
        name, negated = condition, keyword == b"ifndef"
    elif condition in (b"0", b"1"):
        return condition == b"1"
    else:
        found = _DEFINED.match(condition)
        if found is None:
            return None
        name, negated = found.group(2) or found.group(3), bool(found.group(1))
    word = name.decode("ascii", "replace")
    if word in spec.defined:
        return not negated
    if word in spec.undefined:
        return negated
    return None


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


def _groups(spec: Preprocessor, source: bytes) -> tuple[list[list[_Branch]], list[Span]]:
    """Every conditional group's branches (outermost last) and every directive line."""
    groups: list[list[_Branch]] = []
    stack: list[list[_Branch]] = []
    directives: list[Span] = []
    for found in _DIRECTIVE.finditer(source):
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


def _blank(buffer: bytearray, start: int, end: int) -> None:
    chunk = buffer[start:end]
    buffer[start:end] = re.sub(rb"[^\r\n]", b" ", bytes(chunk))


def views(spec: Preprocessor, source: bytes) -> list[View]:
    """The first-branch and last-branch views of a text (one when they are the same), or none
    when there is nothing to read differently."""
    macro_lines = [m.span() for m in spec.macro_line.finditer(source)] if spec.macro_line.pattern else []
    if not macro_lines and not _CONDITIONAL.search(source):
        return []
    groups, directives = _groups(spec, source)
    found: list[View] = []
    for kind in ("first", "last"):
        inactive: list[Span] = []
        for branches in groups:
            taken = _taken(branches, kind)
            inactive += [(b.start, b.end) for i, b in enumerate(branches) if i != taken and b.start < b.end]
        buffer = bytearray(source)
        for start, end in inactive + directives + macro_lines:
            _blank(buffer, start, end)
        view = View(kind, bytes(buffer), tuple(sorted(inactive)))
        if not found or found[0].text != view.text:
            found.append(view)
    return found
