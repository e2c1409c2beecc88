"""Codex CLI: its PreToolUse and PostToolUse hooks, its config.toml, its sandbox as its user's
deny, its trust records (project and hooks) and its workspace-write sandbox.

Edits arrive as `apply_patch` with the patch in `tool_input.command`, or as a Bash command that
runs `apply_patch <<'EOF'`. A rewrite goes back as `updatedInput.command` with
`permissionDecision: allow` (Codex applies `updatedInput` only with it, and has no "ask"); a
refusal as `permissionDecision: deny` with its reason. Context for the model goes in
PostToolUse's `additionalContext`. The hook's thin client imports this module: what it needs
is imported where it is used.
"""

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

MATCHER = "apply_patch|Bash"
BLOCK_START = "# >>> gateway: added by `gateway hook install codex`; `gateway hook uninstall codex` removes this block"
BLOCK_END = "# <<< gateway"
SANDBOX_START = "# >>> gateway sandbox: added by `gateway hook install codex --enforce`; uninstall removes this block"
SANDBOX_END = "# <<< gateway sandbox"
TRUST_START = "Start `codex` in {ws}"


def to_call(payload: dict[str, Any], context: dict[str, str | None], event: str | None) -> HookCall | None:
    from gateway.errors import UsageError
    from gateway.hostcalls import HookCall
    from gateway.surfaces.hooks.payloads import cwd_of, named_tool, text_of

    named = named_tool(payload, event, "PostToolUse")
    if named is None:
        return None
    tool, when = named
    if tool not in ("apply_patch", "Bash"):
        return None
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise UsageError("tool_input must be an object")
    command = text_of(tool_input.get("command"), "command")
    cwd = cwd_of(payload, context)
    if tool == "apply_patch":
        return HookCall(when, "patch", tool, cwd, text=command)
    use_id = payload.get("tool_use_id")
    return HookCall(when, "shell", tool, cwd, text=command, key=use_id if isinstance(use_id, str) and use_id else command)


def reply(payload: dict[str, Any], call: HookCall | None, answer: Answer) -> dict[str, Any] | None:
    if answer.action == "deny":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                       "permissionDecisionReason": answer.reason}}
    if answer.action == "rewrite":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                       "updatedInput": {**payload["tool_input"], "command": answer.text}}}
    if answer.action == "block":
        return {"decision": "block", "reason": answer.reason}
    if answer.action == "context":
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": answer.reason}}
    return None


def codex_home() -> Path:
    import os
    from pathlib import Path

    from gateway.surfaces.hooks.host_settings import home

    return Path(os.environ.get("CODEX_HOME") or home() / ".codex")


def _config_path(workspace: Path, user: bool) -> Path:
    return (codex_home() if user else workspace / ".codex") / "config.toml"


def _block(commands: Commands, allow_mcp: bool, user: bool) -> str:
    import json

    from gateway.surfaces.hooks.host_configs import HOOK_TIMEOUT_SECONDS, MCP_STARTUP_SECONDS, SERVER

    lines = [BLOCK_START]
    for event, kind, matcher in (("PreToolUse", "pre", MATCHER), ("PostToolUse", "post", MATCHER), ("SessionStart", "start", None),
                                 ("Stop", "stop", None)):
        lines.append(f"[[hooks.{event}]]")
        if matcher:
            lines.append(f"matcher = {json.dumps(matcher)}")  # a JSON string is a valid TOML basic string
        lines += [f"[[hooks.{event}.hooks]]", 'type = "command"', f"command = {json.dumps(commands.hook.get(kind, ''))}",
                  f"timeout = {HOOK_TIMEOUT_SECONDS}"]
    lines += [f"[mcp_servers.{SERVER}]", f"command = {json.dumps(commands.mcp)}", f"args = {json.dumps(commands.mcp_args('.'))}"]
    if not user:  # Codex then waits for the server before the first request, so its instructions (a
        # notice when the hooks are not trusted) reach the session's start; a missing gateway stops it
        lines += ["required = true", f"startup_timeout_sec = {MCP_STARTUP_SECONDS}"]
    if allow_mcp:
        lines.append('default_tools_approval_mode = "approve"')
    return "\n".join([*lines, BLOCK_END]) + "\n"


def _without_block(text: str) -> str:
    start = text.find(BLOCK_START)
    if start < 0:
        return text
    end = text.find(BLOCK_END + "\n", start)
    return text[:start] + (text[end + len(BLOCK_END) + 1:] if end >= 0 else "")


