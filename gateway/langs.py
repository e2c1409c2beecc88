"""Languages are data: `langs/<name>.toml` records, looked up by file extension."""

from __future__ import annotations

import functools
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ServerSpec:
    name: str
    command: tuple[str, ...]
    alternatives: tuple[tuple[str, ...], ...]
    install: str
    adapter: str
    language_id: str
    language_id_by_extension: tuple[tuple[str, str], ...]
    version_args: tuple[str, ...]
    # The adapter of an alternative, by its program's name, where it is not the server's own.
    alternative_adapters: tuple[tuple[str, str], ...] = ()
    # Why the server comes before its alternatives (`gateway servers` says it); "" when nothing was compared.
    chosen_because: str = ""

    def language_id_for(self, path: str | os.PathLike[str]) -> str:
        return dict(self.language_id_by_extension).get(Path(path).suffix.lower(), self.language_id)

    def adapter_of(self, command: tuple[str, ...]) -> str:
        """The adapter of one of the spec's commands (an alternative's, or the server's own)."""
        return dict(self.alternative_adapters).get(os.path.basename(command[0]), self.adapter)


@dataclass(frozen=True)
class Preprocessor:
    """A C-family preprocessor, as data: the names whose `#ifdef` the language decides, and
    the lines that hold only a macro call (no `;`), which tree-sitter glues to what follows."""

    defined: frozenset[str]
    undefined: frozenset[str]
    macro_line: re.Pattern[bytes]
    # Rewrites of what tree-sitter cannot read but every compiler of the language's builds
    # can (Qt's `signals:`, an export macro between `class` and its name): the span a pattern's
    # `text` group matches becomes the given word, padded with blanks, offsets kept. A
    # pattern that names words it `needs` (every match spells one) is not run over a text
    # that spells none of them: a search for a word costs a small part of one for a pattern.
    rewrites: tuple[tuple[re.Pattern[bytes], bytes, tuple[bytes, ...]], ...] = ()


@dataclass(frozen=True)
class Language:
    name: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...]
    grammar: str
    query_path: Path
    symbol_backend: bool
    attached_before: frozenset[str]
    attached_parts: frozenset[str]
    decorator_nodes: frozenset[str]
    modifiers: frozenset[str]
    blank_lines_top: int
    blank_lines_nested: int
    never_empty: frozenset[str]
    scope_separator: str
    server: ServerSpec
    own_parser: str = ""
    overloading: bool = False
    rename_scope: str = "global"
    preprocessor: Preprocessor | None = None
    encoding_cookie: str = ""
    interpreters: tuple[str, ...] = ()
    body_lead: frozenset[str] = frozenset()
    # Where several languages claim a file (`.h`), text that only this one can be: a line
    # outside comments that one of these matches decides it, whatever the grammars make of it.
    markers: re.Pattern[str] | None = None
    # A definition named by a literal symbol (Ruby's `define_method(:name)`) is named without it.
    name_sigil: str = ""
    # What starts a name private to its class (`#` in JavaScript): a rename keeps it or its absence.
    private_prefix: str = ""
    # A method's body reaches its type's members by their bare names (Java's implicit `this`);
    # without it (Python, JavaScript, Go, Rust) a bare name there is never a member.
    bare_members: bool = False
    # Names the language calls without their spelling (Python's `__init__` by `A()`): a server's
    # references miss those calls, so its empty answer does not clear a name match of one.
    implicit_names: re.Pattern[str] | None = None
    # Line breaks the grammar does not read where the language does (Kotlin's before a primary
    # constructor): when a write's syntax is judged, each pattern's `break` group is read as spaces.
    syntax_joins: tuple[re.Pattern[bytes], ...] = ()


def data_dir(kind: str) -> Path:
    """Where `langs/` or `queries/` live: beside the package in a checkout, inside it in a wheel."""
    override = os.environ.get(f"GATEWAY_{kind.upper()}_DIR")
    if override:
        return Path(override)
    package = Path(__file__).resolve().parent
    bundled = package / "_data" / kind
    return bundled if bundled.is_dir() else package.parent / kind


def _preprocessor(raw: dict[str, object] | None) -> Preprocessor | None:
    if raw is None:
        return None
    return Preprocessor(
        defined=frozenset(raw.get("defined", ())),  # type: ignore[arg-type]
        undefined=frozenset(raw.get("undefined", ())),  # type: ignore[arg-type]
        macro_line=re.compile(str(raw.get("macro_line", "")).encode(), re.MULTILINE),
        rewrites=tuple(
            (re.compile(str(entry["pattern"]).encode(), re.MULTILINE), str(entry.get("with", "")).encode(),
             tuple(str(word).encode() for word in entry.get("needs", ())))
            for entry in raw.get("rewrite", ())  # type: ignore[attr-defined]
        ),
    )


def _encoding_cookie(raw: dict[str, object], path: Path) -> str:
    from gateway.cookies import RULES

    rule = raw.get("encoding_cookie", "")
    if rule not in RULES:
        raise ValueError(f"{path}: encoding_cookie must be one of {', '.join(map(repr, RULES))}, not {rule!r}")
    return str(rule)


