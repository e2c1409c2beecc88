"""Whether the user of the host that runs `gateway mcp --host HOST` denied that host's own edit
tools, for a path: read at each write, from where each host takes it.

- Claude Code: `permissions.deny` rules `Edit`, `Write`, `MultiEdit`, `NotebookEdit`, bare or
  with a path (`Edit(src/**)`, gitignore-style), in the managed, user, project and local
  settings and a `--settings` file; `--disallowedTools`; `--permission-mode plan`.
- OpenCode: `permission` (`"deny"`, `{edit: "deny"}`, `{edit: {glob: action}}`, the last match
  winning, with `ask` a refusal too: these tools cannot ask), the running agent's own, in the
  global, `OPENCODE_CONFIG`, project and `.opencode` configs, `OPENCODE_CONFIG_CONTENT` and
  `OPENCODE_PERMISSION`; `tools.edit` / `tools.write` false.
- Gemini CLI: `tools.exclude` / `excludeTools` naming `replace` or `write_file`, a `tools.core`
  without them, and plan mode (`--approval-mode plan`, `general.defaultApprovalMode`).
- Copilot CLI: `--deny-tool write` or `write(PATH)`, `--excluded-tools` / `--available-tools`
  leaving out its edit tools.
- Codex CLI: a read-only sandbox (`-s`/`--sandbox`, `-c sandbox_mode=…`, `sandbox_mode` in
  config.toml or the profile in use; `codex exec`'s default).

Command-line flags are read from the host's process (/proc, Linux); where it cannot be found,
only the files are read."""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.surfaces.hooks.host_settings import flag_values, home, host_process, json_settings, jsonc, toml_settings

# The names under which each host's process is found among the MCP server's ancestors.
PROCESS_NAMES = {"claude-code": ("claude",), "copilot": ("copilot",), "gemini": ("gemini", "gemini-cli"), "codex": ("codex",),
                 "opencode": ("opencode", ".opencode")}
CLAUDE_EDIT_RULE = re.compile(r"^(Edit|Write|MultiEdit|NotebookEdit)(?:\((.*)\))?$")
GEMINI_EDIT_TOOLS = {"replace", "write_file", "edit", "EditTool", "WriteFileTool"}
COPILOT_EDIT_TOOLS = {"edit", "create", "apply_patch", "write"}


@dataclass(frozen=True)
class Deny:
    """One rule of the user's that denies the host's edits: on every path (`covers` None) or on
    the paths `covers` accepts; `source` says which rule, where."""

    source: str
    covers: Callable[[Path | None], bool] | None = None

    def denies(self, paths: Iterable[Path] | None) -> bool:
        """Whether it denies a write to `paths` (None: the files are not known before the write,
        and `covers(None)` says whether the rule may deny some file)."""
        if self.covers is None:
            return True
        return self.covers(None) if paths is None else any(self.covers(path) for path in paths)


def refusal(host: str, workspace: Path, paths: list[Path] | None) -> str | None:
    """Why the user's rules refuse a gateway write to `paths`, or None: the rules of `host`, and
    those of the host found running the server where that is another (Copilot CLI runs the
    server Claude Code's install registers)."""
    running = host_process(PROCESS_NAMES)
    hosts = {host: running[1] if running and running[0] == host else [], **({running[0]: running[1]} if running else {})}
    for name, argv in hosts.items():
        for rule in READERS[name](workspace, argv):
            if rule.denies(paths):
                what = "this write" if rule.covers is None else "a file this write may change" if paths is None else "this file"
                return (f"{name}'s own edit tools are denied for {what} ({rule.source}), so the gateway's MCP tools do not write it "
                        "either; ask the user")
    return None


