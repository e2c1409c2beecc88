"""What a write does to the program, from the workspace's language server: the errors present
after the write and not before it (`Verification`), in the written files and in the files that
refer to what the write changed.

One rule for every surface (the engine calls it before it writes, so a refusal writes nothing):
- a write that touches no definition or top-level binding is "skipped" unless `[verify] body`;
- no server for the language: "unknown, because no language server for X runs here";
- the files asked: the written ones, then those that refer to the definitions and module-level
  bindings the write removed, renamed or whose header it changed (the server's references, else
  the files that spell the name), at most 20; the others are named in `unchecked`;
- the server is asked for the errors of those files with the written files as they were, then
  as the write leaves them (`gateway.lsp.diagnostics.errors_of`, bound to the texts sent);
- the status is "checked" when the server answered for every written file, before and after;
  otherwise "unknown" with its reason. A file that refers to what changed and was not answered
  for is never counted as checked: it is in `unchecked`, and `why` says why.
The server is left holding what the write leaves (`put_back` gives it back the texts before, for
a dry run or a refusal)."""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.config import verify_config
from gateway.errordelta import introduced
from gateway.errors import GatewayError, NewErrors
from gateway.gate.touched import touched_by
from gateway.langs import Language
from gateway.results import NewError, Verification
from gateway.workspace import SourceFile

if TYPE_CHECKING:
    from gateway.gate.verdict import TouchedDefinition
    from gateway.lsp.diagnostics import FileErrors
    from gateway.lsp.manager import SessionManager
    from gateway.lsp.session import LspSession
    from gateway.symbols.service import SymbolService
    from gateway.workspace import Workspace

MAX_DEPENDENTS = 20
CALLABLE_KINDS = {"function", "method"}  # a header change of these changes how callers call it
_REFERENCES_SHARE = 0.4  # of the budget, for the server's references; the rest for the errors
_KEPT_ANSWERS = 8


@dataclass(frozen=True)
class Written:
    """One file of a write: as it was (`source`), and the text the write leaves; `touched`: the
    definitions it touches where the gate has listed them (a routed write), else computed."""

    source: SourceFile
    after: str
    lang: Language
    touched: tuple[TouchedDefinition, ...] | None = None


@dataclass
class _Dependents:
    """The files that refer to what a write changed, and the places of a changed header's callers."""

    files: list[Path] = field(default_factory=list)
    callers: list[str] = field(default_factory=list)

    def add(self, paths: Iterable[Path]) -> None:
        self.files = list(dict.fromkeys([*self.files, *paths]))


