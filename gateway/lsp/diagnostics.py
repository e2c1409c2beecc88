"""The errors a language server finds in files, bound to the text it analysed: the two halves
of an edit's delta (gateway.verify asks before and after a write and compares).

How a server is asked is read from what it offers, never from its name, in this order:
- pull (`textDocument/diagnostic`), offered in its capabilities or by registration (pyright
  registers it; gopls offers it when asked to, and answers `kind: ""`);
- a request its adapter knows that answers for the text last sent (typescript-language-server's
  `typescript.tsserverRequest`), where the server lists the command;
- none, where the adapter says why its diagnostics cannot tell (`no_semantic_errors`: jedi's
  are syntax errors only, bash's are shellcheck's);
- else pushes (`textDocument/publishDiagnostics`): each file asked is sent as a new version (the
  edited file by its change, the others sent again, so that the server analyses them afresh
  against the edited one: jdtls with its builds off re-checks only a file it is sent), and only a
  push after that is taken: of that very version when the server names versions (clangd), the
  first after it when it names none (jdtls).

What is not known, by the deadline or at all, is said with the reason (`FileErrors.unknown`),
never given as clean: a server still loading or at announced work, a broken one, one that did
not answer.
"""

from __future__ import annotations

import asyncio
import re
import os
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from multilspy.lsp_protocol_handler.server import Error as LspError

from gateway.errors import GatewayError, ServerFailed
from gateway.lsp.reports import Push, Reports, until

if TYPE_CHECKING:
    from multilspy.lsp_protocol_handler.server import LanguageServerHandler

    from gateway.lsp.session import LspSession

_ERROR = 1
_PULL = "textDocument/diagnostic"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_LATE = object()  # a request not answered by the deadline


@dataclass(frozen=True)
class ServerDiagnostic:
    """One error the server reports (severity Error, or none: the spec reads that as an error)."""

    line: int  # 1-based
    column: int  # 1-based, characters
    end_line: int  # 1-based
    message: str  # one line
    source: str  # the diagnostic's `source`, else the server's name


@dataclass(frozen=True)
class FileErrors:
    path: Path
    errors: tuple[ServerDiagnostic, ...] = ()
    unknown: str | None = None  # set (errors then empty): why this file's errors are not known, as a phrase after "because"


def errors_of(session: LspSession, texts: Sequence[tuple[Path, str, str]], asked: Sequence[Path], deadline: float) -> dict[Path, FileErrors]:
    """Make the server's copies of `texts` ((path, text, language id)) current, then give the errors of
    each file in `asked` as the server computed them for exactly those texts (a file asked and not in
    `texts` is opened from disk). `deadline` is a time.monotonic() value: what is not known by then is
    `unknown` ("no answer within N ms"). Never stale, never clean while the server still indexes."""
    asked = list(dict.fromkeys(asked))
    # said to 10 ms: the time between the caller's deadline and this line is not the server's
    budget_ms = max(int(round((deadline - time.monotonic()) * 1000, -1)), 0)
    try:
        with session.lock:
            return _errors_of(session, texts, asked, deadline, budget_ms)
    except ServerFailed as failure:
        return _unknown(asked, f"the language server failed ({failure})")


def _errors_of(session: LspSession, texts: Sequence[tuple[Path, str, str]], asked: list[Path], deadline: float,
               budget_ms: int) -> dict[Path, FileErrors]:
    if session.broken:
        return _unknown(asked, f"the language server failed ({session.name}: {session.broken})")
    held, sent, results = _send(session, texts, asked)
    asking = [path for path in asked if path in held]
    reports = session.reports
    loaded = session.within(lambda _: until(lambda: reports.ready, _left(deadline), 0.02), _left(deadline) + 1,
                            "waiting for the server to load the workspace")
    if loaded:
        sent.update({path: mark for path, mark in session.reopen_early().items() if path in held})
    offered = _way(session, asking, deadline, budget_ms) if loaded else _busy(session)
    if isinstance(offered, str):
        return {**_unknown(asking, offered), **results}
    idle = session.within(lambda _: until(lambda: not reports.working, _left(deadline), 0.02), _left(deadline) + 1,
                          "waiting for the server to finish its work")
    if not idle:
        return {**_unknown(asking, _busy(session)), **results}
    found = offered(session, asking, deadline, sent)
    for path in asking:
        diagnostics = found.get(path)
        if diagnostics is None:
            results[path] = FileErrors(path, unknown=f"{session.name} gave no answer within the {budget_ms} ms left of the check's budget ([verify] budget_ms)")
        elif isinstance(diagnostics, str):
            results[path] = FileErrors(path, unknown=diagnostics)
        else:
            syntax_only = session.adapter.syntax_only(diagnostics)
            results[path] = (FileErrors(path, unknown=syntax_only) if syntax_only
                             else FileErrors(path, _errors(diagnostics, held[path], session.name, session.root)))
    return {path: results[path] for path in asked}