def _load_language(path: Path, queries: Path) -> Language:
    raw = tomllib.loads(path.read_text(encoding="utf-8"))
    server = raw["server"]
    return Language(
        name=raw["name"],
        extensions=tuple(ext.lower() for ext in raw["extensions"]),
        filenames=tuple(raw.get("filenames", ())),
        grammar=raw["grammar"],
        query_path=queries / raw.get("queries", raw["name"]) / "definitions.scm",
        symbol_backend=bool(raw["symbol_backend"]),
        attached_before=frozenset(raw.get("attached_before", ())),
        attached_parts=frozenset(raw.get("attached_parts", ())),
        decorator_nodes=frozenset(raw.get("decorator_nodes", ())),
        modifiers=frozenset(raw.get("modifiers", ())),
        blank_lines_top=int(raw.get("blank_lines_top", 1)),
        blank_lines_nested=int(raw.get("blank_lines_nested", 1)),
        never_empty=frozenset(raw.get("never_empty", ())),
        scope_separator=raw.get("scope_separator", ""),
        own_parser=raw.get("own_parser", ""),
        overloading=bool(raw.get("overloading", False)),
        rename_scope=raw.get("rename_scope", "global"),
        preprocessor=_preprocessor(raw.get("preprocessor")),
        encoding_cookie=_encoding_cookie(raw, path),
        interpreters=tuple(raw.get("interpreters", ())),
        body_lead=frozenset(raw.get("body_lead", ())),
        markers=re.compile("|".join(f"(?:{m})" for m in raw["markers"]), re.MULTILINE) if raw.get("markers") else None,
        name_sigil=raw.get("name_sigil", ""),
        private_prefix=raw.get("private_prefix", ""),
        bare_members=bool(raw.get("bare_members", False)),
        implicit_names=re.compile(raw["implicit_names"]) if raw.get("implicit_names") else None,
        syntax_joins=tuple(re.compile(str(p).encode(), re.MULTILINE) for p in raw.get("syntax_joins", ())),
        server=ServerSpec(
            name=server["name"],
            command=tuple(server["command"]),
            alternatives=tuple(tuple(alt) for alt in server.get("alternatives", ())),
            install=server.get("install", ""),
            adapter=server.get("adapter", "generic"),
            language_id=server.get("language_id", raw["name"]),
            language_id_by_extension=tuple(server.get("language_id_by_extension", {}).items()),
            version_args=tuple(server.get("version_args", ["--version"])),
            alternative_adapters=tuple(server.get("alternative_adapters", {}).items()),
            chosen_because=server.get("chosen_because", ""),
        ),
    )


def interpreter_of(text: str | bytes | None) -> str | None:
    """The program a `#!` line runs (`#!/usr/bin/env -S python3 -u`: "python3"); None without one."""
    if text is None:
        return None
    head = text[:HEAD_CHARS]
    line = (head.decode("latin-1") if isinstance(head, bytes) else head).split("\n", 1)[0]
    if not line.startswith("#!"):
        return None
    words = [os.path.basename(word) for word in line[2:].split()]
    if words[:1] == ["env"]:
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    return words[0] if words else None


HEAD_CHARS = 256


class LanguageRegistry:
    """Languages by file name or extension, and for a file without an extension by the
    interpreter its `#!` line names (`interpreters` in langs/*.toml; `python3.12` is
    `python3`'s, then `python`'s). An extension two languages claim (`.h`: C and C++) goes to
    the one whose grammar meets fewer errors in the file; ties, and calls without the text, go
    to the first by name."""

    def __init__(self, langs_dir: Path, queries_dir: Path) -> None:
        self.languages = {
            lang.name: lang
            for lang in (
                _load_language(path, queries_dir) for path in sorted(langs_dir.glob("*.toml"))
            )
        }
        self._by_extension: dict[str, list[Language]] = {}
        for lang in self.languages.values():
            for ext in lang.extensions:
                self._by_extension.setdefault(ext, []).append(lang)
        self._by_filename = {name: lang for lang in self.languages.values() for name in lang.filenames}
        self._by_interpreter = {name: lang for lang in self.languages.values() for name in lang.interpreters}

    def by_first_line(self, path: str | os.PathLike[str]) -> bool:
        """Whether `path`'s language is told by its first line (no extension, no known name)."""
        return not Path(path).suffix and Path(path).name not in self._by_filename

    def by_interpreter(self, program: str | None) -> Language | None:
        while program:
            if program in self._by_interpreter:
                return self._by_interpreter[program]
            shorter = program.rstrip("0123456789.-")
            program = shorter if shorter != program else None
        return None

    def candidates(self, path: str | os.PathLike[str], text: str | bytes | None = None) -> list[Language]:
        """The languages that may claim `path`; `text` (the file, or its first bytes) tells an
        extensionless file's language by its `#!` line."""
        name = Path(path).name
        if name in self._by_filename:
            return [self._by_filename[name]]
        if self.by_first_line(path):
            found = self.by_interpreter(interpreter_of(text))
            return [found] if found else []
        return self._by_extension.get(Path(path).suffix.lower(), [])

    def for_path(self, path: str | os.PathLike[str]) -> Language | None:
        """The first language that may claim `path` by its name; `gateway.syntax.language_for`
        also reads the text (a `#!` line, and a grammar where several claim it: `.h`)."""
        found = self.candidates(path)
        return found[0] if found else None

    def get(self, name: str) -> Language:
        return self.languages[name]


@functools.cache
def default_registry() -> LanguageRegistry:
    return LanguageRegistry(data_dir("langs"), data_dir("queries"))