class Verifier:
    """The delta of writes on one engine's workspace, on its warm servers. The errors of one set
    of texts are asked once: the text a write leaves is the next write's text before it."""

    def __init__(self, workspace: Workspace, sessions: Callable[[], SessionManager | None], service: Callable[[], SymbolService]) -> None:
        self.workspace = workspace
        self.sessions = sessions  # None: language servers are off for the engine
        self.service = service
        self._answers: OrderedDict[tuple[object, ...], dict[Path, FileErrors]] = OrderedDict()
        self._lock = threading.Lock()

    def verify(self, written: Sequence[Written]) -> Verification:
        """The verification of a write of `written` (one file or several: a patch, a contract,
        a rename), asked before it is written; the server then holds the texts after it."""
        config = verify_config(self.workspace.root)
        written = [w for w in written if w.after != w.source.text]
        touched = {w.source.path: w.touched if w.touched is not None else touched_by(w.lang, w.source.display, w.source.text, w.after)
                   for w in written}
        if not written:
            return Verification("skipped", why="the write changes nothing")
        if not config.body and not any(touched.values()):
            return Verification("skipped", why="the write changes only bodies of definitions ([verify] body = false)")
        groups: dict[str, list[Written]] = {}
        for w in written:
            groups.setdefault(w.lang.server.name, []).append(w)
        return merged([self._verify_group_or_why(group, touched, config.budget_ms) for group in groups.values()])

    def _verify_group_or_why(self, group: list[Written], touched: dict[Path, tuple[TouchedDefinition, ...]], budget_ms: int) -> Verification:
        """The group's verification; a failure on the way is an unknown with its reason, never a
        write given up for it."""
        try:
            return self._verify_group(group, touched, budget_ms)
        except GatewayError as error:
            return Verification("unknown", why=f"the check failed ({error})")

    def refuse_or_pass(self, verification: Verification | None, written: Sequence[Written]) -> None:
        """`[verify] on_new_errors = "refuse"`: NewErrors (the server given back the texts
        before) when the write adds errors."""
        if verification is None or not verification.new_errors:
            return
        if verify_config(self.workspace.root).on_new_errors == "refuse":
            self.put_back(written, verification)
            shown = "; ".join(f"{e.place}: {e.message}" for e in verification.new_errors[:10])
            more = f" and {len(verification.new_errors) - 10} more" if len(verification.new_errors) > 10 else ""
            raise NewErrors(f"Refused: the write would add {_errors(len(verification.new_errors))} the language server reports: "
                            f"{shown}{more}. Nothing was written ([verify] on_new_errors = \"refuse\"); change the write so it adds "
                            "none, or fix those places in the same write.", new_errors=verification.new_errors)

    def put_back(self, written: Sequence[Written], verification: Verification) -> None:
        """Give the server that answered `verification` back the texts before the write (a dry
        run, a refusal); none was asked for a skipped or unknown one without a server."""
        if verification.server is None:
            return
        for w in written:
            session = self._session(w.lang)
            if session is not None and not isinstance(session, str):
                session.sync(w.source.path, w.source.text, w.lang.server.language_id_for(w.source.path))

    def _session(self, lang: Language) -> LspSession | str | None:
        """The language's session; a reason (str) when none runs, or when its server would not
        tell (one that reports no semantic errors is not started for that)."""
        from gateway.lsp.discovery import planned

        sessions = self.sessions()
        if sessions is None or not sessions.use_servers:
            return f"no language server for {lang.name} runs here (language servers are off)"
        try:
            plan = planned(lang.server, self.workspace.root)
            if plan is not None and plan[1].no_semantic_errors:
                return plan[1].no_semantic_errors.format(server=Path(plan[0][0]).name)
            session = sessions.session_for(lang)
        except GatewayError as error:
            return f"{lang.server.name} failed: {error}"
        return session if session is not None else f"no language server for {lang.name} runs here"

    def _verify_group(self, group: list[Written], touched: dict[Path, tuple[TouchedDefinition, ...]], budget_ms: int) -> Verification:
        lang = group[0].lang
        session = self._session(lang)
        if session is None or isinstance(session, str):
            return Verification("unknown", why=session or f"no language server for {lang.name} runs here")
        with session.held(w.source.path for w in group):  # a host may be writing them meanwhile
            return self._checked(session, group, touched, budget_ms)

    def _checked(self, session: LspSession, group: list[Written], touched: dict[Path, tuple[TouchedDefinition, ...]], budget_ms: int) -> Verification:
        lang = group[0].lang
        start = time.monotonic()  # the budget is the checks', not the server's start
        deadline = start + budget_ms / 1000
        own = [w.source.path for w in group]
        # The files that spell a changed name: a cheap scan, and every place the server's references
        # could miss (strings, `__all__`, files it has not analysed). The server's references up
        # front only where another file could refer to what changed (it spells a changed name or
        # the written file's), and only from a server ready to answer them (one still loading the
        # project would spend the budget on it).
        changed = set(_changed_names(touched, own))
        spelling = [(p, spelt) for p, spelt in self._spelled(group, [*changed, *_module_names(group)]) if p not in own]
        found = _Dependents([p for p, spelt in spelling if spelt & changed])
        referred = bool(spelling)
        if referred:
            self._referenced(group, touched, found, start + (deadline - start) * _REFERENCES_SHARE if session.ready else start)
        others = [p for p in found.files if p not in own]
        asked = own + others[:MAX_DEPENDENTS]
        language_id = lang.server.language_id_for
        before_texts = [(w.source.path, w.source.text, language_id(w.source.path)) for w in group]
        after_texts = [(w.source.path, w.after, language_id(w.source.path)) for w in group]
        middle = time.monotonic() + (deadline - time.monotonic()) / 2
        before = self._errors(session, before_texts, asked, middle)
        after = self._errors(session, after_texts, asked, deadline)
        display = self.workspace.display
        texts = {w.source.path: (w.source.text, w.after) for w in group}
        renames = {t.name: t.new_name_path.rsplit("/", 1)[-1] for ts in touched.values() for t in ts
                   if t.change == "renamed" and t.new_name_path}
        new: list[NewError] = []
        unknown: dict[Path, str] = {}
        for path in asked:
            b, a = before.get(path), after.get(path)
            reason = (b.unknown if b is not None else "no answer") or (a.unknown if a is not None else "no answer")
            if reason is not None or b is None or a is None:
                unknown[path] = reason or f"no answer within {budget_ms} ms"
                continue
            old, now = texts.get(path, ("", ""))  # a file the write leaves alone keeps its lines
            new += introduced(display(path), old, now, b.errors, a.errors, renames)
        if not referred and new:  # the callers among the places the delta names, for the impact note
            self._referenced(group, touched, found, deadline)
        return _verdict(session.name, group, new, unknown, others[MAX_DEPENDENTS:], found.callers, display)

    def _referenced(self, group: list[Written], touched: dict[Path, tuple[TouchedDefinition, ...]], found: _Dependents, deadline: float) -> None:
        """Add to `found` the files of the server's references (while `deadline` allows) to the
        definitions and bindings the write removed, renamed or whose header it changed, and the
        places of a changed callable header's callers (from the syntax trees where the server
        names none)."""
        from gateway.symbols.references import references_outside, server_references

        service = self.service()
        for w in group:
            view = None
            for t in touched.get(w.source.path, ()):
                if t.change == "added":
                    continue
                places: list[str] | None = None
                if time.monotonic() < deadline:
                    try:
                        view = view or service.file_symbols(w.source)
                        if view.backend.session is not None:
                            places = server_references(service, view, view.resolve(t.name_path), max(deadline - time.monotonic(), 0.0))
                    except GatewayError:
                        places = None
                if not places and t.change == "header" and t.kind in CALLABLE_KINDS and time.monotonic() < deadline:
                    # no callers from the server (none, or it has not indexed them): the places the
                    # syntax trees tie to the name, for the impact note
                    try:
                        view = view or service.file_symbols(w.source)
                        places = references_outside(service, view, view.resolve(t.name_path))
                    except GatewayError:
                        places = None
                if places is None:
                    continue
                found.add(self._file_of(place) for place in places)
                if t.change == "header" and t.kind in CALLABLE_KINDS:
                    found.callers += [p for p in places if p not in found.callers]

    def _file_of(self, place: str) -> Path:
        return self.workspace.resolve(place.rpartition(":")[0])

    def _spelled(self, group: list[Written], names: list[str]) -> list[tuple[Path, set[str]]]:
        """The workspace's files the group's server reads, other than the first written one, that
        spell some of `names` as words, each with those it spells (the workspace read once)."""
        from gateway.symbols.references import spelled

        service = self.service()
        return [(path, spelt) for path, spelt in spelled(service, names, group[0].source.path)
                if (lang := service.registry.for_path(path)) is not None and lang.server.name == group[0].lang.server.name]

    def _errors(self, session: LspSession, texts: list[tuple[Path, str, str]], asked: list[Path], deadline: float) -> dict[Path, FileErrors]:
        """The server's errors of `asked` with `texts`, asked once for the same texts and files."""
        from gateway.lsp.diagnostics import errors_of

        given = {p for p, _, _ in texts}  # the others are read from disk: their state is part of the question
        key = (id(session), tuple((p, hash(t)) for p, t, _ in texts), tuple(asked), tuple(_stamp(p) for p in asked if p not in given))
        with self._lock:
            kept = self._answers.get(key)
        if kept is not None:
            for path, text, language_id in texts:  # the server holds these texts again, as it would after asking
                session.sync(path, text, language_id)
            return kept
        answer = errors_of(session, texts, asked, deadline)
        if all(a.unknown is None for a in answer.values()) and set(answer) >= set(asked):
            with self._lock:
                self._answers[key] = answer
                while len(self._answers) > _KEPT_ANSWERS:
                    self._answers.popitem(last=False)
        return answer