def _glob_regex(pattern: str) -> str:
    """A gitignore-style glob as a regex: `**` crosses directories, `*` and `?` do not."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append("[^/]*" if pattern[i] == "*" else "[^/]" if pattern[i] == "?" else re.escape(pattern[i]))
            i += 1
    return "".join(out)


def gitignore_covers(pattern: str, base: Path) -> Callable[[Path | None], bool]:
    """Claude Code's path rules: `//abs`, `~/from-home`, `/from-the-project`, `rel` or `./rel`
    (from the project); a pattern with no slash but a trailing one matches at any depth; a
    match on a directory covers what is under it."""
    anchored = "/" in pattern.rstrip("/")
    if pattern.startswith("//"):
        base, pattern = Path("/"), pattern[2:]
    elif pattern.startswith("~/"):
        base, pattern = home(), pattern[2:]
    pattern = pattern.removeprefix("./").lstrip("/").rstrip("/")
    regex = re.compile(_glob_regex(pattern) if anchored else "(?:.*/)?" + _glob_regex(pattern))

    def covers(path: Path | None) -> bool:
        if path is None:
            return True
        try:
            relative = Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(base)))
        except ValueError:
            return False
        parts = relative.parts
        return any(regex.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1))

    return covers


def _claude_settings(workspace: Path, argv: list[str]) -> list[tuple[str, dict[str, Any]]]:
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


def _claude(workspace: Path, argv: list[str]) -> list[Deny]:
    rules: list[tuple[str, str]] = []
    modes = flag_values(argv, ("--permission-mode",))
    for where, data in _claude_settings(workspace, argv):
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
        match = CLAUDE_EDIT_RULE.match(rule.strip())
        if match:
            spec = (match.group(2) or "").strip()
            found.append(Deny(source, None if spec in ("", "*", "**", "/**", "//**") else gitignore_covers(spec, workspace)))
    return found


def _opencode_wildcard(pattern: str) -> re.Pattern[str]:
    """OpenCode's wildcard: `*` any run of characters (slashes too), `?` one."""
    return re.compile("".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern), re.DOTALL)


def _opencode_configs(workspace: Path) -> list[tuple[str, dict[str, Any]]]:
    """OpenCode's configs, in the order it merges them (a later one overrides)."""
    config_home = Path(os.environ.get("XDG_CONFIG_HOME") or home() / ".config") / "opencode"
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


def _opencode_rules(permission: Any, where: str) -> list[tuple[str, str, str, str]]:
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


def _opencode(workspace: Path, argv: list[str]) -> list[Deny]:
    agent = (flag_values(argv, ("--agent",)) or ["build"])[-1]
    rules: list[tuple[str, str, str, str]] = []
    found: list[Deny] = []
    for where, data in _opencode_configs(workspace):
        rules += _opencode_rules(data.get("permission"), where)
        agents = data.get("agent")
        own = agents.get(agent) if isinstance(agents, dict) else None
        if isinstance(own, dict):
            rules += _opencode_rules(own.get("permission"), f"agent {agent} of {where}")
        tools = data.get("tools")
        found += [Deny(f"tools.{name} false in {where}") for name in ("edit", "write") if isinstance(tools, dict) and tools.get(name) is False]
    edit_rules = [(_opencode_wildcard(glob), action, source) for name, glob, action, source in rules if _opencode_wildcard(name).fullmatch("edit")]
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


