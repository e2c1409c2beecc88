"""Shell calls: a patch run through the shell (`apply_patch <<'EOF'`, as Codex does) is judged
as the patch it is; with typed edits enforced, every command is verified after it runs (changes
no live grant covers are put back), none is denied for what it might write. Without
enforcement, `[gate] shell` (gateway.shell_changes) has the source files recorded before each
command and the command's changes judged after it: the agent is told each definition it
changed, unverified, and the host's own edit tool to use instead ("put_back" also undoes them)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from gateway.errors import GatewayError
from gateway.hostcalls.call import PASS, Answer, HookCall
from gateway.hostcalls.scope import Scope, root_of

if TYPE_CHECKING:
    from gateway.gate.verdict import TouchedDefinition
    from gateway.shell_changes import Review
    from gateway.typed.service import TypedEdits


def _enforced(scope: Scope) -> TypedEdits | None:
    typed = scope.typed_of_call()
    return typed if typed is not None and typed.config().enforce else None


def _runs_a_patch(command: str) -> bool:
    """Whether the command applies a patch through the shell (judged as that patch before it ran)."""
    from gateway.patch import extract_heredoc

    return ("apply_patch" in command or "applypatch" in command) and extract_heredoc(command) is not None


def _shell_patch(scope: Scope, call: HookCall) -> Answer | None:
    """The answer for a command that applies a patch through the shell; None for other commands."""
    from gateway.patch import extract_heredoc
    from gateway.hostcalls.patches import judge_patch

    assert call.text is not None
    found = extract_heredoc(call.text)
    if found is None:
        return None
    directory, patch = found
    cwd = call.cwd / directory if directory else call.cwd
    patch_call = replace(call, kind="patch", text=patch, cwd=cwd)
    inner = Scope(scope.given, patch_call)  # the patch's paths are relative to its own directory
    try:
        answer = judge_patch(inner, patch_call, grants=False)
    finally:
        inner.close()
    if answer.action != "rewrite" or answer.text is None:
        return answer
    return replace(answer, text=call.text.replace(patch, answer.text, 1))


def before_shell(scope: Scope, call: HookCall) -> Answer:
    """Before a shell command: nothing is denied for what it might write; with typed edits
    enforced the workspace is recorded, and the command verified after it ran; otherwise its
    source files are recorded for `[gate] shell`."""
    assert call.text is not None
    patched = _shell_patch(scope, call) if "apply_patch" in call.text or "applypatch" in call.text else None
    if patched is not None and patched.action != "pass":
        return patched
    typed = _enforced(scope)
    if typed is None:
        if patched is None:
            _watch_before(scope, call)
        return PASS
    from gateway.typed.shell import before_command, recorded

    if not recorded(typed, call.key):  # the check before it did not record it (gateway.hostcalls.judge)
        before_command(typed, call.key)
    return PASS


def record_with_check(scope: Scope, call: HookCall) -> str | None:
    """The name under which the check at PreToolUse records a shell command under enforcement in
    its own write (None: none to record, or one `before_shell` records after judging its patch)."""
    if call.kind != "shell" or call.text is None or _runs_a_patch(call.text) or _enforced(scope) is None:
        return None
    from gateway.typed.shell import record_name

    return record_name(call.key)


def after_shell(scope: Scope, call: HookCall) -> Answer:
    """After a shell command: under enforcement every workspace change without a live grant put
    back, and said; otherwise what `[gate] shell` says of the command's changes."""
    typed = scope.typed_of_call()
    if call.text is None:
        return PASS
    from gateway.typed.shell import after_command, recorded

    # The record decides, not the config now: the command itself may have turned enforcement off.
    if typed is None or not recorded(typed, call.key) and not typed.config().enforce:
        return _watch_after(scope, call)
    try:
        outcome = after_command(typed, call.key, call.text)
    except GatewayError as error:
        return Answer("block", f"The gateway could not verify what the command changed: {error}.")
    return Answer("block", outcome.message(f"The command `{call.text[:200]}`")) if outcome.bypassed else PASS


MCP_TOOLS = "the gateway's MCP tools replace_symbol, insert_code, remove_symbol and rename_symbol"
MOST_LINES = 40


def watch_root(call: HookCall) -> Path | None:
    """The workspace a command is checked over: the `.gateway` root, else the git repository
    around the project (or working) directory, else the project directory the host names."""
    found = root_of(call)
    if found is not None:
        return found
    start = Path(call.project_dir or call.cwd).resolve()
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return Path(call.project_dir) if call.project_dir else None


def _watch_before(scope: Scope, call: HookCall) -> None:
    """Record the workspace's source files for `[gate] shell`; a failure only means the command
    is not checked, which its PostToolUse says."""
    from gateway.shell_changes import before_command

    root = watch_root(call)
    if root is None:
        return
    gate = scope.call_gate()
    if gate.config.shell != "off":
        with contextlib.suppress(GatewayError, OSError, ValueError):
            before_command(gate, root, call.key)


