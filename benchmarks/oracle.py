"""Independent oracles of what a change does to definitions: a language's own parser
(Python's `ast`, Ruby's Ripper, javac's parser, TypeScript's compiler API; Go's and clang's in
oracle_programs.py and oracle_clang.py). None of them imports the gateway; the one that is a
language server's documentSymbol (oracle_lsp.py, where no parser of the language is reachable)
runs a server process and session of its own.

Each oracle lists a text's definitions with a name path, a canonical header and a
canonical body, so two texts can be compared without looking at formatting:

- `definition`: a definition is added, removed or renamed (the name paths differ);
- `header`: a definition's header differs (decorators, modifiers, name, parameters,
  bases, return type);
- `body`: only bodies differ;
- `none`: no definition differs (imports, module-level code, comments).

(oracle_lsp.py) Server symbols count as definitions when their kind is one (namespace, class, method,
constructor, enum, interface, function, struct), or when they are a variable or constant
whose initializer is a function. Anonymous ones ("forEach() callback", "(anonymous
struct)") do not, nor do an enum's members. A server gives no header, so its header is the
symbol's text up to the first `{` outside brackets (or up to `;`), compared token by token
without comments; a type name without braces (`typedef int t`) has its name as header and
the type it stands for as body, as the gate has it.
"""

from __future__ import annotations

import ast
import atexit
import bisect
import json
import re
import subprocess
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from benchmarks.references import char_offsets

Label = Literal["definition", "header", "body", "none"]
DEFINITION_KINDS = {3, 5, 6, 9, 10, 11, 12, 23}
ENUM_KIND = 10
TYPE_KINDS = {5, 23, 26}
VARIABLE_KINDS = {13, 14}
ANONYMOUS = ("<function>", "<class>")


@dataclass(frozen=True)
class OracleDefinition:
    """A definition: where its name and its whole text are (character offsets), and what
    its header and body are, canonically."""

    name_start: int
    name_end: int
    start: int
    end: int
    name_path: str = ""
    kind: str = ""
    header: str = ""
    body: str = ""


class Oracle(Protocol):
    name: str

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        """The text's definitions, or None when it does not parse."""
        ...


def structural(label: Label, multi_line: bool) -> bool:
    """The gate's rule on the oracle's label: any write that adds, removes or renames a
    definition, and a multi-line write that changes a header."""
    return label == "definition" or (multi_line and label == "header")


def label(before: list[OracleDefinition], after: list[OracleDefinition]) -> Label:
    """What a change from `before` to `after` does to definitions, matched by name path and order."""
    if Counter(d.name_path for d in before) != Counter(d.name_path for d in after):
        return "definition"
    by_path: dict[str, list[OracleDefinition]] = defaultdict(list)
    for d in after:
        by_path[d.name_path].append(d)
    seen: Counter[str] = Counter()
    pairs = []
    for d in before:
        pairs.append((d, by_path[d.name_path][seen[d.name_path]]))
        seen[d.name_path] += 1
    if any(b.header != a.header or b.kind != a.kind for b, a in pairs):
        return "header"
    if any(b.body != a.body for b, a in pairs):
        return "body"
    return "none"


def _dump(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_dump(item) for item in value) + "]"
    return "None" if value is None else ast.dump(value)