def _config_files(workspace: Path, user: bool, commands: Commands, allow_mcp: bool) -> list[ConfigFile]:
    """One delimited block in config.toml (TOML has no writer in the standard library, and a block comes out exactly)."""
    import tomllib

    from gateway.errors import UsageError
    from gateway.surfaces.hooks.host_configs import SERVER, ConfigFile

    path = _config_path(workspace, user)

    def add(text: str | None) -> str:
        base = _without_block(text or "")
        merged = base + ("\n" if base and not base.endswith("\n") else "") + _block(commands, allow_mcp, user)
        try:
            if SERVER in tomllib.loads(base).get("mcp_servers", {}):
                raise UsageError(f"{path}: already has [mcp_servers.{SERVER}]; remove it first")
            tomllib.loads(merged)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(f"{path}: the gateway's hooks cannot be added to it ({error}); add them by hand") from None
        return merged

    def remove(text: str) -> str | None:
        return _without_block(text) or None

    def bare(text: str | None) -> object:
        try:
            return tomllib.loads(_without_block(text or ""))
        except tomllib.TOMLDecodeError:
            return text

    return [ConfigFile(path, add, remove, bare)]


def _toml_value(text: str) -> Any:
    import tomllib

    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def _sandbox_mode(workspace: Path, argv: list[str]) -> tuple[str | None, str]:
    """(the sandbox mode Codex runs with, where it is set); None where nothing sets one."""
    from gateway.surfaces.hooks.host_settings import flag_values, table, toml_settings

    overrides = {key: value for key, _, value in (item.partition("=") for item in flag_values(argv, ("-c", "--config")))}
    if "--dangerously-bypass-approvals-and-sandbox" in argv or "--yolo" in argv:
        return "danger-full-access", "--dangerously-bypass-approvals-and-sandbox"
    given = flag_values(argv, ("-s", "--sandbox"))
    if given:
        return given[-1], f"--sandbox {given[-1]}"
    if "sandbox_mode" in overrides:
        return str(_toml_value(overrides["sandbox_mode"])), "-c sandbox_mode"
    if "--full-auto" in argv:
        return "workspace-write", "--full-auto"
    layers = [(codex_home() / "config.toml", toml_settings(codex_home() / "config.toml")),
              (workspace / ".codex" / "config.toml", toml_settings(workspace / ".codex" / "config.toml"))]
    profile = (flag_values(argv, ("-p", "--profile")) or [None])[-1]
    mode, where = None, ""
    for path, data in layers:
        chosen = profile or data.get("profile")
        in_profile = table(table(data, "profiles"), str(chosen)).get("sandbox_mode")
        for value, key in ((data.get("sandbox_mode"), "sandbox_mode"), (in_profile, f"profiles.{chosen}.sandbox_mode")):
            if isinstance(value, str):
                mode, where = value, f"{key} in {path}"
    return mode, where


def _denies(workspace: Path, argv: list[str]) -> list[Deny]:
    """A read-only sandbox (`-s`/`--sandbox`, `-c sandbox_mode=…`, `sandbox_mode` in config.toml
    or the profile in use); where nothing sets one, Codex's default: read-only for `codex exec`
    and in a project not trusted, and so where its command line cannot be read."""
    from gateway.surfaces.hooks.host_denies import Deny
    from gateway.surfaces.hooks.host_settings import toml_settings

    mode, where = _sandbox_mode(workspace, argv)
    if mode is None:
        projects = toml_settings(codex_home() / "config.toml").get("projects")
        project = projects.get(str(workspace)) if isinstance(projects, dict) else None
        trusted = isinstance(project, dict) and project.get("trust_level") == "trusted"
        if not argv or "exec" in argv[1:] or not trusted:
            mode = "read-only"
            where = ("Codex's default (its command line could not be read)" if not argv else "codex exec's default" if "exec" in argv[1:]
                     else "Codex's default in a project not trusted")
    return [Deny(f"the read-only sandbox, {where}")] if mode == "read-only" else []


def _snake(event: str) -> str:
    import re

    return re.sub(r"(?<!^)([A-Z])", r"_\1", event).lower()