def _changed_names(touched: dict[Path, tuple[TouchedDefinition, ...]], own: list[Path]) -> list[str]:
    """The names the write removed, renamed (old and new: a file that spells the new name may
    now clash with it) or whose header it changed, in the group's files."""
    names = []
    for path in own:
        for t in touched.get(path, ()):
            if t.change != "added":
                names.append(t.name)
            if t.change == "renamed" and t.new_name_path:
                names.append(t.new_name_path.rsplit("/", 1)[-1])
    return names


def _module_names(group: list[Written]) -> list[str]:
    """The names another file imports the written files by: their own, and their directory's
    (a package's `__init__.py`, an `index.ts`)."""
    return [n for w in group for n in (w.source.path.stem, w.source.path.parent.name)]


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_mtime_ns, info.st_size


def _errors(count: int) -> str:
    return f"{count} new error" + ("" if count == 1 else "s")


def _verdict(server: str, group: list[Written], new: list[NewError], unknown: dict[Path, str], beyond: list[Path], callers: list[str],
             display: Callable[[Path], str]) -> Verification:
    """The group's verification: unknown when a written file was not answered for; the other
    files not answered for (or past the 20 asked) in `unchecked`, with why."""
    own = {w.source.path for w in group}
    broken_places = {e.place for e in new}
    unchecked = [p for p in unknown if p not in own] + beyond
    by_reason: dict[str, list[str]] = {}
    for p, r in unknown.items():
        if p not in own:
            by_reason.setdefault(r, []).append(display(p))
    reasons = [f"{_some(names)}: {r}" for r, names in by_reason.items()]
    if beyond:
        reasons.append(f"more than {MAX_DEPENDENTS} files refer to what changed; {len(beyond)} {'was' if len(beyond) == 1 else 'were'} not asked")
    unchecked_names = {display(p) for p in unchecked}
    impact = [c for c in callers if c in broken_places or c.rpartition(":")[0] in unchecked_names][:MAX_DEPENDENTS]
    own_unknown = [r for p, r in unknown.items() if p in own]
    if own_unknown:
        # a reason the written files share with the files that refer to them is said once
        shared = [f"{r} (the {len(by_reason[r])} {'file' if len(by_reason[r]) == 1 else 'files'} that refer to what changed too)"
                  if r in by_reason else r for r in dict.fromkeys(own_unknown)]
        why = "; ".join([*shared, *(reason for reason in reasons if reason.partition(": ")[2] not in own_unknown)])
        return Verification("unknown", tuple(new), why, tuple(display(p) for p in unchecked), tuple(impact), server)
    return Verification("checked", tuple(new), "; ".join(reasons) or None, tuple(display(p) for p in unchecked), tuple(impact), server)


