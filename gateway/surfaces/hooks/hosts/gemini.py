"""Gemini CLI: its BeforeTool and AfterTool hooks, its settings, its user's excluded tools and
plan mode, and its trusted folders (its sandbox runs the whole CLI, the gateway's hooks
included, in a container without the gateway, so it is not configured).

`replace {file_path, instruction, old_string, new_string, allow_multiple}`, `write_file
{file_path, content}` and `run_shell_command {command}`. A rewrite goes back as the whole tool
input in `hookSpecificOutput.tool_input` (Gemini builds the call from it alone); a refusal as
`decision: deny`. Gemini's replace falls back to fuzzy matching and a model "fixer" when
old_string is not found exactly; the gate judges exact matches, so such an edit is refused.
The hook's thin client imports this module: what it needs is imported where it is used."""

from __future__ import annotations

from gateway.surfaces.hooks.registry import Host, register

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gateway.hostcalls import Answer, HookCall
    from gateway.surfaces.hooks.host_configs import Commands, ConfigFile
    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.trust import HookTrust

MATCHER = "replace|write_file|run_shell_command"
EDIT_TOOLS = {"replace", "write_file", "edit", "EditTool", "WriteFileTool"}


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    from gateway.errors import UsageError
    from gateway.hostcalls import Edit, HookCall
    from gateway.surfaces.hooks.payloads import cwd_of, named_tool, path_in, text_of

    named = named_tool(payload, event, "AfterTool")
    if named is None:
        return None
    tool, when = named
    if tool not in ("replace", "write_file", "run_shell_command"):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    cwd, project = cwd_of(payload, context), context.get("project_dir")
    if tool == "run_shell_command":
        command = text_of(tool_input.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, project, text=command, key=f"{payload.get('session_id')}\0{command}")
    path = path_in(cwd, tool_input.get("file_path"), "file_path")
    if tool == "write_file":
        return HookCall(when, "write", tool, cwd, project, path=path, content=text_of(tool_input.get("content"), "content"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, project, path=path)
    edit = Edit(text_of(tool_input.get("old_string"), "old_string"), text_of(tool_input.get("new_string"), "new_string"),
                bool(tool_input.get("allow_multiple")))
    return HookCall(when, "edit", tool, cwd, project, path=path, edits=(edit,))


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action in ("deny", "block"):
        return {"decision": "deny", "reason": answer.reason}
    if answer.action == "rewrite":
        tool_input = dict(payload["tool_input"])
        if answer.content is not None:
            tool_input["content"] = answer.content
        else:
            assert answer.edit is not None
            tool_input.update(old_string=answer.edit.old, new_string=answer.edit.new, allow_multiple=False)
        return {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": tool_input}}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "AfterTool", "additionalContext": answer.reason}}
    return None


def _system_settings() -> Path:
    import os
    from pathlib import Path

    return Path(os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")


def _settings_files(workspace: Path, user: bool) -> list[Path]:
    """The settings files whose `hooksConfig.enabled` holds for this install: the system's (it
    overrides), the project's (for a project install) and the user's (a project's `true` would
    override the user's `false`)."""
    from gateway.surfaces.hooks.host_settings import home

    return [_system_settings(), *([] if user else [workspace / ".gemini" / "settings.json"]), home() / ".gemini" / "settings.json"]


def _hooks_turned_off(path: Path) -> bool:
    from gateway.surfaces.hooks.host_settings import json_settings

    hooks = json_settings(path).get("hooksConfig")
    return isinstance(hooks, dict) and hooks.get("enabled") is False


def _config_files(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    from gateway.surfaces.hooks import host_configs as c

    settings = (c.home() / ".gemini" if user else workspace / ".gemini") / "settings.json"
    events = {"BeforeTool": ("pre", MATCHER), "AfterTool": ("post", MATCHER), "SessionStart": ("start", None), "SessionEnd": ("stop", None)}
    hooks = c.hook_entries({event: c.matched(matcher, {"type": "command", "name": c.SERVER, "command": commands.hook.get(kind, ""),
                                                       "timeout": c.HOOK_TIMEOUT_SECONDS * 1000})
                            for event, (kind, matcher) in events.items()})
    server = c.mcp_server(commands, ".", **({"trust": True} if allow_mcp else {}))
    notes = [] if user else ["Gemini CLI runs project hooks only in a trusted folder"]
    turned_off = [path for path in _settings_files(workspace, user) if _hooks_turned_off(path)]
    if turned_off:  # the user's choice stands: said plainly, never flipped
        notes.append(f"hooksConfig.enabled is false in {turned_off[0]} and stays so: Gemini CLI will not run the gateway's hooks, "
                     "and will write edits unjudged, until you set it to true")
    enabled = [] if turned_off else [c.flag(("hooksConfig", "enabled"), True)]
    return [c.json_file(settings, c.all_of(hooks, *enabled, c.keyed(("mcpServers",), server)), "; ".join(notes))]


def _denies(workspace: Path, argv: list[str]) -> list[Deny]:
    """`tools.exclude` / `excludeTools` naming `replace` or `write_file`, a `tools.core` without
    them, and plan mode (`--approval-mode plan`, `general.defaultApprovalMode`)."""
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.host_settings import flag_values, home, json_settings, table

    defaults = Path(os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or "/etc/gemini-cli/system-defaults.json")
    found: list[Deny] = []
    modes = flag_values(argv, ("--approval-mode",))
    for path in (defaults, home() / ".gemini" / "settings.json", workspace / ".gemini" / "settings.json", _system_settings()):
        data = json_settings(path)
        tools = table(data, "tools")
        for key, listed in (("tools.exclude", tools.get("exclude")), ("excludeTools", data.get("excludeTools"))):
            named = sorted(EDIT_TOOLS & {item for item in listed if isinstance(item, str)}) if isinstance(listed, list) else []
            found += [Deny(f"{name} in {key} of {path}") for name in named]
        core = tools.get("core", data.get("coreTools"))
        if isinstance(core, list) and core and not EDIT_TOOLS & {item for item in core if isinstance(item, str)}:
            found.append(Deny(f"tools.core of {path} leaves out replace and write_file"))
        general = data.get("general")
        if not modes and "--yolo" not in argv and "-y" not in argv and isinstance(general, dict) and general.get("defaultApprovalMode") == "plan":
            found.append(Deny(f"general.defaultApprovalMode plan in {path}"))
    return found + ([Deny("--approval-mode plan")] if modes[-1:] == ["plan"] else [])


def _trust_rule(workspace: Path, rules: dict[str, Any]) -> str | None:
    """The trust level of the longest rule covering the workspace (TRUST_PARENT covers its rule's parent)."""
    from pathlib import Path

    from gateway.surfaces.hooks.trust import within

    matched = [(len(path), level) for path, level in rules.items()
               if within(workspace.resolve(), [(Path(path).parent if level == "TRUST_PARENT" else Path(path)).resolve()])]
    return max(matched)[1] if matched else None


def _trust(workspace: Path, user: bool) -> HookTrust:
    """With `security.folderTrust.enabled` (the default), Gemini loads a project's settings only
    where `~/.gemini/trustedFolders.json` trusts it (the longest matching rule wins)."""
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.trust import HookTrust, home, read_json

    gemini_home = home() / ".gemini"
    settings = read_json(gemini_home / "settings.json")
    folder_trust = settings.get("security", {}).get("folderTrust", {}).get("enabled", True) if isinstance(settings, dict) else True
    forced = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if user or folder_trust is False or forced == "true":
        return HookTrust("gemini", "runs", "Gemini CLI runs these hooks without asking for folder trust")
    record = Path(os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH") or gemini_home / "trustedFolders.json")
    rules = read_json(record)
    level = _trust_rule(workspace, rules) if isinstance(rules, dict) and forced != "false" else None
    if level in ("TRUST_FOLDER", "TRUST_PARENT"):
        return HookTrust("gemini", "runs", f"Gemini CLI trusts {workspace} ({record}): edits are judged")
    why = f"{record} distrusts {workspace}" if level == "DO_NOT_TRUST" else f"{record} does not trust {workspace} yet"
    return HookTrust("gemini", "off" if level == "DO_NOT_TRUST" else "asks", (
        f"Gemini CLI loads a project's hooks and MCP servers only in a trusted folder, and {why}: until then edits are NOT judged "
        "and nothing of the gateway runs to say so. Start `gemini` there and trust the folder when it asks, or with `/permissions trust` "
        "(`gemini -p` never asks: it skips them)"))


register(Host(
    "gemini", events={"BeforeTool": "pre", "AfterTool": "post", "SessionStart": "start", "SessionEnd": "stop"},
    project_env="GEMINI_PROJECT_DIR", file_fields=(("tool_input", "file_path"),), edit_style="gemini",
    edit_tools="the replace and write_file tools", to_call=to_call, reply=reply, config_files=_config_files,
    process_names=("gemini", "gemini-cli"), denies=_denies, trust=_trust,
    no_sandbox="Gemini CLI's sandbox runs the whole CLI, the gateway's hooks included, in a container without the gateway",
))