def codex_hook_hash(event: str, group: dict[str, Any], handler: dict[str, Any]) -> str:
    """Codex's trust hash of one command hook (hooks/src/engine/discovery.rs `command_hook_hash`):
    sha256 of the compact, key-sorted JSON of the normalized hook, absent fields left out."""
    import hashlib
    import json

    hook = {"type": "command", "command": handler.get("command", ""), "timeout": max(1, int(handler.get("timeout", 600))),
            "async": bool(handler.get("async", False))}
    if handler.get("statusMessage") is not None:
        hook["statusMessage"] = handler["statusMessage"]
    identity: dict[str, Any] = {"event_name": _snake(event), "hooks": [hook]}
    if group.get("matcher") is not None:
        identity["matcher"] = group["matcher"]
    text = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def codex_gateway_hooks(source: Path) -> list[tuple[str, str, str]]:
    """(event, key, hash) of each gateway hook in a Codex config file, keyed as Codex keys its trust."""
    from gateway.surfaces.hooks.trust import read_toml

    found = []
    for event, groups in read_toml(source).get("hooks", {}).items():
        for group_index, group in enumerate(groups if isinstance(groups, list) else []):
            for handler_index, handler in enumerate(group.get("hooks", [])):
                if " hook codex " in str(handler.get("command", "")):
                    key = f"{source}:{_snake(event)}:{group_index}:{handler_index}"
                    found.append((event, key, codex_hook_hash(event, group, handler)))
    return found


def _trust(workspace: Path, user: bool) -> HookTrust:
    """Codex loads a project's `.codex/config.toml` only when `[projects."<root>"] trust_level =
    "trusted"` is in `$CODEX_HOME/config.toml`, and runs a hook only when
    `[hooks.state."<file>:<event>:<group>:<handler>"] trusted_hash` there equals the hook's hash."""
    from gateway.surfaces.hooks.trust import HookTrust, git_root, read_toml

    record = codex_home() / "config.toml"
    settings = read_toml(record)
    ws = workspace
    if not user:
        # As Codex decides (config_loader `decision_for_dir`): the first of the folder and its project root with a level.
        projects = settings.get("projects", {})
        levels = [projects[key].get("trust_level") for folder in (ws, git_root(ws)) for key in dict.fromkeys((str(folder.resolve()), str(folder)))
                  if isinstance(projects.get(key), dict) and projects[key].get("trust_level")]
        if levels[:1] != ["trusted"]:
            return HookTrust("codex", "off", (
                f"Codex reads {ws}/.codex/config.toml only in a trusted project, and {record} does not trust {ws}: the gateway's "
                f"hooks and MCP server do not run and edits are NOT judged. {TRUST_START.format(ws=ws)}, choose \"Trust and continue\", "
                "then trust the gateway's hooks when it says \"Hooks need review\" (`codex exec` never asks)"))
    source = record if user else ws / ".codex" / "config.toml"
    states = settings.get("hooks", {}).get("state", {})
    pending = [event for event, key, digest in codex_gateway_hooks(source)
               if states.get(key, {}).get("enabled") is False or states.get(key, {}).get("trusted_hash") != digest]
    if not pending:
        return HookTrust("codex", "runs", f"Codex has trusted the gateway's hooks ({record}): edits are judged", mcp_runs=True)
    names = ", ".join(dict.fromkeys(pending))
    return HookTrust("codex", "off", (
        f"Codex runs a hook only once you trust it, and the gateway's {names} hooks are not trusted (or changed since) in {record}: "
        f"edits are NOT judged until you do. {TRUST_START.format(ws=ws)} and choose \"Trust all and continue\" when it says "
        "\"Hooks need review\", or trust them in /hooks (`codex exec` never asks: it skips them)"), mcp_runs=True, notice=(
        "EDITS ARE NOT JUDGED: Codex has not trusted the gateway's hooks, so a Codex session writes edits without the gate. "
        "Tell the user: start `codex` here and trust them (\"Hooks need review\" or /hooks)."))


def _notices(workspace: Path) -> list[str]:
    """The gateway's Codex hooks are installed (for the project or the user) but not trusted,
    while Codex still starts the gateway's MCP server."""
    notices: list[str] = []
    for user, source in ((False, workspace / ".codex" / "config.toml"), (True, codex_home() / "config.toml")):
        if codex_gateway_hooks(source):
            found = _trust(workspace.absolute(), user)
            notices += [found.notice] if found.notice and found.notice not in notices else []
    return notices