def _watch_after(scope: Scope, call: HookCall) -> Answer:
    from gateway.shell_changes import after_command, kept_as_is

    if call.text is not None and _runs_a_patch(call.text):
        from gateway.hostcalls.performed import performed_by_shell_patch

        notes = performed_by_shell_patch(scope, call)
        return Answer("context", " ".join(notes)) if notes else PASS
    root = watch_root(call)
    if root is None or call.text is None:
        return PASS
    gate = scope.call_gate()
    exempt = kept_as_is(call.text)
    try:
        review = after_command(gate, root, call.key, exempt is None)
    except (GatewayError, OSError, ValueError) as error:
        return Answer("context", f"The gateway could not check what the shell command changed: {error}.")
    if review is None:  # no record: the check was off before the command, or the record could not be made
        if gate.config.shell == "off":
            return PASS
        return Answer("context", "The gateway could not check what the shell command changed: it has no record of the "
                                 "workspace's source files from before the command ran.")
    if review.structural:
        return _report(call, review, exempt, review.setting == "put_back")
    unjudged = _unjudged(review)
    return Answer("context", f"The shell command changed source files the gateway did not judge: {unjudged}.") if unjudged else PASS


def _unjudged(review: Review) -> str:
    """The files left unjudged, and why ("" for none)."""
    from gateway import shell_changes

    named = [f"{c.path} ({c.unjudged})" for c in review.changes if c.unjudged is not None]
    shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
    if review.unjudged:
        past = f"{review.unjudged} more source files (past the {shell_changes.MAX_JUDGED} files or {shell_changes.JUDGE_SECONDS:.0f} s judged per command)"
        shown = f"{shown}; {past}" if shown else past
    return shown


def _describe(d: TouchedDefinition) -> str:
    named = f"{d.kind} `{d.name_path}`"
    if d.change == "removed":
        return f"(it was at line {d.line}): removed {named}"
    return f"line {d.line}: " + {"added": f"added {named}", "header": f"changed the header of {named}",
                                 "renamed": f"renamed {named} to `{d.new_name_path}`",
                                 "shadowed": f"took away {named} without deleting it ({d.detail})"}[d.change]


def _definition_lines(review: Review) -> list[str]:
    lines = []
    for change in review.structural:
        if change.syntax_error is not None:
            problem = change.syntax_error
            lines.append(f"- {change.path} line {problem.line}: introduced a syntax error (column {problem.column}: {problem.what})")
        lines += [f"- {change.path} {_describe(d)}" for d in change.definitions]
    if len(lines) > MOST_LINES:
        lines[MOST_LINES:] = [f"- and {len(lines) - MOST_LINES} more"]
    return lines


def _report(call: HookCall, review: Review, exempt: str | None, gate_mode_put_back: bool) -> Answer:
    command = call.text if call.text is not None and len(call.text) <= 200 else f"{(call.text or '')[:200]}…"
    did = "changed definitions" if any(c.definitions for c in review.structural) else "introduced a syntax error"
    if review.put_back or review.not_put_back:
        head = (f"The shell command `{command}` {did} outside the gate, so the gateway put those changes back "
                f"([gate] shell = \"put_back\"); the rest of what it wrote stays:")
    elif exempt:
        head = f"The shell command `{command}` ({exempt}) {did}; nothing verified the result (no language server checked it):"
    else:
        head = (f"The shell command `{command}` {did} outside the gate. These changes went unverified: the gateway "
                f"did not judge them before they were written, and no language server checked them:")
    parts = [head, *_definition_lines(review)]
    if review.put_back:
        parts.append("Put back: " + "; ".join(f"{path} ({how})" for path, how in review.put_back.items()) + ".")
    if review.not_put_back:
        parts.append("Could not put back: " + "; ".join(f"{path} ({why})" for path, why in review.not_put_back.items()) + ".")
    if exempt and gate_mode_put_back:
        parts.append(f"Kept as written: {exempt} is reported, never put back.")
    others = [c.path for c in review.changes if not c.structural and c.unjudged is None]
    unjudged = _unjudged(review)
    if others:
        parts.append(f"It also changed {len(others)} other source file(s) without changing definitions: {', '.join(others[:5])}"
                     f"{', …' if len(others) > 5 else ''}.")
    if unjudged:
        parts.append(f"Not judged: {unjudged}.")
    if exempt:
        return Answer("context", "\n".join(parts))
    tools = call.edit_tools or "the host's edit tools"
    parts.append(f"Change definitions with {tools} or {MCP_TOOLS} instead: the gateway judges those before anything is "
                 "written and performs definition changes as verified symbol operations.")
    return Answer("context", "\n".join(parts))