Found = dict[Path, "list[dict[str, Any]] | str | None"]  # per file: its diagnostics, why not known, or None: no answer in time
Way = Callable[["LspSession", list[Path], float, dict[Path, int]], Found]


def _way(session: LspSession, asking: list[Path], deadline: float, budget_ms: int) -> Way | str:
    """How this server's errors are asked for, or why they cannot be."""
    adapter = session.adapter
    if not session.capabilities.get("diagnosticProvider") and not session.settle_registrations(_left(deadline)):
        return f"{session.name} gave no answer within the {budget_ms} ms left of the check's budget ([verify] budget_ms)"
    if session.capabilities.get("diagnosticProvider") or _PULL in session.reports.registered.values():
        return _pulled
    listed = (session.capabilities.get("executeCommandProvider") or {}).get("commands") or []
    requests = adapter.diagnostic_requests(asking[0]) if asking else ()
    if requests and all(request["command"] in listed for request in requests):
        return _commanded
    if adapter.no_semantic_errors:
        return adapter.no_semantic_errors.format(server=session.name)
    return _pushed


def _send(session: LspSession, texts: Sequence[tuple[Path, str, str]], asked: list[Path]
          ) -> tuple[dict[Path, str], dict[Path, int], dict[Path, FileErrors]]:
    """Send `texts`, then the files asked that are not among them (read from disk): the text the
    server holds of each file asked; the files sent as a new version now, each with the mark
    (`Reports.mark`) taken before it was; and the files that could not be read, with why."""
    held: dict[Path, str] = {}
    sent: dict[Path, int] = {}
    results: dict[Path, FileErrors] = {}
    languages = {path.suffix: language for path, _, language in texts}

    def send(path: Path, text: str, language: str) -> None:
        mark, version = session.reports.mark(), session.version_of(path)
        session.sync(path, text, language)
        held[path] = text
        if session.version_of(path) != version:
            sent[path] = mark

    for path, text, language in texts:
        send(path, text, language)
    for path in asked:
        if path in held:
            continue
        try:
            text = _read(path)
        except (OSError, GatewayError) as error:
            results[path] = FileErrors(path, unknown=f"it could not be read ({error})")
            continue
        send(path, text, languages.get(path.suffix) or _language_id(path))
    return held, sent, results


def _read(path: Path) -> str:
    from gateway.reading import read_regular
    from gateway.textfile import decode, encoding_rule

    data = read_regular(path)
    if data is None:
        raise FileNotFoundError(f"{path} does not exist")
    return decode(data, str(path), encoding_rule(path, data=data))[0]


def _language_id(path: Path) -> str:
    from gateway.langs import default_registry

    language = default_registry().for_path(path)
    return language.server.language_id_for(path) if language is not None else ""


def _busy(session: LspSession) -> str:
    if not session.reports.ready:
        said = session.reports.progress
        return f"{session.name} is still loading the workspace" + (f" ({said})" if said else "")
    work = session.reports.work()
    return f"{session.name} is still working" + (f" ({work})" if work else "")


def _pulled(session: LspSession, asking: list[Path], deadline: float, sent: dict[Path, int]) -> Found:
    """Each file's diagnostics by pull: the server answers for the text it holds."""
    async def pull(handler: LanguageServerHandler, path: Path) -> Any:
        return await handler.send_request(_PULL, {"textDocument": {"uri": path.as_uri()}})

    def read(reply: Any) -> list[dict[str, Any]] | str:
        items = reply.get("items") if isinstance(reply, dict) else None
        if not isinstance(items, list) or reply.get("kind") not in ("full", ""):  # gopls answers kind ""
            return f"{session.name} answered the pull without diagnostics ({str(reply)[:80]})"
        return [item for item in items if isinstance(item, dict)]

    return _asked(session, asking, deadline, lambda handler, path: pull(handler, path), read)


def _commanded(session: LspSession, asking: list[Path], deadline: float, sent: dict[Path, int]) -> Found:
    """Each file's diagnostics from the requests its adapter knows (tsserver's own)."""
    adapter = session.adapter

    async def ask(handler: LanguageServerHandler, path: Path) -> list[Any]:
        requests = adapter.diagnostic_requests(path)
        return list(await asyncio.gather(*(handler.send_request("workspace/executeCommand", request) for request in requests)))

    def read(replies: list[Any]) -> list[dict[str, Any]] | str:
        try:
            return adapter.diagnostics_of_commands(replies)
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            return f"{session.name} answered without diagnostics ({error})"

    return _asked(session, asking, deadline, ask, read)