def _under_temp(path: str) -> tuple[bool, bool]:
    """Whether `path` lies under /tmp, and under $TMPDIR (Codex's writable roots besides the project)."""
    import os
    import tempfile

    real = os.path.realpath(path)
    tmpdir = os.environ.get("TMPDIR") or tempfile.gettempdir()
    inside = [real == os.path.realpath(root) or real.startswith(os.path.realpath(root).rstrip("/") + "/") for root in ("/tmp", tmpdir)]
    return inside[0], inside[1]


def _sandbox_block() -> str:
    from gateway.surfaces.hooks.sandboxes import state

    slash_tmp, tmpdir = _under_temp(state())
    lines = [SANDBOX_START, 'sandbox_mode = "workspace-write"']
    if slash_tmp:
        lines.append("sandbox_workspace_write.exclude_slash_tmp = true")
    if tmpdir:
        lines.append("sandbox_workspace_write.exclude_tmpdir_env_var = true")
    return "\n".join([*lines, SANDBOX_END]) + "\n"


def _without_sandbox_block(text: str) -> str:
    start = text.find(SANDBOX_START)
    end = text.find(SANDBOX_END + "\n", start)
    return text if start < 0 or end < 0 else text[:start] + text[end + len(SANDBOX_END) + 1:]


def _sandbox(workspace: Path, user: bool) -> list[ConfigFile]:
    """`sandbox_mode = "workspace-write"` (bubblewrap on Linux): only the project, /tmp and
    $TMPDIR are writable; /tmp and $TMPDIR are excluded when the state lives under them. A block
    at the top of the file: `sandbox_mode` is a top-level key, before every table."""
    import tomllib

    from gateway.errors import UsageError
    from gateway.surfaces.hooks.host_configs import ConfigFile
    from gateway.surfaces.hooks.sandboxes import state

    path = _config_path(workspace, user)

    def add(text: str | None) -> str:
        base = _without_sandbox_block(text or "")
        try:
            if "sandbox_mode" in tomllib.loads(base):
                raise UsageError(f"{path}: already sets sandbox_mode; set it to \"workspace-write\" by hand, or remove it first")
            merged = _sandbox_block() + base
            tomllib.loads(merged)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(f"{path}: the sandbox settings cannot be added to it ({error}); add them by hand") from None
        return merged

    def bare(text: str | None) -> object:
        try:
            return tomllib.loads(_without_sandbox_block(text or ""))
        except tomllib.TOMLDecodeError:
            return text

    return [ConfigFile(path, add, lambda text: _without_sandbox_block(text) or None, bare,
                       "Codex's workspace-write sandbox keeps the agent's shell out of " + state())]


def _enforcement(workspace: Path) -> tuple[str, str]:
    import os
    import tomllib
    from pathlib import Path

    from gateway.surfaces.hooks.sandboxes import bubblewrap_problem, state

    mode, excluded = None, {}
    for path in (_config_path(workspace, True), _config_path(workspace, False)):
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        mode = data.get("sandbox_mode", mode)
        excluded |= data.get("sandbox_workspace_write", {}) if isinstance(data.get("sandbox_workspace_write"), dict) else {}
    if mode not in ("workspace-write", "read-only"):
        return "advisory", f"sandbox_mode is {mode or 'not set'}; `gateway hook install codex --enforce` sets workspace-write"
    at = os.path.realpath(state())
    slash_tmp, tmpdir = _under_temp(at)
    if mode == "workspace-write" and (Path(at).is_relative_to(os.path.realpath(workspace)) or (slash_tmp and not excluded.get("exclude_slash_tmp"))
                                      or (tmpdir and not excluded.get("exclude_tmpdir_env_var"))):
        return "advisory", f"{at} is inside a root the workspace-write sandbox leaves writable"
    problem = bubblewrap_problem()
    if problem:
        return "advisory", f"the sandbox cannot run here: {problem}"
    return "sandboxed", f"Codex's {mode} sandbox leaves {at} read-only to the agent's shell (unless Codex runs with --dangerously-bypass-approvals-and-sandbox)"


register(Host(
    "codex", events={"PreToolUse": "pre", "PostToolUse": "post", "SessionStart": "start", "Stop": "stop"},
    edit_tools="the apply_patch tool", to_call=to_call, reply=reply, config_files=_config_files, process_names=("codex",),
    denies=_denies, trust=_trust, notices=_notices, sandbox=_sandbox, enforcement=_enforcement,
))
