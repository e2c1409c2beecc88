"""The mistakes benchmark's cases: an agent's `old_string`→`new_string` on a repository's own
definitions, each mistake beside the correct edit of the same kind.

Definitions are found by a line reader of this module's own (a header regex per language, the
extent by indentation or by the closing line at the header's indentation), not by the gateway's
parser, so that the edits are not cut at the gateway's boundaries. Only single-line headers are
read; decorators are the lines just above a header, at its indentation, that open with the
language's decorator sign. A name's uses are counted as whole words over all the repository's
files of the language (tests included): "referenced" is more than one occurrence, "unreferenced"
exactly one.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

CONTROL = {"if", "for", "while", "switch", "catch", "return", "else", "do", "try", "function", "new", "sizeof", "match", "loop"}


@dataclass(frozen=True)
class Language:
    """How one repository's language is read: where its definitions are, how a header looks."""

    name: str
    sources: tuple[str, ...]  # globs of the files whose definitions are edited
    counted: tuple[str, ...]  # globs of the files a name's uses are counted in
    header: re.Pattern[str]  # a one-line header; groups `indent` and `name`
    comment: str
    decorator: str  # what a decorator line opens with ("" where there are none)
    parameter: str  # a parameter added to a header, as the language spells one
    indented: bool = False  # the body is the lines indented past the header (Python)
    upper_constructors: bool = False  # a capitalised name is a constructor (Java, C++): left alone
    tests_suffix: str = ""  # files of `sources` that are tests, whose definitions are not edited
    name_line: re.Pattern[str] | None = None  # a header's name line where the type stands on the line above
    type_above: re.Pattern[str] | None = None  # such a line above (a return type, `template <...>`)


LANGUAGES = {
    "python": Language(
        "python", ("src/**/*.py",), ("src/**/*.py", "tests/**/*.py"),
        re.compile(r"^(?P<indent>[ ]*)(?:async\s+)?def\s+(?P<name>\w+)\s*\((?P<params>.*)\)\s*(?:->.*)?:\s*$"),
        "#", "@", "extra_argument", indented=True),
    "go": Language(
        "go", ("*.go",), ("**/*.go",),
        re.compile(r"^(?P<indent>)func\s+(?:\([^)]*\)\s*)?(?P<name>\w+)\s*\((?P<params>[^()]*)\).*\{\s*$"),
        "//", "", "extraArgument int", tests_suffix="_test.go"),
    "typescript": Language(
        "typescript", ("source/**/*.ts",), ("source/**/*.ts", "test/**/*.ts"),
        re.compile(r"^(?P<indent>\t*)(?:export\s+)?(?:async\s+)?(?:function\s+(?P<name>\w+)|const\s+(?P<cname>\w+)\s*=\s*(?:async\s*)?)"
                   r"\((?P<params>[^()]*)\)[^=]*(?:=>)?\s*\{\s*$"),
        "//", "@", "extraArgument: number"),
    "java": Language(
        "java", ("gson/src/main/java/**/*.java",), ("**/*.java",),
        re.compile(r"^(?P<indent>[ ]+)(?:(?:public|private|protected|static|final|synchronized)\s+)*(?:<[^>]+>\s+)?[\w.<>\[\]?, ]+\s+"
                   r"(?P<name>\w+)\s*\((?P<params>[^()]*)\)\s*(?:throws\s+[\w., ]+)?\s*\{\s*$"),
        "//", "@", "int extraArgument", upper_constructors=True),
    "cpp": Language(
        "cpp", ("include/*.hpp",), ("include/*.hpp", "test/*.cpp", "src/*.cpp"),
        re.compile(r"^(?P<indent>[ ]*)(?:(?:inline|static|virtual|explicit|constexpr|CXXOPTS_NODISCARD)\s+)*[\w:<>*&]+(?:\s+[\w:<>*&]+)*\s+[*&]?"
                   r"(?P<name>\w+)\s*\((?P<params>[^()]*)\)\s*(?:const\s*)?(?:override\s*)?(?:noexcept\s*)?\{?\s*$"),
        "//", "[[", "int extraArgument", upper_constructors=True,
        name_line=re.compile(r"^(?P<indent>[ ]*)(?P<name>\w+)\s*\((?P<params>[^()]*)\)\s*(?:const\s*)?(?:override\s*)?(?:noexcept\s*)?$"),
        type_above=re.compile(r"^[ ]*(?:template\s*<.*>|(?:inline\s+|static\s+|virtual\s+|CXXOPTS_NODISCARD\s+)*[\w:<>,*&]+(?:\s+[\w:<>,*&]+)*)\s*$")),
    "rust": Language(
        "rust", ("src/*.rs",), ("src/**/*.rs", "tests/**/*.rs", "benches/**/*.rs"),
        re.compile(r"^(?P<indent>[ ]*)(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:unsafe\s+)?fn\s+(?P<name>\w+)\s*\((?P<params>[^()]*)\)[^{;]*\{\s*$"),
        "//", "#[", "extra_argument: u32"),
}


