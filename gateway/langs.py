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

    def language_id_for(self, path: str | os.PathLike[str]) -> str:
        return dict(self.language_id_by_extension).get(Path(path).suffix.lower(), self.language_id)


@dataclass(frozen=True)
class Preprocessor:
    """A C-family preprocessor, as data: the names whose `#ifdef` the language decides, and
    the lines that hold only a macro call (no `;`), which tree-sitter glues to what follows."""

    defined: frozenset[str]
    undefined: frozenset[str]
    macro_line: re.Pattern[bytes]


@dataclass(frozen=True)
class Language:
    name: str
    extensions: tuple[str, ...]
    filenames: tuple[str, ...]
    grammar: str
    query_path: Path
    symbol_backend: bool
    attached_before: frozenset[str]
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
    body_lead: frozenset[str] = frozenset()


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
    )


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
        body_lead=frozenset(raw.get("body_lead", ())),
        server=ServerSpec(
            name=server["name"],
            command=tuple(server["command"]),
            alternatives=tuple(tuple(alt) for alt in server.get("alternatives", ())),
            install=server.get("install", ""),
            adapter=server.get("adapter", "generic"),
            language_id=server.get("language_id", raw["name"]),
            language_id_by_extension=tuple(server.get("language_id_by_extension", {}).items()),
            version_args=tuple(server.get("version_args", ["--version"])),
        ),
    )


class LanguageRegistry:
    """Languages by file name or extension. An extension two languages claim (`.h`: C and
    C++) goes to the one whose grammar meets fewer errors in the file; ties, and calls
    without the text, go to the first by name."""

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

    def candidates(self, path: str | os.PathLike[str]) -> list[Language]:
        name = Path(path).name
        if name in self._by_filename:
            return [self._by_filename[name]]
        return self._by_extension.get(Path(path).suffix.lower(), [])

    def for_path(self, path: str | os.PathLike[str], text: str | None = None) -> Language | None:
        found = self.candidates(path)
        if len(found) > 1 and text is not None:
            from gateway.syntax import error_count

            source = text.encode("utf-8", "surrogatepass")
            return min(found, key=lambda lang: error_count(lang, source))
        return found[0] if found else None

    def get(self, name: str) -> Language:
        return self.languages[name]


@functools.cache
def default_registry() -> LanguageRegistry:
    return LanguageRegistry(data_dir("langs"), data_dir("queries"))
