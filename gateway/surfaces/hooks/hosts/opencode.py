"""OpenCode: what the gateway's plugin (`opencode_plugin.js`, installed into
`.opencode/plugins/`) sends from `tool.execute.before` / `tool.execute.after`, its config, and
its user's `permission` settings (it has no trust step and no sandbox).

`{hook_event_name, tool, args, cwd, session_id, call_id}`. `edit {filePath, oldString,
newString, replaceAll}`, `write {filePath, content}`, `apply_patch {patchText}` (GPT-5 models)
and `bash {command}`. The answer is `{action: "deny", reason}` (the plugin throws, which OpenCode
shows the model as the tool's result), `{action: "rewrite", args}` (the plugin assigns them
into the host's own args object) or `{action: "context", text}` (appended to the output). The
hook's thin client imports this module: what it needs is imported where it is used."""

from __future__ import annotations

from gateway.surfaces.hooks.registry import Host, register

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from pathlib import Path
    from typing import Any

    from gateway.hostcalls import Answer, HookCall
    from gateway.surfaces.hooks.host_configs import Commands, ConfigFile
    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.trust import HookTrust


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    from gateway.errors import UsageError
    from gateway.hostcalls import Edit, HookCall
    from gateway.surfaces.hooks.payloads import cwd_of, path_in, text_of

    tool, name = payload.get("tool"), payload.get("hook_event_name")
    if not isinstance(tool, str):
        raise UsageError("hook input must be a JSON object with tool")
    if tool not in ("edit", "write", "apply_patch", "bash"):
        return None
    args = payload.get("args")
    if not isinstance(args, dict):
        raise UsageError("args must be an object")
    when = "post" if name == "tool.execute.after" or event == "post" else "pre"
    cwd = cwd_of(payload, context)
    if tool == "apply_patch":
        return HookCall(when, "patch", tool, cwd, text=text_of(args.get("patchText"), "patchText"))
    if tool == "bash":
        command = text_of(args.get("command"), "command")
        key = payload.get("call_id")
        return HookCall(when, "shell", tool, cwd, text=command, key=key if isinstance(key, str) and key else command)
    path = path_in(cwd, args.get("filePath"), "filePath")
    if tool == "write":
        return HookCall(when, "write", tool, cwd, path=path, content=text_of(args.get("content"), "content"))
    if when == "post":
        return HookCall(when, "edit", tool, cwd, path=path)
    edit = Edit(text_of(args.get("oldString"), "oldString"), text_of(args.get("newString"), "newString"), bool(args.get("replaceAll")))
    return HookCall(when, "edit", tool, cwd, path=path, edits=(edit,))


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"action": "deny", "reason": answer.reason}
    if answer.action == "rewrite":
        if answer.text is not None:
            return {"action": "rewrite", "args": {"patchText": answer.text}}
        if answer.content is not None:
            return {"action": "rewrite", "args": {"content": answer.content}}
        assert answer.edit is not None
        return {"action": "rewrite", "args": {"oldString": answer.edit.old, "newString": answer.edit.new, "replaceAll": False}}
    if answer.action in ("block", "context"):
        return {"action": "context", "text": answer.reason}
    return None


def _config_home() -> Path:
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_settings import home

    return Path(os.environ.get("XDG_CONFIG_HOME") or home() / ".config") / "opencode"


