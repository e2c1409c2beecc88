"""The hosts' sandboxes around the agent's shell, configured so that it cannot write the gateway's
state (the signing key, the baseline, the kept bytes, the audit log), and whether enforcement
is sandboxed or only advisory on this machine.

Without a sandbox the agent's shell runs as the user: it can read the key and rewrite or remove
any of that state, so typed-edit enforcement is advisory (tampering is detected and refuses
every write, but a thorough enough command erases the traces too). With one, the shell cannot
touch the state at all. Each host's module says what its host offers (`Host.sandbox`,
`Host.enforcement`, or `Host.no_sandbox`: why it has none): Claude Code's and Codex CLI's
bubblewrap sandboxes are configured; Gemini CLI's runs the whole CLI in a container without the
gateway; Copilot CLI and OpenCode have none. What they share is here."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.surfaces.hooks import registry
from gateway.surfaces.hooks.host_configs import Commands, ConfigFile, config_files
from gateway.userstate import state_home

@dataclass(frozen=True)
class Enforcement:
    """One host's enforcement on this machine: "sandboxed" or "advisory", and why."""

    host: str
    installed: bool
    mode: str
    why: str

    def line(self) -> str:
        return f"{self.host}: {'hook installed' if self.installed else 'not installed'}; enforcement {self.mode} ({self.why})"


def state() -> str:
    return str(state_home())


def sandbox_files(host: str, workspace: Path, user: bool) -> list[ConfigFile]:
    """What `hook install HOST --enforce` adds: the host's sandbox settings, where it has a sandbox."""
    found = registry.host(host)
    return found.sandbox(workspace, user) if found is not None and found.sandbox is not None else []


def read_json(path: Path) -> dict[str, Any]:
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


def bubblewrap_problem() -> str | None:
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


def enforcement(workspace: Path) -> list[Enforcement]:
    """Each host's enforcement mode in `workspace` on this machine."""
    found = []
    for name, host in registry.hosts().items():
        mode, why = host.enforcement(workspace) if host.enforcement is not None else ("advisory", host.no_sandbox)
        found.append(Enforcement(name, _installed(name, workspace), mode, why))
    return found


def enforcement_lines(root: Path) -> list[str]:
    """One line per host whose hook is installed: enforcement sandboxed or advisory, and why."""
    found = [e for e in enforcement(root) if e.installed]
    return [f"enforcement for {e.host}: {e.mode} ({e.why})" for e in found] or ["enforcement: no host hook installed here"]
