"""C and C++ oracles from clang's own front end: the AST libclang builds (the `libclang` wheel
from PyPI carries clang 18's library; the machine has gcc but no clang binary, so no
`clang -Xclang -ast-dump=json`: the AST it would dump is the one read here).

- `ClangOracle`: definitions (namespaces, classes, structs, unions, enums, functions, methods,
  constructors, typedefs and aliases declared in the file outside function bodies), header and
  body as clang's tokens
  (comments and layout are no change);
- `ClangReferences`: every identifier token resolved to the declaration clang binds it to
  (`referencedDecl`, keyed by USR; a constructor's or destructor's name by its class's), and
  the number of errors clang reports.

Headers the machine does not have (a third-party file's own) are blanked out of the text,
offsets kept, so that clang goes on past them; the errors that follow count the same before
and after a change. Nothing here imports the gateway.
"""

from __future__ import annotations

import bisect
import re
import subprocess
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.oracle import OracleDefinition
from benchmarks.references import Resolution, char_offsets

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"].*$', re.M)
_MISSING = re.compile(r"'([^']+)' file not found")


def available() -> bool:
    try:
        import clang.cindex  # noqa: F401
    except ImportError:
        return False
    return True


@lru_cache(maxsize=1)
def _gcc_include() -> list[str]:
    """gcc's own headers (stddef.h, stdarg.h): the wheel carries clang's library without them."""
    try:
        found = subprocess.run(["gcc", "-print-file-name=include"], capture_output=True, text=True, timeout=30).stdout.strip()
    except OSError:
        return []
    return ["-isystem", found] if found and Path(found).is_dir() else []


def _blank(text: str, start: int, end: int) -> str:
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


class _Parsed:
    """One parse of a text: the translation unit, its tokens and byte->character offsets."""

    def __init__(self, text: str, cpp: bool) -> None:
        import clang.cindex as cindex

        self.cindex = cindex
        self.text = text
        name = "input.cpp" if cpp else "input.c"
        arguments = ["-x", "c++", "-std=c++17"] if cpp else ["-x", "c", "-std=c11"]
        arguments += [*_gcc_include(), "-ferror-limit=0"]
        index = cindex.Index.create()
        source = text
        for _ in range(40):  # each round blanks the #include lines of the headers clang could not find
            unit = index.parse(name, args=arguments, unsaved_files=[(name, source)], options=cindex.TranslationUnit.PARSE_INCOMPLETE)
            missing = {m.group(1) for d in unit.diagnostics for m in [_MISSING.search(d.spelling)] if m}
            lines = [m for m in _INCLUDE.finditer(source) if m.group(1) in missing]
            if not lines:
                break
            for line in lines:
                source = _blank(source, line.start(), line.end())
        self.unit = unit
        self.main = name
        self.chars = char_offsets(text, "utf-8")
        self.tokens = [t for t in unit.get_tokens(extent=unit.cursor.extent) if t.location.file and t.location.file.name == name
                       and t.kind.name != "COMMENT"]
        self.token_starts = [t.extent.start.offset for t in self.tokens]

    def char(self, byte: int) -> int:
        return self.chars[min(byte, len(self.chars) - 1)]

    def in_main(self, cursor: Any) -> bool:
        return cursor.location.file is not None and cursor.location.file.name == self.main

    def spelled(self, start: int, end: int) -> str:
        """Clang's tokens between two byte offsets, one space apart."""
        first, last = bisect.bisect_left(self.token_starts, start), bisect.bisect_left(self.token_starts, end)
        return " ".join(t.spelling for t in self.tokens[first:last])

    def errors(self) -> int:
        return sum(d.severity >= self.cindex.Diagnostic.Error for d in self.unit.diagnostics)


