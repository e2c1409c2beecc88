"""GitHub Copilot CLI: its own hooks (`.github/hooks/gateway.json`, or inline in the user's
settings), its settings, its user's denies on its command line and its trusted folders. (Copilot
also runs Claude Code's hooks from `.claude/settings.json`: see `claude_code`.)

`preToolUse` / `postToolUse` with camelCase payloads, `{toolName, toolArgs, cwd}`. `edit {path,
old_str, new_str}`, `create {path, file_text}`, `apply_patch` (the raw patch, for GPT-5 models)
and `bash {command}`. A rewrite goes back as `modifiedArgs` with no permission decision; a
refusal as `permissionDecision: deny`. The hook's thin client imports this module: what it needs
is imported where it is used."""

from __future__ import annotations

from gateway.surfaces.hooks.registry import Host, register

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from gateway.hostcalls import Answer, HookCall
    from gateway.surfaces.hooks.host_configs import Commands, ConfigFile
    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.trust import HookTrust

EDIT_TOOLS = {"edit", "create", "apply_patch", "write"}


def _args(payload: dict[str, Any]) -> dict[str, Any] | str:
    """toolArgs: an object, a JSON text of one, or (apply_patch) the raw patch."""
    import json

    from gateway.errors import UsageError

    args = payload.get("toolArgs")
    if isinstance(args, str) and payload.get("toolName") != "apply_patch":
        try:
            args = json.loads(args)
        except ValueError:
            raise UsageError("toolArgs is not a JSON object") from None
    if not isinstance(args, dict | str):
        raise UsageError("toolArgs must be an object")
    return args


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    from gateway.errors import UsageError
    from gateway.hostcalls import Edit, HookCall
    from gateway.surfaces.hooks.payloads import cwd_of, path_in, text_of

    tool = payload.get("toolName")
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with toolName")
    if event == "start" or tool not in ("edit", "create", "apply_patch", "bash"):
        return None
    when = "post" if event == "post" else "pre"
    cwd, args = cwd_of(payload, context), _args(payload)
    if tool == "apply_patch":
        patch = args if isinstance(args, str) else args.get("input", args.get("patch"))
        return HookCall(when, "patch", tool, cwd, text=text_of(patch, "patch"))
    if not isinstance(args, dict):
        raise UsageError("toolArgs must be an object")
    if tool == "bash":
        command = text_of(args.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, text=command, key=f"{payload.get('sessionId')}\0{command}")
    path = path_in(cwd, args.get("path"), "path")
    if tool == "create":
        return HookCall(when, "write", tool, cwd, path=path, content=text_of(args.get("file_text"), "file_text"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, path=path)
    edit = Edit(text_of(args.get("old_str"), "old_str"), text_of(args.get("new_str"), "new_str"))
    return HookCall(when, "edit", tool, cwd, path=path, edits=(edit,))  # its edit deletes the newline too (seen running: edit_style)


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"permissionDecision": "deny", "permissionDecisionReason": answer.reason}
    if answer.action == "rewrite":
        args = _args(payload)
        if isinstance(args, str):
            return {"modifiedArgs": answer.text}
        if answer.content is not None:
            return {"modifiedArgs": {**args, "file_text": answer.content}}
        assert answer.edit is not None
        return {"modifiedArgs": {**args, "old_str": answer.edit.old, "new_str": answer.edit.new}}
    if answer.action in ("block", "context"):
        return {"additionalContext": answer.reason}
    return None


def _copilot_home() -> Path:
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_settings import home

    return Path(os.environ.get("COPILOT_HOME") or home() / ".copilot")