class Lines:
    """Where each line of a text starts and ends (character offsets, lines from 0)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def line_start(self, line: int) -> int:
        return self.starts[min(max(line, 0), len(self.starts) - 1)]

    def line_end(self, line: int) -> int:
        return self.starts[line + 1] - 1 if line + 1 < len(self.starts) else len(self.text)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def from_utf16(self, line: int, column: int) -> int:
        """The character offset of an LSP position (UTF-16 column), clamped to its line."""
        if line >= len(self.starts):
            return len(self.text)
        start, end = self.line_start(line), self.line_end(line)
        units = 0
        for offset in range(start, end):
            if units >= column:
                return offset
            units += 2 if ord(self.text[offset]) > 0xFFFF else 1
        return end


class AstOracle:
    """Python's own parser: functions, classes and module-level lambdas at any depth."""

    name = "python ast"
    _HEADER = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)")

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return None
        index = Lines(text)
        found: list[OracleDefinition] = []

        def offset(line: int, column: int) -> int:
            start = index.line_start(line - 1)
            return start + len(text[start : index.line_end(line - 1)].encode()[:column].decode("utf-8", "replace"))

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                entry = self._entry(child, node, prefix, offset, text)
                if entry is not None:
                    found.append(entry)
                visit(child, prefix + entry.name_path.rsplit("/", 1)[-1] + "/" if entry else prefix)

        visit(tree, "")
        return sorted(found, key=lambda d: d.start)

    def _entry(self, node: ast.AST, parent: ast.AST, prefix: str, offset: Any, text: str) -> OracleDefinition | None:
        end = offset(getattr(node, "end_lineno", 1) or 1, getattr(node, "end_col_offset", 0) or 0)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            match = self._HEADER.match(text, offset(node.lineno, node.col_offset))
            if match is None:
                return None
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            if isinstance(node, ast.ClassDef):
                kind, header = "class", f"class|{_dump(node.decorator_list)}|{node.name}|{_dump(node.bases)}|{_dump(node.keywords)}"
            else:
                kind = "function"
                header = (f"{type(node).__name__}|{_dump(node.decorator_list)}|{node.name}|{_dump(node.args)}"
                          f"|{_dump(node.returns)}")
            return OracleDefinition(*match.span(1), offset(first, 0), end, prefix + node.name, kind, header, _dump(node.body))
        if isinstance(parent, ast.Module) and isinstance(node, (ast.Assign, ast.AnnAssign)):
            target = node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else getattr(node, "target", None)
            if isinstance(target, ast.Name) and isinstance(node.value, ast.Lambda):
                start = offset(target.lineno, target.col_offset)
                header = f"lambda|{target.id}|{_dump(node.value.args)}"
                return OracleDefinition(start, start + len(target.id), start, end, prefix + target.id, "function", header,
                                        _dump(node.value.body))
        return None


class RubyOracle:
    """Ruby's own parser (Ripper) through benchmarks/ruby_definitions.rb."""

    name = "ruby Ripper"
    script = Path(__file__).with_name("ruby_definitions.rb")

    def __init__(self, ruby: str) -> None:
        self.ruby = ruby

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        done = subprocess.run([self.ruby, str(self.script)], input=text.encode(), capture_output=True, timeout=120)
        found = json.loads(done.stdout or b"null") if done.returncode == 0 else None
        if found is None:
            return None
        index = Lines(text)
        lines = text.split("\n")
        result = []
        for kind, name, name_path, line, column, end_line, header, body in found:
            row = line - 1
            start = index.line_start(row) + len(lines[row].encode()[:column].decode("utf-8", "replace"))
            end = index.line_end(max(end_line - 1, row))
            result.append(OracleDefinition(start, start + len(name), index.line_start(row), end, name_path, kind, header, body))
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


