"""Patches (`*** Begin Patch`, sent by Codex, and by OpenCode and Copilot for GPT-5 models): each
path's net effect over the whole patch (its text before against its text after, whatever the
Add, Delete, Update and Move sections were) is judged as one write, by the rules of the
workspace the path belongs to. A path that ends absent (deleted, or moved away, even out of the
workspace or to a name that is no source) is judged as losing all its text. Structural changes
of a file that stays where it is are routed: its sections become one section that the host's
own applier turns into the verified result; any other structural change is refused, saying
why. A patch that does not parse is left to the host, which answers it with its own error."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import GatewayError, NewErrors
from gateway.hostcalls.call import PASS, Answer, HookCall
from gateway.hostcalls.scope import Scope
from gateway.hostcalls.verified import kept_note, wanted

if TYPE_CHECKING:
    from gateway.patch import NetEffects, Patch, PathEffect
    from gateway.results import SuggestedOperation
    from gateway.symbols.routing import Route


@dataclass(frozen=True)
class _Routed:
    """A path's structural change performed as symbol operations: the route, and its one section."""

    effect: PathEffect
    route: Route
    section: str


def patch_paths(scope: Scope, call: HookCall) -> list[Path]:
    """The files a patch writes (after moves); [] when it does not parse."""
    from gateway.patch import PatchError, parse_patch

    assert call.text is not None
    try:
        changes = parse_patch(call.text).changes
    except PatchError:
        return []
    found = []
    for change in changes:
        try:
            found += [scope.real_path(call.cwd / (change.move_to or change.path))] if change.kind != "delete" else []
        except GatewayError:
            continue  # a link out of the workspace: refused before, never performed
    return found


def _net(scope: Scope, call: HookCall, text: str) -> tuple[Patch, NetEffects]:
    from gateway.patch import net_effects, parse_patch

    patch = parse_patch(text)
    return patch, net_effects(patch, call.cwd, scope.read, scope.real_path)


def judge_patch(scope: Scope, call: HookCall, grants: bool = True) -> Answer:
    """The answer to a patch (`call.text`); `grants`: the typed-edit grants are consumed here
    (not for a patch run through the shell, whose command is verified after it ran)."""
    from gateway.patch import PatchError

    assert call.text is not None
    try:
        patch, net = _net(scope, call, call.text)
    except PatchError:
        return PASS  # the host's parser refuses it with its own message
    except GatewayError as error:
        return Answer("deny", f"Refused: {error}.")
    refusals: list[str] = []
    suggested: list[SuggestedOperation] = []
    routed: list[_Routed] = []
    for effect in net.paths:
        try:
            outcome = _judge_path(scope, call, patch, net, effect)
        except GatewayError as error:
            return Answer("deny", f"Refused: {error}.")
        if isinstance(outcome, tuple):
            refusals.append(outcome[0])
            suggested += outcome[1]
        elif outcome is not None:
            routed.append(outcome)
    if refusals:
        return Answer("deny", " ".join(refusals), suggested=tuple(dict.fromkeys(suggested)))
    answer = _rewritten(scope, call, net, routed) if routed else PASS
    if answer.action != "deny":
        answer = _verified_allowed(scope, net, {done.effect.path for done in routed}) or answer
    if not grants or answer.action == "deny":
        return answer
    return _with_grants(scope, [effect.path for effect in net.paths if effect.before != effect.after], answer)


def _verified_allowed(scope: Scope, net: NetEffects, routed: set[Path]) -> Answer | None:
    """The delta of each path the patch changes as the gate allows and that touches a definition
    (a one-line header change, a constant renamed): its note kept for `post`, or the refusal
    under `[verify] on_new_errors = "refuse"`."""
    from gateway.hostcalls.pending import remember

    for effect in net.paths:
        if effect.path in routed or effect.after is None or not wanted(scope.gate(effect.path), effect.path, effect.before, effect.after):
            continue
        assert effect.before is not None
        try:
            said = kept_note(scope, effect.path, effect.before, effect.after)
        except NewErrors as refused:
            return Answer("deny", str(refused))
        if said:
            remember(effect.path, effect.after, said)
    return None


