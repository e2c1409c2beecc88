"""The one judgement behind every host's hook: a `HookCall` (what the host is about to do, in
the gateway's terms) in, an `Answer` (let it run, deny it, or run this instead) out.

Host adapters (`claude_code`, `copilot`, `gemini`, `codex`, `opencode`) only translate the
host's payload into a HookCall and the Answer into the host's reply form. Writes are judged
by their effect: the file before and after the write, computed as the host will compute it.
Where the host's handling of line endings is not known for certain (CRLF files), every
plausible reading is judged and any structural one counts. A structural write is routed
(performed as verified symbol operations, given back as the host's own edit) unless the
workspace says `[gate] on_structural = "deny"`; a refusal says why. In a workspace with
typed edits enforced, every write also needs a live grant for its file, consumed here; Bash
commands that plainly write workspace files are denied, the others are verified after they
run (`post`). The gate is imported only for the calls it judges, and nothing of the
language-server or MCP machinery ever is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from types import EllipsisType
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from gateway.errors import Ambiguous, Blocked, GatewayError, GrantRefused, NotFound, OutsideWorkspace, Unencodable, UsageError
from gateway.surfaces.hooks.host_edits import Edit, edit_for, host_edits, kept_last_newline, replay
from gateway.surfaces.hooks.workspaces import Roots, call_root, gate_at, root_of, typed_at

if TYPE_CHECKING:
    from gateway.gate.checker import Gate
    from gateway.gate.effect import Effect
    from gateway.gate.verdict import Classification
    from gateway.results import SuggestedOperation
    from gateway.typed.service import TypedEdits
    from gateway.typed.watch import Outcome

SYMBOL_HINT = (
    " Make structural changes with the gateway's symbol operations instead (MCP tools replace_symbol, "
    "insert_code, remove_symbol, rename_symbol, or the `gateway` commands named above)."
)
DECLARE_HINT = (
    " Typed edits are enforced in this workspace: declare the change first (`gateway kinds` lists the kinds; "
    "`gateway declare KIND --file PATH --target prod|test --provenance P --rationale TEXT [--test-file T]`, "
    "or the gateway MCP tool `declare`), then retry."
)


@dataclass(frozen=True)
class HookCall:
    """What a host is about to do (`pre`) or has done (`post`), in the gateway's terms.

    kind: "edit" (string replacements on `path`), "write" (`content` replaces `path`), "patch"
    (`text` is a `*** Begin Patch` patch), "shell" (`text` is a command) or "other".
    `style`: how the host's edit tool departs from a plain exact replacement: "claude" (an
    empty new_string also deletes the newline after the text it removes), "gemini" (the file
    keeps whether it ended with a newline), or "exact". `host`: the host it came from, whose own
    edit tools a note names."""

    event: Literal["pre", "post"]
    kind: Literal["edit", "write", "patch", "shell", "other"]
    tool: str
    cwd: Path
    project_dir: str | None = None
    path: Path | None = None
    edits: tuple[Edit, ...] = ()
    content: str | None = None
    text: str | None = None
    key: str = ""
    style: Literal["exact", "claude", "gemini"] = "exact"
    host: str = ""


@dataclass(frozen=True)
class Answer:
    """What the host should do. action "pass": run the call as it is; "deny": refuse it with
    `reason`; "rewrite": run it with `edit` (an edit tool's one replacement), `content` (a whole
    file) or `text` (a patch or command) instead; "block": a PostToolUse report that a change was
    put back; "context": a note for the model (`reason`) after the call ran."""

    action: Literal["pass", "deny", "rewrite", "block", "context"]
    reason: str = ""
    edit: Edit | None = None
    content: str | None = None
    text: str | None = None
    operations: list[dict[str, object]] = field(default_factory=list)
    suggested: tuple[SuggestedOperation, ...] = ()  # the operations `reason` names, spelled by the surface


PASS = Answer("pass")
SINCE = "Since the last tool call, something outside the gate"


def real_path(call: HookCall, path: Path, roots: Roots | None = None) -> Path:
    """The file a write to `path` really changes: links resolved, so that the file is judged by
    its own name and text. A path inside the project (`.gateway` root, else the project or
    working directory), or inside the workspace it names by itself, whose links lead out of it
    is refused (OutsideWorkspace)."""
    import os

    real = Path(os.path.realpath(path))
    named = Path(os.path.abspath(path))
    project, roots = Path(call.project_dir or call.cwd), roots or Roots(call)
    for root in {roots.of_project() or project, roots.own(named) or project}:
        real_root = Path(os.path.realpath(root))
        inside = named.is_relative_to(os.path.abspath(root)) or named.is_relative_to(real_root)
        if inside and not real.is_relative_to(real_root):
            raise OutsideWorkspace(f"{path}: a symbolic link to {real}, outside the workspace {real_root}; refusing to write through it")
    return real


def typed_edits(call: HookCall) -> TypedEdits | None:
    """The typed-edit state of the project the agent works in, if it has any (.gateway/, or a
    baseline the gateway keeps for it)."""
    return typed_at(call_root(call))


def typed_for(call: HookCall, path: Path, typed: TypedEdits | None | EllipsisType = ..., roots: Roots | None = None) -> TypedEdits | None:
    """The typed-edit state that rules a write to `path`: its own workspace's (another workspace
    than the call's may hold it), else the call's (`typed`, when the caller has looked it up)."""
    roots = roots or Roots(call)
    root = roots.own(path)
    if root is None or root == roots.of_call():
        return typed_edits(call) if isinstance(typed, EllipsisType) else typed
    return typed_at(root)


def noticed(call: HookCall, typed: TypedEdits | None | EllipsisType = ...) -> Outcome | None:
    """What changed in the workspace since the last check without a gated write (put back
    now), or a problem with the gateway's own state; None when nothing did. `typed`: the
    call's `typed_edits`, when the caller has looked them up."""
    typed = typed_edits(call) if isinstance(typed, EllipsisType) else typed
    if typed is None:
        return None
    from gateway.typed.arming import sweep

    outcome = sweep(typed, f"{call.event} {call.tool}")
    return outcome if outcome.bypassed else None


