"""The places that refer, or may refer, to a symbol: the server's references where one runs,
and the syntax trees of the files that spell its name (gateway.symbols.mentions)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import unquote, urlparse

from gateway.errors import GatewayError, ServerFailed, StillReferenced
from gateway.langs import Language
from gateway.reading import read_regular
from gateway.results import SuggestedOperation
from gateway.symbols.mentions import Mention, MentionFinder
from gateway.symbols.model import Target
from gateway.symbols.model import Symbol
from gateway.symbols.python_imports import ModuleIndex
from gateway.symbols.service import FileSymbols, SymbolService
from gateway.symbols.text import LineIndex

if TYPE_CHECKING:
    from gateway.lsp.session import LspSession

SCOPES_OF_LOCALS = {"function", "method", "constructor"}
MAX_OPENED = 200


def uri_path(uri: str) -> Path:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise ServerFailed(f"rename touches a non-file resource: {uri}")
    return Path(unquote(parsed.path))


def _target(view: FileSymbols, symbol: Symbol) -> Target:
    text = view.source.text

    def to_byte(offset: int) -> int:
        return len(text[:offset].encode("utf-8", "surrogatepass"))

    parents = sorted((s for s in view.symbols if s.contains(symbol)), key=lambda s: s.start)
    if not parents and symbol.parent_path:  # a member declared outside its type (a Go method)
        parents = [s for s in view.symbols if s.name_path == symbol.parent_path]
    parent = parents[-1] if parents else None
    if parent is None or parent.kind in SCOPES_OF_LOCALS:
        return Target(symbol, view.source.path, view.lang, to_byte(symbol.name_start))
    return Target(symbol, view.source.path, view.lang, to_byte(symbol.name_start), parent.name, to_byte(parent.start))


def candidates(service: SymbolService, view: FileSymbols, symbol: Symbol, staged: Mapping[Path, str] | None = None) -> dict[Path, tuple[Language, str]]:
    """The files that may spell the name, each read once: its own (as in `view`), and (unless
    it is local to a function) the workspace's files served by the same kind of server;
    `staged`: texts not written yet (a contract's earlier steps), read instead of the files'."""
    texts = {view.source.path: (view.lang, view.source.text)}
    staged = staged or {}
    others = [] if _local(view, symbol) else [*spelling(service, [symbol.name], view.source.path), *staged]
    for path in others:
        lang = service.registry.for_path(path)
        if path in texts or lang is None or lang.server.name != view.lang.server.name:
            continue
        try:
            texts[path] = (lang, staged[path] if path in staged else service.workspace.read(path).text)
        except GatewayError:
            continue  # a file the gateway cannot read is not one it could rename in either
    return texts


def mentions_in(service: SymbolService, view: FileSymbols, symbol: Symbol, texts: dict[Path, tuple[Language, str]],
                renamed_to: str | None = None) -> list[Mention]:
    """The places in `texts` that spell the symbol's name; `renamed_to`: the texts are a rename's, under way."""
    python = {path: text for path, (lang, text) in texts.items() if lang.own_parser == "python"}
    modules = ModuleIndex(service.workspace.root, view.lang, python, renamed_to) if view.lang.own_parser == "python" else None
    finder = MentionFinder(_target(view, symbol), modules)
    return [m for path, (lang, text) in texts.items() for m in finder.in_file(path, lang, text)]


def _local(view: FileSymbols, symbol: Symbol) -> bool:
    """Whether the symbol is local to a function (no other file can refer to it)."""
    return any(s.kind in SCOPES_OF_LOCALS and s.contains(symbol) for s in view.symbols)


def spelling(service: SymbolService, names: Sequence[str], besides: Path) -> list[Path]:
    """The workspace's source files other than `besides` that spell one of `names` as a word."""
    return [path for path, _ in spelled(service, names, besides)]


def spelled(service: SymbolService, names: Sequence[str], besides: Path) -> list[tuple[Path, set[str]]]:
    """The workspace's source files other than `besides` that spell some of `names` as words, in
    order, each with the names it spells (each file read once)."""
    words = [(name, raw, re.compile(rb"(?<![\w$])" + re.escape(raw) + rb"(?![\w$])"))
             for name, raw in {n: n.encode() for n in names if n}.items()]
    limit = service.workspace.max_bytes()
    found = []
    for path in service.source_files():
        text = _bytes(path, limit) if path != besides and words else b""
        # the plain search first: most files do not hold the name at all
        spelt = {name for name, raw, word in words if raw in text and word.search(text)}
        if spelt:
            found.append((path, spelt))
    return found


def _bytes(path: Path, limit: int) -> bytes:
    """A source file's bytes; nothing for one that is not a regular file within the size limit."""
    try:
        return read_regular(path, str(path), limit) or b""
    except (OSError, GatewayError):
        return b""


def _open_mentions(view: FileSymbols, texts: dict[Path, tuple[Language, str]]) -> None:
    """Open in the server every other file it serves that mentions the name (at most MAX_OPENED)."""
    others = [(path, lang, text) for path, (lang, text) in texts.items() if path != view.source.path]
    for path, lang, text in others[:MAX_OPENED]:
        if lang.server == view.lang.server:
            view.backend.sync(path, text, lang.server.language_id_for(path))


def displayed(service: SymbolService, view: FileSymbols) -> Callable[[Path], str]:
    """How a place's file is named: the view's own file as the view names it (a host's hook by
    the path it gave, which the places a write takes away are matched against), others as the
    workspace does."""
    return lambda path: view.source.display if path == view.source.path else service.workspace.display(path)


# Name matches a server that answers references rules on: it knows an object's type and what an
# import or a use in another file binds. Strings naming a symbol and a declaration of its name
# (a C++ prototype) it does not answer for.
SERVER_RULES_ON = frozenset({"attribute", "member of an object of unknown type", "import", "use"})


@dataclass(frozen=True)
class Referrers:
    """The places (file:line) outside a symbol's text that refer to it: `sure`, the server's
    references and the places the syntax trees tie to it; `unsure`, where its name is only
    spelt (`whys`: as what), less those a server that answered rules on (`answered`)."""

    sure: tuple[str, ...] = ()
    unsure: tuple[str, ...] = ()
    whys: tuple[str, ...] = ()
    answered: bool = False

    @property
    def places(self) -> list[str]:
        return list(dict.fromkeys(self.sure + self.unsure))

    def without(self, gone: Callable[[str], bool]) -> Referrers:
        """These referrers less the places `gone` says the write takes away."""
        return replace(self, sure=tuple(p for p in self.sure if not gone(p)), unsure=tuple(p for p in self.unsure if not gone(p)))


def referrers(service: SymbolService, view: FileSymbols, symbol: Symbol, staged: Mapping[Path, str] | None = None,
              ask_server: bool = True) -> Referrers:
    """Where the symbol is, or may be, referred to outside its own text: the server's references
    where a server runs and answers, and the places the syntax trees find its name at (a name
    match the server rules on left out where it answered, unless the language calls the name
    without spelling it); `staged`: other files' texts not written yet, as `candidates` takes them."""
    sure: list[str] = []
    unsure: dict[str, str] = {}
    own = (view.source.path, symbol.doc_start, symbol.end)
    texts = candidates(service, view, symbol, staged)
    session = view.backend.session if ask_server else None
    answered = session is not None
    if session is not None:
        sure += _server_references(service, view, symbol, own, texts)
    rules = session is not None and session.adapter.references_rule_on_name_matches
    implicit = view.lang.implicit_names is not None and view.lang.implicit_names.match(symbol.name) is not None
    for mention in mentions_in(service, view, symbol, texts):
        if mention.path == own[0] and own[1] <= mention.start < own[2]:
            continue
        if mention.tied:
            sure.append(mention.place(displayed(service, view)))
        elif not (rules and not implicit and mention.why in SERVER_RULES_ON):
            unsure.setdefault(mention.place(displayed(service, view)), mention.why)
    sure = list(dict.fromkeys(sure))
    return Referrers(tuple(sure), tuple(p for p in unsure if p not in sure), tuple(dict.fromkeys(unsure.values())), answered)


def references_outside(service: SymbolService, view: FileSymbols, symbol: Symbol) -> list[str]:
    """Places (file:line) outside the symbol's own text that the syntax trees tie to it or cannot
    rule out, the server not asked: for where it named none (it may not have indexed them yet)."""
    return referrers(service, view, symbol, ask_server=False).places


def server_references(service: SymbolService, view: FileSymbols, symbol: Symbol, within: float | None = None) -> list[str]:
    """The places (file:line) outside the symbol's own text the server says refer to it (a view
    whose backend has a server): the server's alone, without the syntax trees' mentions;
    `within`: seconds the server's analysis of the files it is given is waited for, at most."""
    own = (view.source.path, symbol.doc_start, symbol.end)
    return list(dict.fromkeys(_server_references(service, view, symbol, own, candidates(service, view, symbol), within)))


def at_symbol(view: FileSymbols, symbol: Symbol, texts: dict[Path, tuple[Language, str]],
              within: float | None = None) -> tuple[LspSession, dict[str, Any]]:
    """The session and the {textDocument, position} of the symbol's name, for a request about it.

    A server asked while it still loads the project misses other files: it is given the files
    that spell the name (`texts`, from `candidates`) first, and waited for until it has taken them
    in and has analysed the files last written (clangd's rename back, asked at once, left the
    namesake its rename had reached in another file)."""
    session = view.backend.session
    assert session is not None, "asked a backend without a server"
    _open_mentions(view, texts)
    session.wait_until_idle(session.timeout / 2 if within is None else min(within, session.timeout / 2))
    session.wait_for_open_documents(within)  # a file just written, not yet analysed, is missing from its index
    line, character = LineIndex.of(view.source.text).to_utf16(symbol.name_start)
    return session, {"textDocument": {"uri": view.source.path.as_uri()}, "position": {"line": line, "character": character}}


def _server_references(
    service: SymbolService, view: FileSymbols, symbol: Symbol, own: tuple[Path, int, int], texts: dict[Path, tuple[Language, str]],
    within: float | None = None,
) -> list[str]:
    session, where = at_symbol(view, symbol, texts, within)
    reply = session.request("textDocument/references", lambda h: h.send.references(cast(Any, {**where, "context": {"includeDeclaration": False}})))
    places = []
    index = LineIndex.of(view.source.text)
    for location in reply if isinstance(reply, list) else []:
        try:
            path = uri_path(location["uri"])
            start = location["range"]["start"]
        except (KeyError, TypeError):
            raise ServerFailed(f"{session.name}: garbage references reply: {str(location)[:120]}") from None
        if path == own[0] and own[1] <= index.from_utf16(start["line"], start["character"]) < own[2]:
            continue
        if path.is_relative_to(service.workspace.root):
            places.append(f"{displayed(service, view)(path)}:{start['line'] + 1}")
    return places


def still_referenced(where: str, name_path: str, places: list[str] | Referrers, anyway: str = "--force / force=true",
                     suggested: tuple[SuggestedOperation, ...] = ()) -> StillReferenced:
    """The refusal of a removal from file `where` while `places` refer, or may refer, to the
    symbol; `anyway`: how to remove it all the same. Places where the name is only spelt are
    said to be that, not references."""
    found = places if isinstance(places, Referrers) else Referrers(tuple(places))
    said = []
    if found.sure:
        said.append(f"is still referenced at {listed(found.sure)}")
    if found.unsure:
        server = "" if found.answered else ", and no language server answered for it"
        said.append(f"{'and ' if found.sure else ''}may still be referenced at {listed(found.unsure)}, where its name is spelt "
                    f"({', '.join(found.whys)}) but the syntax trees cannot tell whether it is this definition{server}")
    check = "change those places first" if found.sure else "check those places first"
    return StillReferenced(
        f"{where}: {name_path} {'; '.join(said)}; nothing removed ({check}, or remove it anyway with {anyway})",
        suggested=suggested,
    )


def listed(places: Sequence[str]) -> str:
    """Places as a refusal lists them: the first eight, and how many more."""
    return ", ".join(places[:8]) + (f" and {len(places) - 8} more" if len(places) > 8 else "")


def refuse_referenced(service: SymbolService, view: FileSymbols, symbol: Symbol) -> None:
    """StillReferenced, listing the places, when anything outside the symbol refers, or may refer, to it."""
    found = referrers(service, view, symbol)
    if found.places:
        raise still_referenced(view.source.display, symbol.name_path, found)
