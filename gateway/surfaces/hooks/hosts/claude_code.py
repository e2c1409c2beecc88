"""Claude Code: its PreToolUse and PostToolUse hook (and what GitHub Copilot CLI sends to the
same hook from `.claude/settings.json`: its own argument names, `path`/`old_str`/`new_str` and
`path`/`file_text`, and a patch string for `apply_patch`), its settings, its user's denies, its
trust record and its sandbox.

The adapter only translates. A routed write goes back as `updatedInput` with no permission
decision, so the user's rules and the permission mode decide as they would without the
gateway; only a refusal is a deny. What a routed write did is said at PostToolUse, once the
file holds it. Claude Code's Edit (and Copilot's edit) with an empty new_string also deletes
the newline after the text it removes, and the gate judges exactly that. The hook's thin client
imports this module: what it needs is imported where it is used.
"""

from __future__ import annotations

from gateway.surfaces.hooks.registry import Host, register

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gateway.hostcalls import Answer, Edit, HookCall
    from gateway.surfaces.hooks.host_configs import Commands, ConfigFile
    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.trust import HookTrust

EDIT_TOOLS = ("Edit", "MultiEdit", "Write", "NotebookEdit")
MATCHERS = {"PreToolUse": "Edit|MultiEdit|Write|NotebookEdit|Bash", "PostToolUse": "Edit|MultiEdit|Write|Bash"}
# (path, old, new, content) as Claude Code names them, and as Copilot CLI does.
CLAUDE_NAMES = ("file_path", "old_string", "new_string", "content")
COPILOT_NAMES = ("path", "old_str", "new_str", "file_text")


def _names(tool_input: dict[str, Any]) -> tuple[str, str, str, str]:
    return COPILOT_NAMES if "file_path" not in tool_input and "path" in tool_input else CLAUDE_NAMES


def _edits(tool: str, tool_input: dict[str, Any], names: tuple[str, ...]) -> tuple[Edit, ...]:
    from gateway.errors import UsageError
    from gateway.hostcalls import Edit
    from gateway.surfaces.hooks.payloads import text_of

    if tool == "Edit":
        return (Edit(text_of(tool_input.get(names[1]), names[1]), text_of(tool_input.get(names[2]), names[2]),
                     bool(tool_input.get("replace_all"))),)
    edits = tool_input.get("edits")
    if not isinstance(edits, list) or not edits or not all(isinstance(e, dict) for e in edits):
        raise UsageError("tool_input.edits must be a non-empty list of objects")
    return tuple(Edit(text_of(e.get("old_string"), f"edits[{n}].old_string"), text_of(e.get("new_string"), f"edits[{n}].new_string"),
                      bool(e.get("replace_all"))) for n, e in enumerate(edits))


def _shell_key(payload: dict[str, Any], command: str) -> str:
    use_id = payload.get("tool_use_id")
    return use_id if isinstance(use_id, str) and use_id else f"{payload.get('session_id')}\0{command}"


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    from gateway.errors import UsageError
    from gateway.hostcalls import HookCall
    from gateway.surfaces.hooks.payloads import cwd_of, named_tool, path_in, text_of

    named = named_tool(payload, event, "PostToolUse")
    if named is None:
        return None
    tool, when = named
    cwd, project, tool_input = cwd_of(payload, context), context.get("project_dir"), payload.get("tool_input")
    if tool == "Edit" and isinstance(tool_input, str):  # Copilot's apply_patch, named Edit
        return HookCall(when, "patch", tool, cwd, project, text=text_of(tool_input, "patch"))
    if tool not in (*EDIT_TOOLS, "Bash"):
        return None
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    if tool == "Bash":
        command = text_of(tool_input.get("command"), "command")
        return HookCall(when, "shell", tool, cwd, project, text=command, key=_shell_key(payload, command))
    if tool == "NotebookEdit":
        return HookCall(when, "other", tool, cwd, project, path=path_in(cwd, tool_input.get("notebook_path"), "notebook_path"))
    names = _names(tool_input)
    path = path_in(cwd, tool_input.get(names[0]), names[0])
    if tool == "Write":
        return HookCall(when, "write", tool, cwd, project, path=path, content=text_of(tool_input.get(names[3]), names[3]))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, project, path=path)
    # Copilot CLI's edit deletes the newline after removed text just as Claude Code's does (seen running).
    return HookCall(when, "edit", tool, cwd, project, path=path, edits=_edits(tool, tool_input, names))


