"""The one judgement behind every host's hook: a `HookCall` (what the host is about to do, in
the gateway's terms) in, an `Answer` (let it run, deny it, or run this instead) out, on an
engine: `pre(engine, call)` before the host's tool runs, `post(engine, call)` after it.

Host adapters (`gateway.surfaces.hooks`) only translate the host's payload into a HookCall and
the Answer into the host's reply form. Writes are judged by their effect: the file before and
after the write, computed as the host will compute it. Where the host's handling of line
endings is not known for certain (CRLF files), every plausible reading is judged and any
structural one counts. A structural write is routed (performed as verified symbol operations
through the engine's `route_or_refuse`, given back as the host's own edit) unless the workspace
says `[gate] on_structural = "deny"`; a refusal says why. In a workspace with typed edits
enforced, every write also needs a live grant for its file, consumed here; Bash commands that
plainly write workspace files are denied, the others are verified after they run (`post`).
The engine is the daemon's, warm, when it runs (`gateway.surfaces.daemon`); None in the hook's
own process, where one is made for the call only when a write needs it. The gate is imported
only for the calls it judges, and nothing of the language-server or MCP machinery ever is
unless a structural write is routed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import Ambiguous, Blocked, GatewayError, NewErrors, NotFound, OutsideWorkspace, UsageError
from gateway.hostcalls.answer_first import answer_first
from gateway.hostcalls.call import PASS, SINCE, Answer, Edit, HookCall
from gateway.hostcalls.host_edits import edit_for, host_edits, kept_last_newline, replay
from gateway.hostcalls.performed import performed
from gateway.hostcalls.scope import Scope
from gateway.hostcalls.verified import kept_note, wanted
from gateway.priority import answering

if TYPE_CHECKING:
    from gateway.engine import Engine
    from gateway.gate.checker import Gate
    from gateway.gate.effect import Effect
    from gateway.gate.verdict import Classification


def pre(engine: Engine | None, call: HookCall) -> Answer:
    """The answer to a call the host is about to make, judged on `engine` (the daemon's; None:
    one made for the call's workspace when it is needed, closed after)."""
    scope = Scope(engine, call)
    try:
        with answering(), answer_first():  # background work waits; routed writes' notes start once the answer is made
            return _pre(scope, call)
    finally:
        scope.close()


def post(engine: Engine | None, call: HookCall) -> Answer:
    """The note for a call the host has made: what a routed write did, once it is on disk, or
    a shell command's unauthorised changes put back."""
    scope = Scope(engine, call)
    try:
        return _post(scope, call)
    finally:
        scope.close()


def _pre(scope: Scope, call: HookCall) -> Answer:
    typed = scope.typed_of_call()
    record = None
    if call.kind == "shell" and typed is not None:
        from gateway.hostcalls.shells import record_with_check

        record = record_with_check(scope, call)
    found = scope.noticed(typed, record)
    if found is not None:
        again = "" if found.tampered else "; run it again"
        return Answer("deny", f"{found.message(SINCE)} This tool call was not run{again}.")
    if call.kind == "shell":
        from gateway.hostcalls.shells import before_shell

        return before_shell(scope, call)
    if call.kind == "patch":
        from gateway.hostcalls.patches import judge_patch

        return judge_patch(scope, call)
    if call.path is None:
        return PASS
    try:
        path = scope.real_path(call.path)
    except OutsideWorkspace as error:
        return Answer("deny", f"Refused: {error}.")
    call = replace(call, path=path)
    typed = scope.typed_for(path, typed)
    if call.kind not in ("edit", "write"):  # a write the gate does not judge (a notebook) still needs its grant
        return scope.with_grant([path], PASS, typed)
    try:
        judged = decide(scope, call)
    except UsageError:
        raise
    except GatewayError as error:
        return Answer("deny", f"Refused: {error}.")
    answer = PASS
    if judged is not None and judged.classification.blocked:
        answer = structural(scope, call, judged)
        if answer.action == "deny":
            if typed is not None and typed.config().enforce:
                typed.refuse(f"hook:{call.tool}", [str(call.path)], Blocked(judged.classification))
            return answer
    elif judged is not None and wanted(judged.gate, judged.path, judged.effect.before, judged.effect.after, judged.classification.reason):
        refused = verified_allowed(scope, judged)
        if refused is not None:
            return refused
    return scope.with_grant([path], answer, typed, lambda: results_of(call, judged, answer))


def verified_allowed(scope: Scope, judged: Judged) -> Answer | None:
    """A write the gate lets through that touches a definition, verified before the host writes
    it: its note kept for `post`, or the refusal under `[verify] on_new_errors = "refuse"`."""
    from gateway.hostcalls.pending import remember

    assert judged.effect.before is not None
    try:
        said = kept_note(scope, judged.path, judged.effect.before, judged.effect.after)
    except NewErrors as refused:
        return Answer("deny", str(refused))
    if said:
        remember(judged.path, judged.effect.after, said)
    return None


def results_of(call: HookCall, judged: Judged | None, answer: Answer) -> list[str]:
    """The SHA-256s the host's write may leave (the readings of its text as UTF-8, LF or CRLF,
    with or without a BOM); empty when unknown, and the first bytes seen after it are taken."""
    import hashlib

    text = answer.content if answer.content is not None else answer.leaves
    if text is None and judged is not None and answer.action == "rewrite" and answer.edit is not None and judged.effect.before is not None:
        text = replay(judged.effect.before, answer.edit, call.style)
    if text is None and judged is not None and answer.action == "pass":
        text = judged.effect.after
    if text is None and call.kind == "write":
        text = call.content
    if text is None:
        return []
    data = text.encode("utf-8")
    crlf = (data.replace(b"\r\n", b"\n") if b"\r" in data else data).replace(b"\n", b"\r\n")
    digests = set()
    for reading in (data,) if crlf == data else (data, crlf):  # on bytes: one pass each, no copy for the BOM
        digests.add(hashlib.sha256(reading).hexdigest())
        with_bom = hashlib.sha256(b"\xef\xbb\xbf")
        with_bom.update(reading)
        digests.add(with_bom.hexdigest())
    return sorted(digests)


def _post(scope: Scope, call: HookCall) -> Answer:
    if call.kind == "shell":
        from gateway.hostcalls.shells import after_shell

        return after_shell(scope, call)
    found = scope.noticed(scope.typed_of_call())
    if found is not None:
        return Answer("block", found.message(SINCE))
    if call.kind in ("edit", "write", "patch"):
        if call.path is not None:
            try:
                call = replace(call, path=scope.real_path(call.path))
            except OutsideWorkspace:
                return PASS
        notes = performed(scope, call)
        return Answer("context", " ".join(notes)) if notes else PASS
    return PASS


@dataclass(frozen=True)
class Judged:
    """The gate's verdict on one reading of the file, with the write's effect on it."""

    classification: Classification
    effect: Effect
    path: Path
    gate: Gate


def _readings(raw: str | None) -> list[tuple[str | None, str | None]]:
    """(text, newline) pairs the host may edit: as the file is, and with CRLF as LF."""
    if raw is None or "\r" not in raw or "\r\n" not in raw:  # "\r" first: a search for one character is memchr's
        return [(raw, "\n")]
    return [(raw, None), (raw.replace("\r\n", "\n"), "\n")]


def _judge_reading(gate: Gate, call: HookCall, display: str, text: str | None, newline: str | None) -> tuple[Effect, Classification]:
    from gateway.textfile import normalize_fragment

    if call.kind == "write":
        content = call.content or ""  # checked by the adapter (run.text_of)
        return gate.check_write(display, text, normalize_fragment(content, newline) if text is not None else content)
    edits = tuple(Edit(normalize_fragment(e.old, newline), normalize_fragment(e.new, newline), e.replace_all) for e in call.edits)
    if text is None or (text == "" and edits[0].old == ""):
        if edits[0].old:
            raise NotFound(f"old_string not found: {display} does not exist")
        return gate.check_write(display, text, edits[0].new)
    made = host_edits(text, edits, call.style)
    effect, classification = gate.check_edit(display, text, *made[0]) if len(made) == 1 else gate.check_multi_edit(display, text, made)
    if call.style == "gemini" and effect.after is not None and kept_last_newline(text, effect.after) != effect.after:
        return gate.check_write(display, text, kept_last_newline(text, effect.after))
    return effect, classification


def first_line(gate: Gate, call: HookCall) -> bytes | str | None:
    """What tells an extensionless file's language: its first bytes, or the new file's text."""
    if not gate.registry.by_first_line(call.path or ""):
        return None
    from gateway.reading import read_head

    assert call.path is not None
    head = read_head(call.path)
    return head if head is not None else call.content if call.kind == "write" else call.edits[0].new if call.edits else None


def decide(scope: Scope, call: HookCall) -> Judged | None:
    """The gate's verdict on an edit or write (the first structural reading, else the last
    allowed one); None for files the gate does not judge."""
    assert call.path is not None
    gate = scope.gate(call.path)
    if not gate.may_judge(call.path):
        return None
    if call.kind == "edit" and not call.edits:
        raise UsageError("the edit has no replacements")
    if not gate.judged(call.path, first_line(gate, call)):
        return None
    raw = scope.read(call.path)
    verdicts: list[Judged] = []
    failures: list[GatewayError] = []
    for text, newline in _readings(raw):
        try:
            effect, classification = _judge_reading(gate, call, str(call.path), text, newline)
        except (NotFound, Ambiguous) as error:  # this reading is not the host's; another may be
            failures.append(error)
            continue
        verdicts.append(Judged(classification, effect, call.path, gate))
    if not verdicts:
        raise failures[0]
    return next((v for v in verdicts if v.classification.blocked), verdicts[-1])


def structural(scope: Scope, call: HookCall, judged: Judged) -> Answer:
    """A structural write routed (the host's call rewritten), or the reason it is denied."""
    from gateway.hostcalls.pending import remember
    from gateway.hostcalls.routes import route as routed

    if not judged.classification.routable:
        return Answer("deny", judged.classification.message, suggested=judged.classification.suggested)
    route = routed(scope, judged.path, judged.classification, judged.effect, judged.gate)
    if isinstance(route, tuple):
        return Answer("deny", route[0], suggested=route[1])
    assert judged.effect.before is not None
    try:
        said = kept_note(scope, judged.path, judged.effect.before, route.result, judged.classification.definitions, route.summary())
    except NewErrors as refused:
        return Answer("deny", str(refused))
    remember(judged.path, route.result, said)
    operations = [o.to_json() for o in route.operations]
    if call.kind == "write":
        return Answer("rewrite", content=call.content if route.exact else route.result, operations=operations)
    edit, leaves = edit_for(judged.effect.before, route.result, route, call.style)
    return Answer("rewrite", edit=edit, operations=operations, leaves=leaves)