@dataclass(frozen=True)
class Definition:
    """A function or method as the line reader finds it: lines are 0-based indexes into the
    file's lines; `header` holds the name, `top` is the header's first line (above the name's,
    where a C++ return type stands on its own line), `first` the first decorator (or `top`),
    `open` the line holding the body's opening (the header, or the `{` line after it), `last`
    the closing line."""

    path: str
    name: str
    indent: str
    first: int
    top: int
    header: int
    open: int
    last: int
    params: str


@dataclass(frozen=True)
class Edit:
    """One Claude Code Edit: `old` occurs once in `path` (or `replace_all`)."""

    path: str
    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True)
class Case:
    """A mistake kind's case: the `edit` an agent makes; `correct` says whether it is the correct
    edit of the kind (counted for false refusals) or the mistake."""

    kind: str
    language: str
    name: str
    edit: Edit
    correct: bool


def definitions(language: Language, path: str, text: str) -> list[Definition]:
    lines = text.split("\n")
    found = []
    for at, line in enumerate(lines):
        match = language.header.match(line) or (language.name_line.match(line) if language.name_line else None)
        if not match:
            continue
        name = match.groupdict().get("name") or match.groupdict().get("cname") or ""
        if not name or name in CONTROL or (language.upper_constructors and name[:1].isupper()):
            continue
        indent = match["indent"]
        opened = at if (language.indented or line.rstrip().endswith("{")) else at + 1
        if opened != at and (opened >= len(lines) or lines[opened].strip() != indent.strip() + "{" or not lines[opened].startswith(indent)):
            continue
        last = _last_line(lines, at, opened, indent, language.indented)
        if last is None or last - opened < 2:
            continue
        top = at
        while language.type_above and top > 0 and language.type_above.match(lines[top - 1]) and lines[top - 1].startswith(indent) \
                and at - top < 2:
            top -= 1
        first = top
        while language.decorator and first > 0 and lines[first - 1].startswith(indent + language.decorator) \
                and not lines[first - 1][len(indent):len(indent) + 1].isspace():
            first -= 1
        found.append(Definition(path, name, indent, first, top, at, opened, last, match["params"]))
    return found


def _last_line(lines: list[str], header: int, opened: int, indent: str, indented: bool) -> int | None:
    if indented:
        last = None
        for at in range(header + 1, len(lines)):
            line = lines[at]
            if line.strip() and not (line.startswith(indent) and len(line) > len(indent) and line[len(indent)].isspace()):
                break
            if line.strip():
                last = at
        return last
    for at in range(opened + 1, len(lines)):
        if lines[at].rstrip() in (indent + "}", indent + "};"):
            return at
        if lines[at].strip() and not lines[at].startswith(indent):
            return None
    return None


def uses(root: Path, language: Language) -> dict[str, int]:
    """How often each word occurs in the language's files (comments and strings included)."""
    counts: dict[str, int] = {}
    for pattern in language.counted:
        for file in sorted(root.glob(pattern)):
            for word in re.findall(r"\w+", file.read_text(encoding="utf-8", errors="replace")):
                counts[word] = counts.get(word, 0) + 1
    return counts


def _joined(lines: list[str], start: int, end: int) -> str:
    return "\n".join(lines[start:end + 1])


def _renamed_header(header: str, name: str, new: str) -> str:
    return re.sub(rf"\b{re.escape(name)}\b", new, header, count=1)


def _with_parameter(language: Language, d: Definition, header: str) -> str | None:
    if "*" in d.params or "..." in d.params or "<" in header.split(d.name, 1)[0][-1:]:
        return None
    params = d.params.strip()
    added = f"{params}, {language.parameter}" if params else language.parameter
    before, _, after = header.partition(f"({d.params})")
    return f"{before}({added}){after}" if after or before else None


def _body_comment(language: Language, lines: list[str], d: Definition) -> str:
    inner = lines[d.open + 1]
    indent = inner[: len(inner) - len(inner.lstrip())] or d.indent + "    "
    return f"{indent}{language.comment} checked by the mistakes benchmark"


def _commented(language: Language, lines: list[str], d: Definition) -> str:
    """The definition's text from its header, with a comment as the body's first line: the
    intended edit of the kinds that rewrite a definition."""
    return "\n".join([*lines[d.top:d.open + 1], _body_comment(language, lines, d), *lines[d.open + 1:d.last + 1]])


