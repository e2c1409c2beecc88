"""Shell calls: a patch run through the shell (`apply_patch <<'EOF'`, as Codex does) is judged
as the patch it is; with typed edits enforced, every command is verified after it runs (changes
no live grant covers are put back), none is denied for what it might write."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from gateway.errors import GatewayError
from gateway.surfaces.hooks.judge import PASS, Answer, HookCall, typed_edits

if TYPE_CHECKING:
    from gateway.typed.service import TypedEdits


def _enforced(call: HookCall) -> TypedEdits | None:
    typed = typed_edits(call)
    return typed if typed is not None and typed.config().enforce else None


def _shell_patch(call: HookCall) -> Answer | None:
    """The answer for a command that applies a patch through the shell; None for other commands."""
    from gateway.patch import extract_heredoc
    from gateway.surfaces.hooks.patch_calls import judge_patch

    assert call.text is not None
    found = extract_heredoc(call.text)
    if found is None:
        return None
    directory, patch = found
    cwd = call.cwd / directory if directory else call.cwd
    answer = judge_patch(replace(call, kind="patch", text=patch, cwd=cwd), grants=False)
    if answer.action != "rewrite" or answer.text is None:
        return answer
    return replace(answer, text=call.text.replace(patch, answer.text, 1))


def before_shell(call: HookCall) -> Answer:
    """Before a shell command: nothing is denied for what it might write; with typed edits
    enforced the workspace is recorded, and the command verified after it ran."""
    assert call.text is not None
    patched = _shell_patch(call) if "apply_patch" in call.text or "applypatch" in call.text else None
    if patched is not None and patched.action != "pass":
        return patched
    typed = _enforced(call)
    if typed is None:
        return PASS
    from gateway.typed.shell import before_command

    before_command(typed, call.key, call.text)
    return PASS


def after_shell(call: HookCall) -> Answer:
    """After a shell command: every workspace change without a live grant put back, and said."""
    typed = typed_edits(call)
    if typed is None or call.text is None:
        return PASS
    from gateway.typed.shell import after_command, recorded

    # The record decides, not the config now: the command itself may have turned enforcement off.
    if not recorded(typed, call.key) and not typed.config().enforce:
        return PASS
    try:
        outcome = after_command(typed, call.key, call.text)
    except GatewayError as error:
        return Answer("block", f"The gateway could not verify what the command changed: {error}.")
    return Answer("block", outcome.message(f"The command `{call.text[:200]}`")) if outcome.bypassed else PASS