def _updated(payload: dict[str, Any], answer: Answer) -> Any:
    tool_input = payload["tool_input"]
    if isinstance(tool_input, str):
        return answer.text
    names = _names(tool_input)
    if answer.content is not None:
        return {**tool_input, names[3]: answer.content}
    assert answer.edit is not None
    edit = {names[1]: answer.edit.old, names[2]: answer.edit.new, "replace_all": False}
    return {**tool_input, **edit} if payload["tool_name"] == "Edit" else {**tool_input, "edits": [edit]}


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": answer.reason}}
    if answer.action == "rewrite":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": _updated(payload, answer)}}
    if answer.action == "block":
        return {"decision": "block", "reason": answer.reason}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": answer.reason}}
    return None


def run(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    from gateway.surfaces.hooks.run import run as host_run

    return host_run("claude-code", stdin, context)


def outcome(stdin: bytes, context: dict[str, str | None] | None = None) -> tuple[str, int]:
    from gateway.surfaces.hooks.run import outcome as host_outcome

    return host_outcome("claude-code", stdin, context)


def _config_files(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    from gateway.surfaces.hooks import host_configs as c

    settings = (c.home() / ".claude" if user else workspace / ".claude") / "settings.json"
    events = {"PreToolUse": ("pre", MATCHERS["PreToolUse"]), "PostToolUse": ("post", MATCHERS["PostToolUse"]),
              "SessionStart": ("start", None), "Stop": ("stop", None)}
    parts = [c.hook_entries({event: c.matched(matcher, {"type": "command", "command": commands.hook.get(kind, ""),
                                                        "timeout": c.HOOK_TIMEOUT_SECONDS})
                             for event, (kind, matcher) in events.items()})]
    if not user:
        parts.append(c.listed(("enabledMcpjsonServers",), c.SERVER))
    if allow_mcp:
        parts.append(c.listed(("permissions", "allow"), f"mcp__{c.SERVER}"))
    server = c.mcp_server(commands, "${CLAUDE_PROJECT_DIR:-.}")
    mcp_path = c.home() / ".claude.json" if user else workspace / ".mcp.json"
    return [c.json_file(settings, c.all_of(*parts)), c.json_file(mcp_path, c.keyed(("mcpServers",), server))]


def _settings(workspace: Path, argv: list[str]) -> list[tuple[str, dict[str, Any]]]:
    import json
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_settings import flag_values, home, json_settings

    config = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home() / ".claude")
    files = [Path("/etc/claude-code/managed-settings.json"), config / "settings.json", workspace / ".claude" / "settings.json",
             workspace / ".claude" / "settings.local.json"]
    found = [(str(path), json_settings(path)) for path in files]
    for given in flag_values(argv, ("--settings",)):
        if given.lstrip().startswith("{"):
            try:
                data = json.loads(given)
            except ValueError:
                data = {}
            found.append(("--settings", data if isinstance(data, dict) else {}))
        else:
            found.append((given, json_settings(workspace / given)))
    return found


def _denies(workspace: Path, argv: list[str]) -> list[Deny]:
    """`permissions.deny` rules `Edit`, `Write`, `MultiEdit`, `NotebookEdit`, bare or with a path
    (`Edit(src/**)`, gitignore-style), in the managed, user, project and local settings and a
    `--settings` file; `--disallowedTools`; `--permission-mode plan`."""
    import re

    from gateway.surfaces.hooks.host_denies import Deny, gitignore_covers
    from gateway.surfaces.hooks.host_settings import flag_values

    edit_rule = re.compile(r"^(Edit|Write|MultiEdit|NotebookEdit)(?:\((.*)\))?$")
    rules: list[tuple[str, str]] = []
    modes = flag_values(argv, ("--permission-mode",))
    for where, data in _settings(workspace, argv):
        permissions = data.get("permissions")
        if not isinstance(permissions, dict):
            continue
        rules += [(str(rule), f"{rule} in permissions.deny of {where}") for rule in permissions.get("deny") or [] if isinstance(rule, str)]
        if not modes and permissions.get("defaultMode") == "plan":
            modes = ["plan"]
    for value in flag_values(argv, ("--disallowedTools", "--disallowed-tools"), many=True):
        rules += [(rule, f"{rule} in --disallowedTools") for rule in re.findall(r"[^\s,(]+(?:\([^)]*\))?", value)]
    found = [Deny("--permission-mode plan")] if modes[-1:] == ["plan"] else []
    for rule, source in rules:
        match = edit_rule.match(rule.strip())
        if match:
            spec = (match.group(2) or "").strip()
            found.append(Deny(source, None if spec in ("", "*", "**", "/**", "//**") else gitignore_covers(spec, workspace)))
    return found


def _trust(workspace: Path, user: bool) -> HookTrust:
    """Claude Code runs hooks of an interactive session only once its trust dialog was accepted
    (`projects[<dir or a parent>].hasTrustDialogAccepted` in `~/.claude.json`); `-p` skips the check."""
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.trust import HookTrust, home, read_json, within

    record = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home()) / ".claude.json"
    data = read_json(record)
    projects = data.get("projects", {}) if isinstance(data, dict) else {}
    accepted = [Path(path) for path, project in projects.items() if isinstance(project, dict) and project.get("hasTrustDialogAccepted")]
    if within(workspace, accepted):
        return HookTrust("claude-code", "runs", f"Claude Code trusts {workspace} ({record}): edits are judged")
    return HookTrust("claude-code", "asks", (
        f"Claude Code asks whether to trust {workspace} when you start it there, and runs the hooks once you accept "
        "(`claude -p` runs them without asking)"))