def _asked(session: LspSession, asking: list[Path], deadline: float, ask: Callable[[LanguageServerHandler, Path], Awaitable[Any]],
           read: Callable[[Any], list[dict[str, Any]] | str]) -> Found:
    """`ask` for every file at once, each answer `read`; a file not answered by the deadline: None."""
    async def one(handler: LanguageServerHandler, path: Path) -> Any:
        try:
            return await asyncio.wait_for(ask(handler, path), _left(deadline))
        except asyncio.TimeoutError:
            return _LATE
        except LspError as error:
            return f"{session.name} refused to give them ({error})"

    async def every(handler: LanguageServerHandler) -> list[Any]:
        return list(await asyncio.gather(*(one(handler, path) for path in asking)))

    replies = session.within(every, _left(deadline) + 1, "diagnostics")
    found: Found = {}
    for path, reply in zip(asking, replies or [_LATE] * len(asking), strict=True):
        found[path] = None if reply is _LATE else reply if isinstance(reply, str) else read(reply)
    return found


def _pushed(session: LspSession, asking: list[Path], deadline: float, sent: dict[Path, int]) -> Found:
    """Each file's diagnostics from the push that answers a version of it sent now: a file not
    sent as a new version by this call is sent again (`LspSession.resend`), closed and opened
    where the server names versions (clangd skips a didChange to the same text, and clears a
    closed file by a push that names none), by didChange where it does not (jdtls)."""
    reports = session.reports
    since = dict(sent)
    for path in asking:
        if path not in since:
            since[path] = reports.mark()
            session.resend(path, reopen=reports.names_versions(path.as_uri()))
    wanted = {path: (path.as_uri(), since[path], session.version_of(path)) for path in asking}

    def answer(path: Path) -> Push | None:
        uri, mark, version = wanted[path]
        push = reports.pushes.get(uri)
        if push is None or push.mark < mark:
            return None
        return push if push.version == version or push.version is None and not reports.names_versions(uri) else None

    quiet = session.adapter.unanswered_resent_after or float("inf")
    while _left(deadline) > 0:
        latest = _latest_push(reports)
        session.within(lambda _: until(lambda: all(answer(path) for path in asking) or _latest_push(reports) != latest,
                                       min(quiet, _left(deadline)), 0.01), _left(deadline) + 1, "waiting for the server's diagnostics")
        if all(answer(path) for path in asking):
            break
        if _latest_push(reports) == latest and _left(deadline) > 0:  # quiet: the files still unanswered are sent again
            quiet *= 2  # a file whose analysis takes longer is not sent again for ever
            for path in [path for path in asking if answer(path) is None]:
                mark = reports.mark()
                session.resend(path, reopen=reports.names_versions(path.as_uri()))
                wanted[path] = (path.as_uri(), mark, session.version_of(path))
    found: Found = {}
    for path in asking:
        push = answer(path)
        found[path] = list(push.diagnostics) if push is not None else None
    return found


def _latest_push(reports: Reports) -> int:
    return max((push.mark for push in list(reports.pushes.values())), default=0)


def _errors(diagnostics: list[dict[str, Any]], text: str, server: str, root: Path) -> tuple[ServerDiagnostic, ...]:
    """The errors among `diagnostics` of `text`, placed by line and character; a path inside the
    workspace `root` in a message (clangd's notes: "/abs/a.h:1:19: note: ...") said relative to it."""
    lines: list[str] | None = None
    errors = []
    for diagnostic in diagnostics:
        if diagnostic.get("severity", _ERROR) not in (_ERROR, None):
            continue
        try:
            start, end = diagnostic["range"]["start"], diagnostic["range"]["end"]
            line, character, end_line = int(start["line"]), int(start["character"]), int(end["line"])
        except (KeyError, TypeError, ValueError):
            line, character, end_line = 0, 0, 0
        lines = lines if lines is not None else _LINE_BREAK.split(text)
        column = _characters(lines[line], character) if 0 <= line < len(lines) else character
        message = " ".join(str(diagnostic.get("message", "")).replace(f"{root}{os.sep}", "").split())
        errors.append(ServerDiagnostic(line + 1, column + 1, end_line + 1, message, str(diagnostic.get("source") or server)))
    return tuple(sorted(errors, key=lambda error: (error.line, error.column, error.message)))


def _characters(line: str, utf16_units: int) -> int:
    """The number of characters in the first `utf16_units` UTF-16 code units of `line`."""
    return len(line.encode("utf-16-le")[: 2 * max(utf16_units, 0)].decode("utf-16-le", errors="ignore"))


def _left(deadline: float) -> float:
    return max(deadline - time.monotonic(), 0.0)


def _unknown(paths: list[Path], why: str) -> dict[Path, FileErrors]:
    return {path: FileErrors(path, unknown=why) for path in paths}