_DEFINITION_KINDS = {
    "NAMESPACE": "namespace", "CLASS_DECL": "class", "STRUCT_DECL": "struct", "UNION_DECL": "union", "ENUM_DECL": "enum",
    "CLASS_TEMPLATE": "class", "CLASS_TEMPLATE_PARTIAL_SPECIALIZATION": "class", "FUNCTION_DECL": "function",
    "FUNCTION_TEMPLATE": "function", "CXX_METHOD": "method", "CONSTRUCTOR": "method", "DESTRUCTOR": "method",
    "CONVERSION_FUNCTION": "method", "TYPEDEF_DECL": "type", "TYPE_ALIAS_DECL": "type",
}
_BODY_OPENERS = {"COMPOUND_STMT"}
_FUNCTION_KINDS = {name for name, kind in _DEFINITION_KINDS.items() if kind in ("function", "method")}


class ClangOracle:
    def __init__(self, cpp: bool) -> None:
        self.cpp = cpp
        self.name = f"clang 18 AST (libclang wheel, {'C++' if cpp else 'C'})"

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        parsed = _Parsed(text, self.cpp)
        found: list[OracleDefinition] = []

        def visit(cursor: Any, prefix: str) -> None:
            for child in cursor.get_children():
                if not parsed.in_main(child):
                    continue
                entry = self._entry(parsed, child, prefix)
                if entry is not None:
                    found.append(entry)
                if child.kind.name not in _FUNCTION_KINDS:  # what a function declares inside is local, not a definition
                    visit(child, prefix + entry.name_path.rsplit("/", 1)[-1] + "/" if entry else prefix)

        visit(parsed.unit.cursor, "")
        return sorted(found, key=lambda d: d.start)

    def _entry(self, parsed: _Parsed, cursor: Any, prefix: str) -> OracleDefinition | None:
        kind = _DEFINITION_KINDS.get(cursor.kind.name)
        name = cursor.spelling
        if kind is None or not name or "(anonymous" in name or "(unnamed" in name:
            return None
        start, end, at = cursor.extent.start.offset, cursor.extent.end.offset, cursor.location.offset
        if not start <= at <= end:  # made by a macro: its expansion, not a definition written here
            return None
        opener = next((c.extent.start.offset for c in cursor.get_children() if c.kind.name in _BODY_OPENERS), None)
        if opener is None and kind in {"namespace", "class", "struct", "union", "enum"}:
            brace = parsed.text.encode().find(b"{", at, end)
            opener = brace if brace >= 0 else None
        if kind == "type":
            header, body = name, parsed.spelled(start, end).replace(name, " ", 1)
        elif opener is None:
            header, body = parsed.spelled(start, end), ""
        else:
            header, body = parsed.spelled(start, opener), parsed.spelled(opener, end)
        semantic = cursor.semantic_parent
        qualifier = f"{semantic.spelling}::" if semantic is not None and semantic != cursor.lexical_parent and semantic.spelling else ""
        name_start = parsed.char(at)
        return OracleDefinition(name_start, name_start + len(name), parsed.char(start), parsed.char(end), prefix + qualifier + name, kind,
                                header, body)


class ClangReferences:
    def __init__(self, cpp: bool) -> None:
        self.cpp = cpp
        self.name = f"clang 18 referencedDecl (libclang wheel, {'C++' if cpp else 'C'})"

    def resolve(self, path: Path, text: str) -> Resolution | None:
        parsed = _Parsed(text, self.cpp)
        names: dict[int, str] = {}
        for token in parsed.tokens:
            if token.kind.name != "IDENTIFIER":
                continue
            referenced = token.cursor.referenced if token.cursor is not None else None
            if referenced is None or referenced.kind.is_invalid():
                continue
            if referenced.kind.name in ("CONSTRUCTOR", "DESTRUCTOR") and referenced.semantic_parent is not None:
                referenced = referenced.semantic_parent  # the class's name, spelled again
            key = referenced.get_usr() or f"{referenced.kind.name}@{referenced.location.offset}"
            names[parsed.char(token.extent.start.offset)] = key
        return Resolution(names, parsed.errors())