def _sandbox_settings(workspace: Path, user: bool) -> Path:
    from gateway.surfaces.hooks.host_configs import home

    return (home() / ".claude" / "settings.json") if user else workspace / ".claude" / "settings.local.json"


def _sandbox(workspace: Path, user: bool) -> list[ConfigFile]:
    """`sandbox.enabled` with `filesystem.denyWrite`, bubblewrap and socat on Linux;
    `allowUnsandboxedCommands: false` so that the model cannot ask to run a command outside it,
    `failIfUnavailable: true` so that a missing sandbox stops the host instead of running bare."""
    import json

    from gateway.surfaces.hooks.host_configs import JsonEntries, json_file
    from gateway.surfaces.hooks.sandboxes import state

    def merge(data: dict[str, Any]) -> None:
        git_dir = workspace / ".git"
        deny = [state()] + ([str(git_dir / "hooks"), str(git_dir / "config")] if git_dir.is_dir() else [])
        data["sandbox"] = {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False, "filesystem": {"denyWrite": deny}}

    def strip(data: dict[str, Any]) -> None:
        if isinstance(data.get("sandbox"), dict) and state() in json.dumps(data["sandbox"]):
            del data["sandbox"]

    return [json_file(_sandbox_settings(workspace, user), JsonEntries(merge, strip),
                      "Claude Code's sandbox (bubblewrap and socat on Linux) keeps the agent's shell out of " + state())]


def _enforcement(workspace: Path) -> tuple[str, str]:
    import os
    import shutil

    from gateway.surfaces.hooks.host_configs import home
    from gateway.surfaces.hooks.sandboxes import bubblewrap_problem, read_json, state

    sandbox: dict[str, Any] = {}
    for path in (home() / ".claude" / "settings.json", workspace / ".claude" / "settings.json", workspace / ".claude" / "settings.local.json"):
        found = read_json(path).get("sandbox")
        if isinstance(found, dict):
            sandbox = {**sandbox, **found}
    if sandbox.get("enabled") is not True:
        return "advisory", "no sandbox configured; `gateway hook install claude-code --enforce` configures it"
    denied = sandbox.get("filesystem", {}).get("denyWrite", []) if isinstance(sandbox.get("filesystem"), dict) else []
    at = os.path.realpath(state())
    if not any(isinstance(d, str) and (at + "/").startswith(os.path.realpath(os.path.expanduser(d)).rstrip("/") + "/") for d in denied):
        return "advisory", f"the sandbox does not deny writes to {at}"
    if sandbox.get("allowUnsandboxedCommands") is not False:
        return "advisory", "the sandbox lets the model run commands outside it (allowUnsandboxedCommands is not false)"
    problem = bubblewrap_problem() or ("socat not on PATH (apt-get install socat)" if shutil.which("socat") is None else None)
    if problem:
        return "advisory", f"the sandbox cannot run here: {problem}"
    return "sandboxed", f"Claude Code's sandbox denies the agent's shell writes to {at}"


register(Host(
    "claude-code", events={"PreToolUse": "pre", "PostToolUse": "post", "SessionStart": "start", "Stop": "stop", "SubagentStop": "stop",
                           "SessionEnd": "stop"},
    project_env="CLAUDE_PROJECT_DIR", file_fields=(("tool_input", "file_path"), ("tool_input", "path")), edit_style="claude",
    edit_tools="the Edit and Write tools", to_call=to_call, reply=reply, deny_on_error=True, config_files=_config_files,
    process_names=("claude",), denies=_denies, trust=_trust, sandbox=_sandbox, enforcement=_enforcement, program_env="CLAUDE_PROJECT_DIR",
))