def _gemini(workspace: Path, argv: list[str]) -> list[Deny]:
    system = Path(os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH") or "/etc/gemini-cli/settings.json")
    defaults = Path(os.environ.get("GEMINI_CLI_SYSTEM_DEFAULTS_PATH") or "/etc/gemini-cli/system-defaults.json")
    found: list[Deny] = []
    modes = flag_values(argv, ("--approval-mode",))
    for path in (defaults, home() / ".gemini" / "settings.json", workspace / ".gemini" / "settings.json", system):
        data = json_settings(path)
        tools = _table(data, "tools")
        for key, listed in (("tools.exclude", tools.get("exclude")), ("excludeTools", data.get("excludeTools"))):
            named = sorted(GEMINI_EDIT_TOOLS & {item for item in listed if isinstance(item, str)}) if isinstance(listed, list) else []
            found += [Deny(f"{name} in {key} of {path}") for name in named]
        core = tools.get("core", data.get("coreTools"))
        if isinstance(core, list) and core and not GEMINI_EDIT_TOOLS & {item for item in core if isinstance(item, str)}:
            found.append(Deny(f"tools.core of {path} leaves out replace and write_file"))
        general = data.get("general")
        if not modes and "--yolo" not in argv and "-y" not in argv and isinstance(general, dict) and general.get("defaultApprovalMode") == "plan":
            found.append(Deny(f"general.defaultApprovalMode plan in {path}"))
    return found + ([Deny("--approval-mode plan")] if modes[-1:] == ["plan"] else [])


def _copilot_write_rule(spec: str) -> Callable[[Path | None], bool]:
    """`write(PATH)`: an absolute path covers that file or directory; a relative one any path ending in it."""
    tail = Path(spec).parts

    def covers(path: Path | None) -> bool:
        if path is None:
            return True
        full = os.path.abspath(path)
        if os.path.isabs(spec):
            return full == os.path.abspath(spec) or full.startswith(os.path.abspath(spec).rstrip("/") + "/")
        return Path(full).parts[-len(tail):] == tail

    return covers


def _copilot(workspace: Path, argv: list[str]) -> list[Deny]:
    found: list[Deny] = []
    for value in flag_values(argv, ("--deny-tool",), many=True):
        for rule in re.findall(r"[^\s,(]+(?:\([^)]*\))?", value):
            match = re.fullmatch(r"write(?:\((.*)\))?", rule)
            if match:
                spec = (match.group(1) or "").strip()
                found.append(Deny(f"--deny-tool {rule}", _copilot_write_rule(spec) if spec else None))
    excluded = {word for value in flag_values(argv, ("--excluded-tools",), many=True) for word in re.split(r"[\s,]+", value)}
    found += [Deny(f"--excluded-tools {name}") for name in sorted(COPILOT_EDIT_TOOLS & excluded)]
    available = [word for value in flag_values(argv, ("--available-tools",), many=True) for word in re.split(r"[\s,]+", value) if word]
    if available and not COPILOT_EDIT_TOOLS & set(available):
        found.append(Deny("--available-tools leaves out edit and create"))
    return found


def _table(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _toml_value(text: str) -> Any:
    try:
        return tomllib.loads(f"value = {text}")["value"]
    except tomllib.TOMLDecodeError:
        return text


def _codex_sandbox(workspace: Path, argv: list[str]) -> tuple[str | None, str]:
    """(the sandbox mode Codex runs with, where it is set); None where nothing sets one."""
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
    codex_home = Path(os.environ.get("CODEX_HOME") or home() / ".codex")
    layers = [(codex_home / "config.toml", toml_settings(codex_home / "config.toml")),
              (workspace / ".codex" / "config.toml", toml_settings(workspace / ".codex" / "config.toml"))]
    profile = (flag_values(argv, ("-p", "--profile")) or [None])[-1]
    mode, where = None, ""
    for path, data in layers:
        chosen = profile or data.get("profile")
        in_profile = _table(_table(data, "profiles"), str(chosen)).get("sandbox_mode")
        for value, key in ((data.get("sandbox_mode"), "sandbox_mode"), (in_profile, f"profiles.{chosen}.sandbox_mode")):
            if isinstance(value, str):
                mode, where = value, f"{key} in {path}"
    return mode, where


def _codex(workspace: Path, argv: list[str]) -> list[Deny]:
    """A read-only sandbox; where nothing sets one, Codex's default: read-only for `codex exec`
    and in a project not trusted, and so where its command line cannot be read."""
    mode, where = _codex_sandbox(workspace, argv)
    if mode is None:
        codex_home = Path(os.environ.get("CODEX_HOME") or home() / ".codex")
        projects = toml_settings(codex_home / "config.toml").get("projects")
        project = projects.get(str(workspace)) if isinstance(projects, dict) else None
        trusted = isinstance(project, dict) and project.get("trust_level") == "trusted"
        if not argv or "exec" in argv[1:] or not trusted:
            mode = "read-only"
            where = ("Codex's default (its command line could not be read)" if not argv else "codex exec's default" if "exec" in argv[1:]
                     else "Codex's default in a project not trusted")
    return [Deny(f"the read-only sandbox, {where}")] if mode == "read-only" else []


READERS: dict[str, Callable[[Path, list[str]], list[Deny]]] = {
    "claude-code": _claude, "opencode": _opencode, "gemini": _gemini, "copilot": _copilot, "codex": _codex,
}
