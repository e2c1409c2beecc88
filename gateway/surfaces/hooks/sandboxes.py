"""The hosts' sandboxes around the agent's shell, configured so that it cannot write the gateway's
state (the signing key, the baseline, the kept bytes, the audit log), and whether enforcement
is sandboxed or only advisory on this machine.

Without a sandbox the agent's shell runs as the user: it can read the key and rewrite or remove
any of that state, so typed-edit enforcement is advisory (tampering is detected and refuses
every write, but a thorough enough command erases the traces too). With one, the shell cannot
touch the state at all. What each host offers (checked in the shipped 2.1.197 / 0.169.0 /
0.61.0 packages):

- Claude Code: `sandbox.enabled` with `filesystem.denyWrite`, bubblewrap and socat on Linux;
  `allowUnsandboxedCommands: false` so that the model cannot ask to run a command outside it,
  `failIfUnavailable: true` so that a missing sandbox stops the host instead of running bare.
- Codex CLI: `sandbox_mode = "workspace-write"` (bubblewrap on Linux): only the project, /tmp
  and $TMPDIR are writable; /tmp and $TMPDIR are excluded when the state lives under them.
- Gemini CLI: its sandbox runs the whole CLI, hooks included, in a docker/podman container
  image without the gateway, so it is not configured; Copilot CLI and OpenCode have none.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.surfaces.hooks.host_configs import HOSTS, Commands, ConfigFile, JsonEntries, config_files, json_file
from gateway.userstate import state_home

CODEX_START = "# >>> gateway sandbox: added by `gateway hook install codex --enforce`; uninstall removes this block"
CODEX_END = "# <<< gateway sandbox"
WITHOUT = {
    "gemini": "Gemini CLI's sandbox runs the whole CLI, the gateway's hooks included, in a container without the gateway",
    "copilot": "Copilot CLI has no sandbox for its shell",
    "opencode": "OpenCode has no sandbox for its shell",
}


@dataclass(frozen=True)
class Enforcement:
    """One host's enforcement on this machine: "sandboxed" or "advisory", and why."""

    host: str
    installed: bool
    mode: str
    why: str

    def line(self) -> str:
        return f"{self.host}: {'hook installed' if self.installed else 'not installed'}; enforcement {self.mode} ({self.why})"


def _home() -> Path:
    return Path(os.environ.get("HOME") or Path.home())


def _state() -> str:
    return str(state_home())


def _claude_settings(workspace: Path, user: bool) -> Path:
    return (_home() / ".claude" / "settings.json") if user else workspace / ".claude" / "settings.local.json"


def _claude_sandbox(workspace: Path) -> dict[str, Any]:
    git_dir = workspace / ".git"
    deny = [_state()] + ([str(git_dir / "hooks"), str(git_dir / "config")] if git_dir.is_dir() else [])
    return {"enabled": True, "failIfUnavailable": True, "allowUnsandboxedCommands": False,
            "filesystem": {"denyWrite": deny}}


def _claude(workspace: Path, user: bool) -> ConfigFile:
    def merge(data: dict[str, Any]) -> None:
        data["sandbox"] = _claude_sandbox(workspace)

    def strip(data: dict[str, Any]) -> None:
        if isinstance(data.get("sandbox"), dict) and _state() in json.dumps(data["sandbox"]):
            del data["sandbox"]

    return json_file(_claude_settings(workspace, user), JsonEntries(merge, strip),
                     "Claude Code's sandbox (bubblewrap and socat on Linux) keeps the agent's shell out of " + _state())


def _under_temp(path: str) -> tuple[bool, bool]:
    """Whether `path` lies under /tmp, and under $TMPDIR (Codex's writable roots besides the project)."""
    real = os.path.realpath(path)
    tmpdir = os.environ.get("TMPDIR") or tempfile.gettempdir()
    inside = [real == os.path.realpath(root) or real.startswith(os.path.realpath(root).rstrip("/") + "/") for root in ("/tmp", tmpdir)]
    return inside[0], inside[1]


def _codex_block() -> str:
    slash_tmp, tmpdir = _under_temp(_state())
    lines = [CODEX_START, 'sandbox_mode = "workspace-write"']
    if slash_tmp:
        lines.append("sandbox_workspace_write.exclude_slash_tmp = true")
    if tmpdir:
        lines.append("sandbox_workspace_write.exclude_tmpdir_env_var = true")
    return "\n".join([*lines, CODEX_END]) + "\n"


def _without_codex_block(text: str) -> str:
    start = text.find(CODEX_START)
    end = text.find(CODEX_END + "\n", start)
    return text if start < 0 or end < 0 else text[:start] + text[end + len(CODEX_END) + 1:]


def _codex_path(workspace: Path, user: bool) -> Path:
    return (Path(os.environ.get("CODEX_HOME") or _home() / ".codex") if user else workspace / ".codex") / "config.toml"