def pre(call: HookCall) -> Answer:
    """The answer to a call the host is about to make."""
    roots = Roots(call)
    typed = typed_at(roots.of_call())
    found = noticed(call, typed)
    if found is not None:
        again = "" if found.tampered else "; run it again"
        return Answer("deny", f"{found.message(SINCE)} This tool call was not run{again}.")
    if call.kind == "shell":
        from gateway.surfaces.hooks.shell_calls import before_shell

        return before_shell(call)
    if call.kind == "patch":
        from gateway.surfaces.hooks.patch_calls import judge_patch

        return judge_patch(call)
    if call.path is None:
        return PASS
    try:
        path = real_path(call, call.path, roots)
    except OutsideWorkspace as error:
        return Answer("deny", f"Refused: {error}.")
    call = replace(call, path=path)
    typed = typed_for(call, path, typed, roots)
    if call.kind not in ("edit", "write"):  # a write the gate does not judge (a notebook) still needs its grant
        return with_grant(call, [path], PASS, typed=typed)
    try:
        judged = decide(call, roots)
    except UsageError:
        raise
    except GatewayError as error:
        return Answer("deny", f"Refused: {error}.")
    answer = PASS
    if judged is not None and judged.classification.blocked:
        answer = structural(call, judged)
        if answer.action == "deny":
            if typed is not None and typed.config().enforce:
                typed.refuse(f"hook:{call.tool}", [str(call.path)], Blocked(judged.classification))
            return answer
    return with_grant(call, [path], answer, lambda: results_of(call, judged, answer), typed)


def results_of(call: HookCall, judged: Judged | None, answer: Answer) -> list[str]:
    """The SHA-256s the host's write may leave (the readings of its text as UTF-8, LF or CRLF,
    with or without a BOM); empty when unknown, and the first bytes seen after it are taken."""
    from gateway.atomic import sha256

    text = answer.content
    if text is None and judged is not None and answer.action == "rewrite" and answer.edit is not None and judged.effect.before is not None:
        text = replay(judged.effect.before, answer.edit, call.style)
    if text is None and judged is not None and answer.action == "pass":
        text = judged.effect.after
    if text is None and call.kind == "write":
        text = call.content
    if text is None:
        return []
    readings = {text, text.replace("\r\n", "\n").replace("\n", "\r\n")}
    return sorted({sha256(t.encode("utf-8")) for t in readings} | {sha256(("\ufeff" + t).encode("utf-8")) for t in readings})