def _with_grants(scope: Scope, paths: list[Path], answer: Answer) -> Answer:
    """`answer`, or a denial when a path's workspace enforces typed edits and it has no live grant."""
    by_workspace: dict[Path | None, list[Path]] = {}
    for path in paths:
        by_workspace.setdefault(scope.file(path), []).append(path)
    for root, group in by_workspace.items():
        answer = scope.with_grant(group, answer, scope.typed(root))
        if answer.action == "deny":
            break
    return answer


def _judge_path(scope: Scope, call: HookCall, patch: Patch, net: NetEffects,
                effect: PathEffect) -> tuple[str, tuple[SuggestedOperation, ...]] | _Routed | None:
    """None when the path's net change is allowed (or not judged), its route when it is routed,
    else the refusal (and the operations it names)."""
    from gateway.gate.verdict import not_routed
    from gateway.hostcalls.routes import route as routed
    from gateway.patch import PatchError, update_section

    if effect.before == effect.after:
        return None
    gate = scope.gate(effect.path)
    if not gate.judged(effect.path, effect.before if effect.before is not None else effect.after):
        return None
    judged_effect, classification = gate.check_write(str(effect.path), effect.before, effect.after or "", "patch")
    if not classification.blocked:
        return None
    if not classification.routable:
        return classification.message, classification.suggested
    route = routed(scope, effect.path, classification, judged_effect, gate, _unroutable(call, net, effect))
    if isinstance(route, tuple):
        return route
    assert effect.before is not None
    try:
        section = update_section(patch.changes[effect.changes[0]].path, effect.before, route.result)
    except PatchError as refused:
        return not_routed(classification, str(refused)).message, classification.suggested
    return _Routed(effect, route, section)


def _shown(call: HookCall, path: Path) -> str:
    relative = os.path.relpath(path, os.path.realpath(call.cwd))
    return str(path) if relative.startswith("..") else relative


def _unroutable(call: HookCall, net: NetEffects, effect: PathEffect) -> str | None:
    """Why a structural change of this path cannot be performed as symbol operations (None: it can)."""
    name = _shown(call, effect.path)
    removed = f"remove its definitions first (remove_symbol, as suggested); once {name} defines nothing, the patch can"
    if effect.moved_to == effect.path:
        return f"the patch moves {name} onto itself, which deletes it (the host writes the destination, then removes the file): {removed} delete it"
    if effect.after is None and effect.moved_to is not None:
        return (f"the patch moves {name} to {_shown(call, effect.moved_to)}, which takes every definition of {name} out of it "
                f"(symbol operations do not move files): to keep a definition, insert it into an existing file (insert_code); "
                f"{removed} move it")
    if effect.after is None:
        return f"the patch deletes {name}, and every definition in it with it (symbol operations do not delete files): {removed} delete it"
    if effect.moved_in:
        return f"the patch writes {name} by moving another file over it; symbol operations do not move files: change {name} in place"
    if net.failure is not None:
        return f"the patch does not apply as a whole ({net.failure}), and the host writes the sections before the failing one all the same"
    return None


def _rewritten(scope: Scope, call: HookCall, net: NetEffects, routed: list[_Routed]) -> Answer:
    """The patch with each routed path's sections replaced by its one section, checked: applied
    to the files as they are, it leaves every path exactly as verified."""
    from gateway.patch import PatchError, replace_sections
    from gateway.hostcalls.pending import remember

    sections: dict[int, str | None] = {}
    for done in routed:
        first, *rest = done.effect.changes
        sections[first] = done.section
        sections.update(dict.fromkeys(rest))
    assert call.text is not None
    text = replace_sections(call.text, sections)
    expected = {effect.path: effect.after for effect in net.paths} | {done.effect.path: done.route.result for done in routed}
    try:
        _, again = _net(scope, call, text)
    except (PatchError, GatewayError) as error:
        return Answer("deny", f"Refused: the routed patch could not be checked ({error}).")
    if again.failure is not None or {effect.path: effect.after for effect in again.paths} != expected:
        return Answer("deny", "Refused: the routed patch would not leave the files as verified; send each structural change as its own patch.")
    notes: dict[Path, str | Callable[[], str]] = {}
    for done in routed:
        try:
            notes[done.effect.path] = kept_note(scope, done.effect.path, done.effect.before or "", done.route.result, head=done.route.summary())
        except NewErrors as refused:
            return Answer("deny", str(refused))
    for done in routed:
        remember(done.effect.path, done.route.result, notes[done.effect.path])
    return Answer("rewrite", text=text, operations=[o.to_json() for done in routed for o in done.route.operations])