class TypeScriptOracle:
    """TypeScript's own parser (the compiler API) through benchmarks/ts_definitions.js, kept running."""

    script = Path(__file__).with_name("ts_definitions.js")

    def __init__(self, node: str, typescript: Path) -> None:
        version = json.loads((typescript / "package.json").read_text())["version"]
        self.name = f"TypeScript {version} compiler API (node)"
        self.process = subprocess.Popen([node, str(self.script), str(typescript.resolve())], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        atexit.register(self.process.kill)

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        assert self.process.stdin and self.process.stdout
        data = text.encode()
        kind = path.suffix.lstrip(".").lower().replace("mts", "ts").replace("cts", "ts").replace("mjs", "js").replace("cjs", "js")
        self.process.stdin.write(f"{kind} {len(data)}\n".encode() + data)
        self.process.stdin.flush()
        found = json.loads(self.process.stdout.readline() or b"null")
        if found is None:
            return None
        chars = char_offsets(text, "utf-16")  # the compiler's offsets are UTF-16 code units
        return sorted((OracleDefinition(chars[a], chars[b], chars[c], chars[d], *rest) for a, b, c, d, *rest in found), key=lambda d: d.start)


_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_FUNCTION_VALUE = re.compile(
    r"=\s*(?:async\s+)?(?:function\b|\([^()]*(?:\([^()]*\)[^()]*)*\)\s*(?::[^=]+)?=>|[\w$]+\s*=>|(?:React\.)?(?:memo|forwardRef)\s*\()"
)


_TOKEN = re.compile(r"\w+|[^\w\s]")


def _fold(text: str) -> str:
    """Comments dropped, then tokens (words, single punctuation) joined by one space: layout is no change."""
    return " ".join(_TOKEN.findall(_COMMENT.sub(" ", text)))


def _split_header(text: str) -> tuple[str, str]:
    """(header, body) of a symbol's text: the body starts at the first `{` outside brackets."""
    depth = 0
    quote = ""
    for position, char in enumerate(text):
        if quote:
            quote = "" if char == quote and text[position - 1] != "\\" else quote
        elif char in "\"'`":
            quote = char
        elif char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char == "{" and depth == 0:
            return text[:position], text[position:]
        elif char == ";" and depth == 0:
            return text[:position], ""
    return text, ""


def _spelled(text: str, at: int) -> str:
    """The macro call at `at` as written (its name and balanced arguments), spaces folded."""
    found = re.match(r"\w+\s*", text[at:])
    end = at + (found.end() if found else 0)
    depth = 0
    for position in range(end, min(len(text), end + 2000)):
        depth += {"(": 1, ")": -1}.get(text[position], 0)
        if depth <= 0:
            end = position + (text[position] == ")")
            break
    return " ".join(text[at:end].split())


_LEADING = re.compile(r"(?:(?:template\s*<[^{};]*?>|constexpr|consteval|inline|static|virtual|explicit|friend|\[\[[^\]]*\]\])\s*)+\Z")


class LspOracle:
    """A language server's documentSymbol, through the gateway's session type: the matrix gives it
    a server process and session of its own (matrix_oracles.py), the replay the gateway's."""

    def __init__(self, session: Any, lang: Any) -> None:
        self.session = session
        self.lang = lang
        self.name = f"documentSymbol ({session.name})"

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        """The server's symbols once it has analysed the text (where it says so) and two
        answers in a row agree: right after a change, clangd may answer from an older AST."""
        self.session.sync(path, text, self.lang.server.language_id_for(path))
        if self.session.versions_diagnostics:
            self.session.wait_for_analysis(path, 30)
        uri = path.as_uri()
        reply = None
        for attempt in range(8):
            again = self.session.request("documentSymbol", lambda h: h.send.document_symbol({"textDocument": {"uri": uri}}))
            if again == reply:
                break
            reply = again
            time.sleep(0.1 * attempt)
        if not isinstance(reply, list):
            return None
        return self._walk(text, reply)

    def _lead(self, text: str, start: int) -> int:
        """Where a symbol's header starts: clangd's range for a function template begins at its
        return type, after `template <...>` and `constexpr`, which are its header too."""
        if self.session.name != "clangd":
            return start
        found = _LEADING.search(text, max(0, start - 400), start)
        return found.start() if found else start

    def _walk(self, text: str, reply: list[dict[str, Any]]) -> list[OracleDefinition]:
        index = Lines(text)
        found: list[OracleDefinition] = []

        def offset(position: dict[str, Any]) -> int:
            return index.from_utf16(position["line"], position["character"])

        def walk(item: dict[str, Any], prefix: str, in_enum: bool = False) -> None:
            name = str(item.get("name", ""))
            if name and name not in text:  # made by a macro (Catch2's TEST_CASE: CATCH2_INTERNAL_TEST_<__COUNTER__>)
                name = _spelled(text, offset((item.get("selectionRange") or item["range"])["start"]))
            anonymous = name in ANONYMOUS or name.endswith(" callback") or name.startswith("(anonymous")
            rng = item.get("range") or item["location"]["range"]
            start, end = offset(rng["start"]), offset(rng["end"])
            kind = item.get("kind")
            is_function_value = kind in VARIABLE_KINDS and _FUNCTION_VALUE.search(text, start, end) is not None
            # An enum's members are its body, not definitions (clangd reports them as enums too).
            counted = (kind in DEFINITION_KINDS or is_function_value) and not anonymous and not in_enum
            if counted:
                selection = item.get("selectionRange", rng)
                name_start, name_end = _name_span(text, index, name, offset(selection["start"]), offset(selection["end"]))
                header, body = _split_header(text[self._lead(text, start) : end])
                if kind in TYPE_KINDS and not body:  # `typedef int t`, Go's `T int`: the type is the body
                    header, body = name, text[start:end].replace(name, " ", 1)
                found.append(OracleDefinition(name_start, name_end, start, end, prefix + name, str(kind), _fold(header), _fold(body)))
            for child in item.get("children") or []:
                walk(child, prefix + name + "/" if counted else prefix, kind == ENUM_KIND)

        for item in reply:
            walk(item, "")
        return sorted(found, key=lambda d: d.start)


def _name_span(text: str, index: Lines, name: str, start: int, end: int) -> tuple[int, int]:
    """The name inside a server's selection. Most servers select just the name; tsserver
    selects a whole constructor, or the function of `var f = a || function () {}`."""
    if text[start:end] == name:
        return start, end
    short = re.split(r"::|\.", name)[-1]
    pattern = re.compile(r"(?<![\w$])" + re.escape(short) + r"(?![\w$])")
    match = pattern.search(text, index.line_start(index.line_of(start)), end)
    return match.span() if match else (start, end)
