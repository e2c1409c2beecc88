"""Independent oracles of where definitions are: a language server's documentSymbol, or a
language's own parser (Python's `ast`, Ruby's Ripper, javac's parser). Never the gateway's queries.

Server symbols count as definitions when their kind is one: namespace, class, method,
constructor, enum, interface, function, struct. Imports, variables, constants, fields and
properties do not (so tsserver's `const f = () => {}`, reported as a constant, is no
definition to this oracle, and the report says so), nor do anonymous functions, classes
and structs (tsserver's "forEach() callback", clangd's "(anonymous struct)").
"""

from __future__ import annotations

import ast
import atexit
import json
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gateway.gate.effect import spans_lines
from gateway.langs import Language
from gateway.lsp.session import LspSession
from gateway.symbols.text import LineIndex

DEFINITION_KINDS = {3, 5, 6, 9, 10, 11, 12, 23}
_HEADER = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")
ANONYMOUS = ("<function>", "<class>")


@dataclass(frozen=True)
class OracleDefinition:
    """Character offsets of a definition's name and of its whole text."""

    name_start: int
    name_end: int
    start: int
    end: int


class Oracle(Protocol):
    name: str

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None: ...


class AstOracle:
    name = "python ast"

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        index = LineIndex.of(text)
        found = []
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                header = _HEADER.match(text, index.line_start(node.lineno - 1) + node.col_offset)
                if header is None:
                    continue
                first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                end = index.line_end((node.end_lineno or node.lineno) - 1)
                found.append(OracleDefinition(*header.span(1), index.line_start(first - 1), end))
        return sorted(found, key=lambda d: d.start)


class RubyOracle:
    """Ruby's own parser (Ripper) through benchmarks/ruby_definitions.rb."""

    name = "ruby Ripper"
    script = Path(__file__).with_name("ruby_definitions.rb")

    def __init__(self, ruby: str) -> None:
        self.ruby = ruby

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        done = subprocess.run([self.ruby, str(self.script)], input=text.encode(), capture_output=True, timeout=60)
        found = json.loads(done.stdout or b"null") if done.returncode == 0 else None
        if found is None:
            return None
        index = LineIndex.of(text)
        lines = text.split("\n")
        result = []
        for _, name, line, column in found:
            row = line - 1
            start = index.line_start(row) + len(lines[row].encode()[:column].decode("utf-8", "replace"))
            indent = len(lines[row]) - len(lines[row].lstrip())
            last = next((n for n in range(row + 1, len(lines)) if lines[n].strip() == "end" and len(lines[n]) - len(lines[n].lstrip()) == indent), row)
            result.append(OracleDefinition(start, start + len(name), index.line_start(row), index.line_end(last)))
        return sorted(result, key=lambda d: d.start)


class JavaOracle:
    """javac's own parser through benchmarks/JavaDefinitions.java, kept running (one JVM start)."""

    name = "javac parser"
    source = Path(__file__).with_name("JavaDefinitions.java")

    def __init__(self, javac: str, java: str) -> None:
        build = Path(tempfile.mkdtemp(prefix="java-oracle-"))
        subprocess.run([javac, "-d", str(build), str(self.source)], check=True, capture_output=True, timeout=120)
        self.process = subprocess.Popen([java, "-cp", str(build), "JavaDefinitions"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        atexit.register(self.process.kill)

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        assert self.process.stdin and self.process.stdout
        data = text.encode()
        self.process.stdin.write(b"%d\n" % len(data) + data)
        self.process.stdin.flush()
        found = json.loads(self.process.stdout.readline() or b"null")
        return None if found is None else sorted((OracleDefinition(*entry) for entry in found), key=lambda d: d.start)


class LspOracle:
    def __init__(self, session: LspSession, lang: Language) -> None:
        self.session = session
        self.lang = lang
        self.name = f"documentSymbol ({session.name})"

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        self.session.sync(path, text, self.lang.server.language_id_for(path))
        uri = path.as_uri()
        reply = self.session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}}))
        if not isinstance(reply, list):
            return None
        index = LineIndex.of(text)
        found: list[OracleDefinition] = []

        def offset(position: dict[str, Any]) -> int:
            return index.from_utf16(position["line"], position["character"])

        def walk(item: dict[str, Any]) -> None:
            # An anonymous function (tsserver: "forEach() callback") is no addressable definition.
            name = str(item.get("name", ""))
            anonymous = name in ANONYMOUS or name.endswith(" callback") or name.startswith("(anonymous")
            if item.get("kind") in DEFINITION_KINDS and not anonymous:
                rng = item.get("range") or item["location"]["range"]
                selection = item.get("selectionRange", rng)
                start, end = _name_span(text, index, name, offset(selection["start"]), offset(selection["end"]))
                found.append(OracleDefinition(start, end, offset(rng["start"]), offset(rng["end"])))
            for child in item.get("children") or []:
                walk(child)

        for item in reply:
            walk(item)
        return sorted(found, key=lambda d: d.start)


def _name_span(text: str, index: LineIndex, name: str, start: int, end: int) -> tuple[int, int]:
    """The name inside a server's selection. Most servers select just the name; tsserver
    selects a whole constructor, or the function of `var f = a || function () {}`."""
    if text[start:end] == name:
        return start, end
    short = re.split(r"::|\.", name)[-1]
    pattern = re.compile(r"(?<![\w$])" + re.escape(short) + r"(?![\w$])")
    match = pattern.search(text, index.line_start(index.line_of(start)), end)
    return match.span() if match else (start, end)


def oracle_blocks(oracle: Oracle, path: Path, text: str, before: list[OracleDefinition], old: str, new: str) -> bool | None:
    """The gate's rule applied to the oracle's definitions; None when the oracle cannot judge."""
    at = text.index(old)
    touched = [d for d in before if at <= d.name_start and d.name_end <= at + len(old)]
    edited = text[:at] + new + text[at + len(old) :]
    after = oracle.definitions(path, edited)
    if after is None:
        return None
    remaining = sorted(text[d.name_start : d.name_end] for d in touched)
    added = False
    for d in after:
        if at <= d.name_start and d.name_end <= at + len(new):
            name = edited[d.name_start : d.name_end]
            if name in remaining:
                remaining.remove(name)
            else:
                added = True
    multi_line = spans_lines(old) or (spans_lines(new) and added)
    return multi_line and (bool(touched) or added)