def with_grant(call: HookCall, paths: list[Path], answer: Answer, results: Callable[[], list[str]] | None = None,
               typed: TypedEdits | None | EllipsisType = ...) -> Answer:
    """`answer`, or a denial when typed edits are enforced and a file has no live grant
    (consumed here, since the host writes right after, for exactly the bytes it leaves:
    `results`, worked out only then). `typed`: the call's `typed_edits`, when looked up."""
    typed = typed_edits(call) if isinstance(typed, EllipsisType) else typed
    if typed is None:
        return answer
    digests = results() if results is not None else None
    try:
        for path in paths:
            typed.native_write(path, f"hook:{call.tool}", answer.operations or None, digests)
    except OutsideWorkspace:
        return answer
    except GrantRefused as refused:
        return Answer("deny", str(refused) if refused.reason == "tampered" else f"{refused}." + DECLARE_HINT)
    return answer


def post(call: HookCall) -> Answer:
    """The note for a call the host has made: what a routed write did, once it is on disk, or
    a shell command's unauthorised changes put back."""
    if call.kind == "shell":
        from gateway.surfaces.hooks.shell_calls import after_shell

        return after_shell(call)
    found = noticed(call)
    if found is not None:
        return Answer("block", found.message(SINCE))
    if call.kind in ("edit", "write", "patch"):
        from gateway.surfaces.hooks.pending import performed

        if call.path is not None:
            try:
                call = replace(call, path=real_path(call, call.path))
            except OutsideWorkspace:
                return PASS

        notes = performed(call)
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
    if raw is None or "\r\n" not in raw:
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


def read_judged(gate: Gate, path: Path) -> str | None:
    """The file's text as the gate reads it (a regular file, within the size limit); None
    when it does not exist."""
    from gateway.textfile import decode, encoding_rule, round_trips, unencodable_message

    display = str(path)
    try:
        raw_bytes = gate.read(path, display)
    except OSError as error:
        raise GatewayError(f"{display}: cannot be read ({error.strerror or error})") from None
    if raw_bytes is None:
        return None
    text, codec = decode(raw_bytes, display, encoding_rule(path, gate.registry, raw_bytes))
    if not round_trips(text, codec, raw_bytes):
        raise Unencodable(unencodable_message(display, codec))
    return text


def gate_for(call: HookCall, roots: Roots | None = None) -> Gate:
    """The gate with the settings of the workspace the call's file belongs to (or the call's)."""
    return (roots or Roots(call)).gate(call.path) if call.path is not None else gate_at(root_of(call), Path(call.project_dir or call.cwd))


def first_line(gate: Gate, call: HookCall) -> bytes | str | None:
    """What tells an extensionless file's language: its first bytes, or the new file's text."""
    if not gate.registry.by_first_line(call.path or ""):
        return None
    from gateway.reading import read_head

    assert call.path is not None
    head = read_head(call.path)
    return head if head is not None else call.content if call.kind == "write" else call.edits[0].new if call.edits else None


def decide(call: HookCall, roots: Roots | None = None) -> Judged | None:
    """The gate's verdict on an edit or write (the first structural reading, else the last
    allowed one); None for files the gate does not judge."""
    assert call.path is not None
    gate = gate_for(call, roots)
    if not gate.may_judge(call.path):
        return None
    if call.kind == "edit" and not call.edits:
        raise UsageError("the edit has no replacements")
    if not gate.judged(call.path, first_line(gate, call)):
        return None
    raw = read_judged(gate, call.path)
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


def structural(call: HookCall, judged: Judged) -> Answer:
    """A structural write routed (the host's call rewritten), or the reason it is denied."""
    from gateway.surfaces.hooks.pending import remember
    from gateway.surfaces.hooks.planning import route as planned
    from gateway.symbols.routing import RouteRefused

    message, suggested = judged.classification.message, judged.classification.suggested
    if not judged.classification.routable:
        return Answer("deny", message, suggested=suggested)
    if judged.gate.config.on_structural == "deny":
        return Answer("deny", message + SYMBOL_HINT, suggested=suggested)
    try:
        route = planned(call, judged)
    except RouteRefused as refused:
        return Answer("deny", f"{message} Not routed: {str(refused).rstrip('.')}.", suggested=suggested + refused.suggested)
    remember(judged.path, route.result, route.summary())
    operations = [o.to_json() for o in route.operations]
    if call.kind == "write":
        return Answer("rewrite", content=call.content if route.exact else route.result, operations=operations)
    assert judged.effect.before is not None
    return Answer("rewrite", edit=edit_for(judged.effect.before, route.result, route, call.style), operations=operations)
