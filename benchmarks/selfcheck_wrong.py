"""Deliberately wrong operations for `benchmarks/selfcheck.py`, each swapped in for one check.

Each replaces one seam of the engine (a function of `gateway.symbols` or `gateway.gate`) in every
loaded module that holds it, for the duration of a `with` block, and puts the original back
after. They are the mistakes a benchmark's checks must catch: an operation that looks done and
is not.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gateway.gate import checker
from gateway.gate.verdict import Classification
from gateway.symbols import operations, rename, routing
from gateway.symbols.model import Symbol
from gateway.symbols.operations import TextChange
from gateway.symbols.text import LineIndex

_DECORATOR_LINE = re.compile(r"^\s*(@|#\[|\[\[)")


@dataclass(frozen=True)
class WrongImplementation:
    key: str
    title: str
    applies_to: tuple[str, ...]  # the benchmarks whose checks run against it
    swap: Callable[[], contextlib.AbstractContextManager[None]]


@contextlib.contextmanager
def swapped(owner: Any, name: str, replacement: Any) -> Iterator[None]:
    """`owner.name` replaced by `replacement`, in `owner` and in every loaded module that imported
    the same object by name; all put back on leaving."""
    original = getattr(owner, name)
    holders = [owner] + [m for m in list(sys.modules.values()) if m is not owner and vars(m).get(name) is original]
    for holder in holders:
        setattr(holder, name, replacement)
    try:
        yield
    finally:
        for holder in holders:
            setattr(holder, name, original)


def _rename_result(service: Any, name_path: str, path: str, new_name: str, rewrite: Callable[[str, Symbol], str]) -> Any:
    """A rename that writes `rewrite(text, symbol)` to the one file and reports it complete."""
    from gateway.results import OperationResult

    with service.workspace.locked(path):
        view = service.symbols(path)
        symbol = view.resolve(name_path)
        service.commit(view.backend, [(view.source, rewrite(view.source.text, symbol))])
    return OperationResult(operation="rename_symbol", name_path=name_path, path=view.source.display, backend=view.backend.name,
                           start_line=symbol.start_line, end_line=symbol.end_line, diff="", message=f"renamed {name_path} to {new_name}",
                           details={"files": [view.source.display], "new_name": new_name, "complete": True, "mentioned_in": []})


def _declaration_only() -> contextlib.AbstractContextManager[None]:
    def rename_symbol(service: Any, name_path: str, path: str, new_name: str) -> Any:
        def rewrite(text: str, symbol: Symbol) -> str:
            return text[: symbol.name_start] + new_name + text[symbol.name_start + len(symbol.name) :]

        return _rename_result(service, name_path, path, new_name, rewrite)

    return swapped(rename, "rename_symbol", rename_symbol)


def _every_spelling() -> contextlib.AbstractContextManager[None]:
    def rename_symbol(service: Any, name_path: str, path: str, new_name: str) -> Any:
        def rewrite(text: str, symbol: Symbol) -> str:
            return re.sub(r"(?<![\w$])" + re.escape(symbol.name) + r"(?![\w$])", new_name, text)

        return _rename_result(service, name_path, path, new_name, rewrite)

    return swapped(rename, "rename_symbol", rename_symbol)


def _drops_decorators() -> contextlib.AbstractContextManager[None]:
    real = operations.replace_text

    def replace_text(lang: Any, text: str, symbol: Symbol, body: str, start: int | None = None) -> TextChange:
        change = real(lang, text, symbol, body, start)
        low, high = change.region
        kept = "\n".join(line for line in change.text[low:high].split("\n") if not _DECORATOR_LINE.match(line))
        return TextChange(change.text[:low] + kept + change.text[high:], change.start_line, change.end_line, change.replaced,
                          (low, low + len(kept)))

    return swapped(operations, "replace_text", replace_text)


def _inside_previous_body() -> contextlib.AbstractContextManager[None]:
    real = operations.insert_text

    def insert_text(lang: Any, text: str, symbols: list[Symbol], anchor: Symbol | None, position: str, code: str) -> TextChange:
        host = anchor
        if anchor is not None and position == "before":
            beside = operations.siblings(symbols, anchor)
            at = beside.index(anchor)
            host = beside[at - 1] if at > 0 else None
        if host is None or host.start_line == host.end_line:
            return real(lang, text, symbols, anchor, position, code)
        index = LineIndex.of(text)
        last = index.line_of(host.end)
        closer = text[index.line_start(last) : index.line_end(last)].strip()
        indent = host.indent + "    "
        block = "\n".join(indent + line if line.strip() else line for line in code.strip("\n").split("\n"))
        if closer and closer[0] in "})]" or closer in ("end", "};"):  # before the closing line: the body's last statement
            at = index.line_start(last)
            new = text[:at] + block + "\n" + text[at:]
            return TextChange(new, last + 1, last + 1 + block.count("\n"), (at, at), (at, at + len(block) + 1))
        at = index.line_end(last)  # an indented body (Python): one level deeper, right after its last line
        new = text[:at] + "\n" + block + text[at:]
        return TextChange(new, last + 2, last + 2 + block.count("\n"), (at, at), (at, at + len(block) + 1))

    return swapped(operations, "insert_text", insert_text)


def _leaves_decorator() -> contextlib.AbstractContextManager[None]:
    real = operations.remove_text

    def remove_text(text: str, symbols: list[Symbol], symbol: Symbol) -> TextChange:
        kept = dataclasses.replace(symbol, doc_start=symbol.header_start, start=symbol.header_start)
        if kept.doc_start == symbol.doc_start:
            return real(text, symbols, symbol)
        return real(text, [kept if s is symbol else s for s in symbols], kept)

    return swapped(operations, "remove_text", remove_text)


def _claims_a_server() -> contextlib.AbstractContextManager[None]:
    real = routing.plan_route

    def plan_route(view: Any, effect: Any, references: Any = None) -> Any:
        route = real(view, effect, references)
        if view.backend.session is not None:
            return route
        return dataclasses.replace(route, backend=f"lsp:{view.lang.server.name or 'server'}", note="")

    return swapped(routing, "plan_route", plan_route)


def _gate(decision: str) -> Callable[[], contextlib.AbstractContextManager[None]]:
    def classify_effect(lang: Any, effect: Any, action: str, refuse_syntax: bool, macros: Any) -> Classification:
        name = lang.name if lang is not None else None
        if decision == "allow":
            return Classification("allow", "body_only", effect.path, name, "allowed (a gate that allows everything)")
        return Classification("block", "definition", effect.path, name, "blocked (a gate that blocks everything)")

    return lambda: swapped(checker, "classify_effect", classify_effect)


WRONG: tuple[WrongImplementation, ...] = (
    WrongImplementation("a", "rename of the declaration only", ("matrix",), _declaration_only),
    WrongImplementation("b", "rename of every same-spelled identifier (text replace)", ("matrix",), _every_spelling),
    WrongImplementation("c", "replace that drops decorators/attributes", ("matrix",), _drops_decorators),
    WrongImplementation("d", "insert inside the previous definition's body", ("matrix", "round_trips"), _inside_previous_body),
    WrongImplementation("e", "remove that leaves the decorator or the leading comment", ("matrix", "round_trips"), _leaves_decorator),
    WrongImplementation("f", "routing with no server that still claims a server (lsp:... on tree-sitter's bytes)", ("replay", "polyglot"),
                        _claims_a_server),
    WrongImplementation("g", "a gate that allows everything", ("replay", "polyglot", "classify_latency", "scale_cxx"), _gate("allow")),
    WrongImplementation("h", "a gate that blocks everything", ("replay", "polyglot", "classify_latency", "scale_cxx"), _gate("block")),
)
