"""Patches (`*** Begin Patch`, sent by Codex, and by OpenCode and Copilot for GPT-5 models):
every file's net effect is judged; structural ones are routed by rewriting their sections so
that the host's own applier writes the verified result. A patch that does not parse or apply
is left to the host, which answers it with its own error."""

from __future__ import annotations

from pathlib import Path

from gateway.errors import GatewayError
from gateway.surfaces.hooks.judge import PASS, Answer, HookCall, Judged, gate_for, read_judged, real_path, with_grant


def patch_paths(call: HookCall) -> list[Path]:
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
            found += [real_path(call, call.cwd / (change.move_to or change.path))] if change.kind != "delete" else []
        except GatewayError:
            continue  # a link out of the workspace: refused before, never performed
    return found


def judge_patch(call: HookCall, grants: bool = True) -> Answer:
    from gateway.patch import PatchError, effects, parse_patch, replace_sections, update_section
    from gateway.surfaces.hooks.pending import remember
    from gateway.surfaces.hooks.planning import route as planned
    from gateway.symbols.routing import RouteRefused

    assert call.text is not None
    gate = gate_for(call)
    try:
        patch = parse_patch(call.text)
        files = effects(patch, call.cwd, lambda path: read_judged(gate, real_path(call, path)))
    except PatchError:
        return PASS  # the host's applier refuses it with its own message
    except GatewayError as error:
        return Answer("deny", f"Refused: {error}.")
    sections: dict[int, str] = {}
    operations: list[dict[str, object]] = []
    for index, (change, effect) in enumerate(zip(patch.changes, files)):
        try:
            target = real_path(call, effect.new_path or effect.path)
            if effect.after is None or not gate.judged(target, effect.before if effect.before is not None else effect.after):
                continue
            judged_effect, classification = gate.check_write(str(target), effect.before, effect.after)
        except GatewayError as error:
            return Answer("deny", f"Refused: {error}.")
        if not classification.blocked:
            continue
        if not classification.routable:
            return Answer("deny", classification.message)
        if gate.config.on_structural == "deny":
            from gateway.surfaces.hooks.judge import SYMBOL_HINT

            return Answer("deny", classification.message + SYMBOL_HINT)
        try:
            route = planned(call, Judged(classification, judged_effect, target, gate))
            assert effect.before is not None
            sections[index] = update_section(change.path, effect.before, route.result, change.move_to)
        except (RouteRefused, PatchError) as refused:
            return Answer("deny", f"{classification.message} Not routed: {str(refused).rstrip('.')}.")
        remember(target, route.result, route.summary())
        operations += [o.to_json() for o in route.operations]
    answer = Answer("rewrite", text=replace_sections(call.text, sections), operations=operations) if sections else PASS
    if not grants:
        return answer
    return with_grant(call, [e.new_path or e.path for e in files], answer)