def _some(names: list[str]) -> str:
    """`a.go`, `a.go and b.go`, `a.go, b.go, c.go and 21 more`."""
    if len(names) <= 2:
        return " and ".join(names)
    shown = names[:3]
    return f"{', '.join(shown)} and {len(names) - 3} more" if len(names) > 3 else f"{shown[0]}, {shown[1]} and {shown[2]}"


def merged(verifications: Sequence[Verification]) -> Verification:
    """One verification of a write to files of several servers."""
    if len(verifications) == 1:
        return verifications[0]
    done = [v for v in verifications if v.status != "skipped"] or list(verifications)
    status = "unknown" if any(v.status == "unknown" for v in done) else done[0].status
    return Verification(
        status,
        tuple(e for v in done for e in v.new_errors),
        "; ".join(v.why for v in done if v.why) or None,
        tuple(u for v in done for u in v.unchecked),
        tuple(c for v in done for c in v.callers)[:MAX_DEPENDENTS],
        ", ".join(dict.fromkeys(v.server for v in done if v.server)) or None,
    )


class CommitCheck:
    """What the engine sets as `symbols.service.before_commit` around a symbol operation: the
    texts about to be written verified (refused by NewErrors under `on_new_errors = "refuse"`),
    and nothing written on a dry run (the server given back the texts before)."""

    def __init__(self, verifier: Verifier, language: Callable[[SourceFile], Language], dry_run: bool,
                 touched: dict[Path, tuple[TouchedDefinition, ...]] | None = None) -> None:
        self.verifier = verifier
        self.language = language
        self.dry_run = dry_run
        self.touched = touched or {}  # what the gate listed for a routed write, by file
        self.verification: Verification | None = None

    def __call__(self, changed: Sequence[tuple[SourceFile, str]]) -> bool:
        written = [Written(source, text, self.language(source), self.touched.get(source.path)) for source, text in changed]
        self.verification = self.verifier.verify(written)
        self.verifier.refuse_or_pass(self.verification, written)
        if self.dry_run:
            self.verifier.put_back(written, self.verification)
        return not self.dry_run
