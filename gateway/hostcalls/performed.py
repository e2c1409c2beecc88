"""What a host's write did, told after it: the notes of the routed (and verified) writes the
hook remembered before the host wrote (`pending`), taken once the file on disk is what was
planned; for an edit, a write, a patch, or a patch run through the shell (Codex)."""

from __future__ import annotations

from dataclasses import replace

from gateway.hostcalls.call import HookCall
from gateway.hostcalls.scope import Scope


def performed(scope: Scope, call: HookCall) -> list[str]:
    """The notes of the routed writes this call has performed; on a warm engine, its server is
    asked about each such file now, in the background, so the next write to it is planned
    without waiting for that."""
    from gateway.hostcalls.pending import take
    from gateway.textfile import decode, encoding_rule

    paths = [call.path] if call.path is not None else []
    if call.kind == "patch" and call.text is not None:
        from gateway.hostcalls.patches import patch_paths

        paths = patch_paths(scope, call)
    notes, gate = [], scope.call_gate()
    for path in paths:
        try:
            data = gate.read(path)
            if data is None:
                continue
            text = decode(data, str(path), encoding_rule(path, None, data))[0]
        except Exception:  # noqa: BLE001 - an unreadable file gets no note, never a failed hook
            continue
        note = take(path, [text, text.replace("\r\n", "\n")])
        if note:
            notes.append(note)
            if scope.given is not None and path.is_relative_to(scope.given.workspace.root):
                scope.given.symbol_service.ahead(path, text)
    return notes


def performed_by_shell_patch(scope: Scope, call: HookCall) -> list[str]:
    """`performed` for a shell command that applies a patch (`apply_patch <<'EOF'`), its paths
    relative to the directory the command changes to."""
    from gateway.patch import extract_heredoc

    found = extract_heredoc(call.text or "")
    if found is None:
        return []
    directory, patch = found
    patch_call = replace(call, kind="patch", text=patch, cwd=call.cwd / directory if directory else call.cwd)
    inner = Scope(scope.given, patch_call)
    try:
        return performed(inner, patch_call)
    finally:
        inner.close()