def _config_files(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    import json

    from gateway.errors import UsageError
    from gateway.surfaces.hooks import host_configs as c

    if allow_mcp:
        raise UsageError("Copilot CLI takes tool permissions on its command line: run it with --allow-tool gateway")
    hooks = {name: {"type": "command", "bash": commands.hook.get(event, ""), "cwd": ".", "timeoutSec": c.HOOK_TIMEOUT_SECONDS}
             for name, event in (("preToolUse", "pre"), ("postToolUse", "post"), ("sessionStart", "start"), ("sessionEnd", "stop"))}
    server = c.mcp_server(commands, ".")
    if user:
        home = _copilot_home()
        return [c.json_file(home / "settings.json", c.hook_entries(hooks)), c.json_file(home / "mcp-config.json", c.keyed(("mcpServers",), server))]
    note = "Copilot CLI runs project hooks only in a trusted folder"
    return [c.whole_file(workspace / ".github" / "hooks" / "gateway.json",
                         json.dumps({"version": 1, "hooks": {name: [hook] for name, hook in hooks.items()}}, indent=2) + "\n", note),
            c.json_file(workspace / ".github" / "mcp.json", c.keyed(("mcpServers",), server))]


def _write_rule(spec: str) -> Callable[[Path | None], bool]:
    """`write(PATH)`: an absolute path covers that file or directory; a relative one any path ending in it."""
    import os
    from pathlib import Path

    tail = Path(spec).parts

    def covers(path: Path | None) -> bool:
        if path is None:
            return True
        full = os.path.abspath(path)
        if os.path.isabs(spec):
            return full == os.path.abspath(spec) or full.startswith(os.path.abspath(spec).rstrip("/") + "/")
        return Path(full).parts[-len(tail):] == tail

    return covers


def _denies(workspace: Path, argv: list[str]) -> list[Deny]:
    """`--deny-tool write` or `write(PATH)`, `--excluded-tools` / `--available-tools` leaving out its edit tools."""
    import re

    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.host_settings import flag_values

    found: list[Deny] = []
    for value in flag_values(argv, ("--deny-tool",), many=True):
        for rule in re.findall(r"[^\s,(]+(?:\([^)]*\))?", value):
            match = re.fullmatch(r"write(?:\((.*)\))?", rule)
            if match:
                spec = (match.group(1) or "").strip()
                found.append(Deny(f"--deny-tool {rule}", _write_rule(spec) if spec else None))
    excluded = {word for value in flag_values(argv, ("--excluded-tools",), many=True) for word in re.split(r"[\s,]+", value)}
    found += [Deny(f"--excluded-tools {name}") for name in sorted(EDIT_TOOLS & excluded)]
    available = [word for value in flag_values(argv, ("--available-tools",), many=True) for word in re.split(r"[\s,]+", value) if word]
    if available and not EDIT_TOOLS & set(available):
        found.append(Deny("--available-tools leaves out edit and create"))
    return found


def _trust(workspace: Path, user: bool) -> HookTrust:
    """Copilot reads a folder's hooks and MCP servers only when the folder or a parent is in
    `trustedFolders` (or `trusted_folders`) of `$COPILOT_HOME/config.json`."""
    from pathlib import Path

    from gateway.surfaces.hooks.trust import HookTrust, read_json, within

    if user:
        return HookTrust("copilot", "runs", "Copilot CLI runs hooks of ~/.copilot/settings.json in every folder")
    record = _copilot_home() / "config.json"
    data = read_json(record)
    listed = [*data.get("trustedFolders", []), *data.get("trusted_folders", [])] if isinstance(data, dict) else []
    if within(workspace, [Path(folder) for folder in listed if isinstance(folder, str)]):
        return HookTrust("copilot", "runs", f"Copilot CLI trusts {workspace} ({record}): edits are judged")
    return HookTrust("copilot", "asks", (
        f"Copilot CLI loads a folder's hooks and MCP servers only once you trust the folder, and {record} does not trust {workspace}: "
        "until then edits are NOT judged and nothing of the gateway runs to say so. Start `copilot` there and answer \"Yes, and "
        "remember this folder for future sessions\" (`copilot -p` never asks: it skips them silently)"))


register(Host(
    "copilot", events={"preToolUse": "pre", "postToolUse": "post", "sessionStart": "start", "sessionEnd": "stop"},
    edit_style="claude", edit_tools="the edit and create tools (apply_patch with GPT-5 models)",
    to_call=to_call, reply=reply, deny_on_error=True, config_files=_config_files, process_names=("copilot",), denies=_denies,
    trust=_trust, no_sandbox="Copilot CLI has no sandbox for its shell",
))