def _codex(workspace: Path, user: bool) -> ConfigFile:
    """A block at the top of the file: `sandbox_mode` is a top-level key, before every table."""
    path = _codex_path(workspace, user)

    def add(text: str | None) -> str:
        from gateway.errors import UsageError

        base = _without_codex_block(text or "")
        try:
            if "sandbox_mode" in tomllib.loads(base):
                raise UsageError(f"{path}: already sets sandbox_mode; set it to \"workspace-write\" by hand, or remove it first")
            merged = _codex_block() + base
            tomllib.loads(merged)
        except tomllib.TOMLDecodeError as error:
            raise UsageError(f"{path}: the sandbox settings cannot be added to it ({error}); add them by hand") from None
        return merged

    def bare(text: str | None) -> object:
        try:
            return tomllib.loads(_without_codex_block(text or ""))
        except tomllib.TOMLDecodeError:
            return text

    return ConfigFile(path, add, lambda text: _without_codex_block(text) or None, bare,
                      "Codex's workspace-write sandbox keeps the agent's shell out of " + _state())


def sandbox_files(host: str, workspace: Path, user: bool) -> list[ConfigFile]:
    """What `hook install HOST --enforce` adds: the host's sandbox settings, where it has a sandbox."""
    if host == "claude-code":
        return [_claude(workspace, user)]
    if host == "codex":
        return [_codex(workspace, user)]
    return []


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _installed(host: str, workspace: Path) -> bool:
    for user in (False, True):
        for file in config_files(host, workspace, user, Commands(host, "gateway", {}), False):
            try:
                if f" hook {host}" in file.path.read_text("utf-8") or file.path.suffix == ".js" and file.path.exists():
                    return True
            except (OSError, UnicodeDecodeError):
                continue
    return False


def _bubblewrap_problem() -> str | None:
    """Why bubblewrap (the Linux sandbox of Claude Code and Codex CLI) cannot run here; None when
    a trial run of it works."""
    program = shutil.which("bwrap")
    if program is None:
        return "bwrap not on PATH (apt-get install bubblewrap)"
    try:
        done = subprocess.run([program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"], capture_output=True,
                              timeout=10, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap does not run ({error})"
    return None if done.returncode == 0 else f"bwrap does not run ({done.stderr.decode('utf-8', 'replace').strip()[:200]})"


def _claude_mode(workspace: Path) -> tuple[str, str]:
    sandbox: dict[str, Any] = {}
    for path in (_home() / ".claude" / "settings.json", workspace / ".claude" / "settings.json", workspace / ".claude" / "settings.local.json"):
        found = _read_json(path).get("sandbox")
        if isinstance(found, dict):
            sandbox = {**sandbox, **found}
    if sandbox.get("enabled") is not True:
        return "advisory", "no sandbox configured; `gateway hook install claude-code --enforce` configures it"
    denied = sandbox.get("filesystem", {}).get("denyWrite", []) if isinstance(sandbox.get("filesystem"), dict) else []
    state = os.path.realpath(_state())
    if not any(isinstance(d, str) and (state + "/").startswith(os.path.realpath(os.path.expanduser(d)).rstrip("/") + "/") for d in denied):
        return "advisory", f"the sandbox does not deny writes to {state}"
    if sandbox.get("allowUnsandboxedCommands") is not False:
        return "advisory", "the sandbox lets the model run commands outside it (allowUnsandboxedCommands is not false)"
    problem = _bubblewrap_problem() or ("socat not on PATH (apt-get install socat)" if shutil.which("socat") is None else None)
    if problem:
        return "advisory", f"the sandbox cannot run here: {problem}"
    return "sandboxed", f"Claude Code's sandbox denies the agent's shell writes to {state}"


def _codex_mode(workspace: Path) -> tuple[str, str]:
    mode, excluded = None, {}
    for path in (_codex_path(workspace, True), _codex_path(workspace, False)):
        try:
            data = tomllib.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            continue
        mode = data.get("sandbox_mode", mode)
        excluded |= data.get("sandbox_workspace_write", {}) if isinstance(data.get("sandbox_workspace_write"), dict) else {}
    if mode not in ("workspace-write", "read-only"):
        return "advisory", f"sandbox_mode is {mode or 'not set'}; `gateway hook install codex --enforce` sets workspace-write"
    state = os.path.realpath(_state())
    slash_tmp, tmpdir = _under_temp(state)
    if mode == "workspace-write" and (Path(state).is_relative_to(os.path.realpath(workspace)) or (slash_tmp and not excluded.get("exclude_slash_tmp"))
                                      or (tmpdir and not excluded.get("exclude_tmpdir_env_var"))):
        return "advisory", f"{state} is inside a root the workspace-write sandbox leaves writable"
    problem = _bubblewrap_problem()
    if problem:
        return "advisory", f"the sandbox cannot run here: {problem}"
    return "sandboxed", f"Codex's {mode} sandbox leaves {state} read-only to the agent's shell (unless Codex runs with --dangerously-bypass-approvals-and-sandbox)"


def enforcement(workspace: Path) -> list[Enforcement]:
    """Each host's enforcement mode in `workspace` on this machine."""
    found = []
    for host in HOSTS:
        if host == "claude-code":
            mode, why = _claude_mode(workspace)
        elif host == "codex":
            mode, why = _codex_mode(workspace)
        else:
            mode, why = "advisory", WITHOUT[host]
        found.append(Enforcement(host, _installed(host, workspace), mode, why))
    return found