def _copy(lines: list[str], d: Definition, name: str) -> str:
    text = lines[d.first:d.last + 1]
    at = d.header - d.first
    text[at] = _renamed_header(text[at], d.name, name)
    return "\n".join(text)


def _suffix(language: Language) -> str:
    return "_copy" if language.name in ("python", "rust") else "Copy"


def kind_edits(language: Language, text: str, d: Definition, nxt: Definition | None, uses_of: dict[str, int]) -> dict[str, tuple[Edit, bool]]:
    """Each kind this definition can give: (the edit, whether it is the correct one of its kind)."""
    lines = text.split("\n")
    header = lines[d.header]
    whole, from_header = _joined(lines, d.first, d.last), _joined(lines, d.top, d.last)
    decorators = _joined(lines, d.first, d.top - 1) + "\n" if d.first < d.top else ""
    opening = _joined(lines, d.top, d.open)
    first_body = lines[d.open + 1]
    referenced = uses_of.get(d.name, 0) > 1
    renamed = d.name + ("_renamed" if language.name in ("python", "rust") else "Renamed")
    comment = _body_comment(language, lines, d)
    out: dict[str, tuple[Edit, bool]] = {}
    if decorators:
        old = decorators + opening + "\n" + first_body
        out["drops_decorator"] = (Edit(d.path, old, opening + "\n" + comment + "\n" + first_body), False)
        out["drops_decorator/correct"] = (Edit(d.path, old, decorators + opening + "\n" + comment + "\n" + first_body), True)
    out["duplicates_header"] = (Edit(d.path, _joined(lines, d.open + 1, d.last), _commented(language, lines, d)), False)
    out["duplicates_header/correct"] = (Edit(d.path, from_header, _commented(language, lines, d)), True)
    copy = _copy(lines, d, d.name + _suffix(language))
    out["splices_into_wrong_body"] = (Edit(d.path, opening + "\n" + first_body, opening + "\n" + copy + "\n" + first_body), False)
    out["splices_into_wrong_body/correct"] = (Edit(d.path, whole, whole + "\n\n" + copy), True)
    if nxt is not None and nxt.indent == d.indent and all(not line.strip() for line in lines[d.last + 1:nxt.first]):
        out["deletes_neighbour"] = (Edit(d.path, _joined(lines, d.top, nxt.last), _commented(language, lines, d)), False)
        out["deletes_neighbour/correct"] = (Edit(d.path, from_header, _commented(language, lines, d)), True)
    suffix = "/correct" if not referenced else ""
    out["rename_declaration_only" + suffix] = (Edit(d.path, header, _renamed_header(header, d.name, renamed)), not referenced)
    in_file = len(re.findall(rf"\b{re.escape(d.name)}\b", text))
    only_here = in_file == uses_of.get(d.name, 0) and text.count(d.name) == in_file
    out["rename_every_spelling" + ("/correct" if only_here else "")] = (Edit(d.path, d.name, renamed, replace_all=True), only_here)
    out["removes_used_code" + suffix] = (Edit(d.path, whole + "\n", ""), not referenced)
    widened = _with_parameter(language, d, header)
    if widened is not None:
        out["breaks_callers" + suffix] = (Edit(d.path, header, widened), not referenced)
    return out


def cases(root: Path, language: Language, limit: int, seed: int = 37) -> list[Case]:
    """Up to `limit` cases of each kind and of each kind's correct edit, picked with a fixed seed
    among the edits whose old_string occurs once in the file."""
    uses_of = uses(root, language)
    pool: dict[str, list[Case]] = {}
    for pattern in language.sources:
        for file in sorted(root.glob(pattern)):
            if language.tests_suffix and file.name.endswith(language.tests_suffix):
                continue
            text = file.read_text(encoding="utf-8")
            path = file.relative_to(root).as_posix()
            found = definitions(language, path, text)
            for d, nxt in zip(found, [*found[1:], None], strict=False):
                for key, (edit, correct) in kind_edits(language, text, d, nxt, uses_of).items():
                    if edit.replace_all or text.count(edit.old) == 1:
                        kind = key.split("/")[0]
                        pool.setdefault(key, []).append(Case(kind, language.name, f"{path}:{d.header + 1} {d.name}", edit, correct))
    chosen: list[Case] = []
    for key in sorted(pool):
        candidates = pool[key]
        random.Random(f"{seed}:{language.name}:{key}").shuffle(candidates)
        chosen += candidates[:limit]
    return chosen