def _config_files(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    from pathlib import Path

    from gateway.surfaces.hooks import host_configs as c

    base = _config_home() if user else workspace / ".opencode"
    plugin = (Path(__file__).parent / "opencode_plugin.js").read_text("utf-8").replace("__GATEWAY_PROGRAM__", commands.mcp)
    config = (base if user else workspace) / "opencode.json"
    server = {"type": "local", "command": [commands.mcp, *commands.mcp_args(".")], "enabled": True}
    note = "OpenCode allows MCP tools without asking unless its permission settings say otherwise" if allow_mcp else ""
    return [c.whole_file(base / "plugins" / "gateway.js", plugin), c.json_file(config, c.keyed(("mcp",), server), note)]


def _wildcard(pattern: str) -> re.Pattern[str]:
    """OpenCode's wildcard: `*` any run of characters (slashes too), `?` one."""
    import re

    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def _configs(workspace: Path) -> list[tuple[str, dict[str, Any]]]:
    """OpenCode's configs, in the order it merges them (a later one overrides)."""
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_settings import json_settings, jsonc

    config_home = _config_home()
    paths = [config_home / name for name in ("config.json", "opencode.json", "opencode.jsonc")]
    paths += [Path(os.environ["OPENCODE_CONFIG"])] if os.environ.get("OPENCODE_CONFIG") else []
    paths += [directory / name for directory in (*reversed(workspace.parents), workspace) for name in ("opencode.json", "opencode.jsonc")]
    paths += [workspace / ".opencode" / name for name in ("opencode.json", "opencode.jsonc")]
    paths += [Path(os.environ["OPENCODE_CONFIG_DIR"]) / "opencode.json"] if os.environ.get("OPENCODE_CONFIG_DIR") else []
    found = [(str(path), json_settings(path)) for path in dict.fromkeys(paths)]
    for variable in ("OPENCODE_CONFIG_CONTENT", "OPENCODE_PERMISSION"):
        try:
            data = jsonc(os.environ[variable]) if os.environ.get(variable) else None
        except ValueError:
            data = None
        if data is not None:
            found.append((variable, {"permission": data} if variable == "OPENCODE_PERMISSION" else data if isinstance(data, dict) else {}))
    return found


def _rules(permission: Any, where: str) -> list[tuple[str, str, str, str]]:
    """(permission pattern, path pattern, action, source) of one `permission` value, in order."""
    if isinstance(permission, str):
        return [("*", "*", permission, f'permission "{permission}" in {where}')]
    if not isinstance(permission, dict):
        return []
    rules = []
    for name, value in permission.items():
        if isinstance(value, str):
            rules.append((name, "*", value, f'permission.{name} "{value}" in {where}'))
        elif isinstance(value, dict):
            rules += [(name, glob, action, f'permission.{name} "{glob}": "{action}" in {where}') for glob, action in value.items()
                      if isinstance(action, str)]
    return rules


def _denies(workspace: Path, argv: list[str]) -> list[Deny]:
    """`permission` (`"deny"`, `{edit: "deny"}`, `{edit: {glob: action}}`, the last match winning,
    with `ask` a refusal too: these tools cannot ask), the running agent's own, in the global,
    `OPENCODE_CONFIG`, project and `.opencode` configs, `OPENCODE_CONFIG_CONTENT` and
    `OPENCODE_PERMISSION`; `tools.edit` / `tools.write` false."""
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.host_settings import flag_values

    agent = (flag_values(argv, ("--agent",)) or ["build"])[-1]
    rules: list[tuple[str, str, str, str]] = []
    found: list[Deny] = []
    for where, data in _configs(workspace):
        rules += _rules(data.get("permission"), where)
        agents = data.get("agent")
        own = agents.get(agent) if isinstance(agents, dict) else None
        if isinstance(own, dict):
            rules += _rules(own.get("permission"), f"agent {agent} of {where}")
        tools = data.get("tools")
        found += [Deny(f"tools.{name} false in {where}") for name in ("edit", "write") if isinstance(tools, dict) and tools.get(name) is False]
    edit_rules = [(_wildcard(glob), action, source) for name, glob, action, source in rules if _wildcard(name).fullmatch("edit")]
    if not any(action in ("deny", "ask") for _, action, _ in edit_rules):
        return found

    def covers(path: Path | None) -> bool:
        """The last rule matching the path decides; with no path, whether a refusing rule
        follows the last one that allows every path."""
        if path is None:
            after = [action for glob, action, _ in edit_rules][max((n for n, (glob, action, _) in enumerate(edit_rules)
                                                                  if glob.pattern == ".*" and action == "allow"), default=-1) + 1:]
            return any(action in ("deny", "ask") for action in after)
        try:
            relative = Path(os.path.abspath(path)).relative_to(os.path.abspath(workspace)).as_posix()
        except ValueError:
            relative = os.path.abspath(path)
        last = [action for glob, action, _ in edit_rules if glob.fullmatch(relative)][-1:]
        return last in (["deny"], ["ask"])

    sources = sorted({source for _, action, source in edit_rules if action in ("deny", "ask")})
    return [*found, Deny("; ".join(sources) + "; the gateway's tools cannot ask", covers)]


def _trust(workspace: Path, user: bool) -> HookTrust:
    from gateway.surfaces.hooks.trust import HookTrust

    return HookTrust("opencode", "runs", "OpenCode loads the plugin without a trust step")


register(Host(
    "opencode", events={"tool.execute.before": "pre", "tool.execute.after": "post", "session.idle": "stop"},
    file_fields=(("args", "filePath"),), edit_tools="the edit and write tools (apply_patch with GPT-5 models)",
    to_call=to_call, reply=reply, config_files=_config_files, process_names=("opencode", ".opencode"), denies=_denies,
    trust=_trust, no_sandbox="OpenCode has no sandbox for its shell",
))
