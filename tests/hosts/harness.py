"""The real agent-host CLIs, driven headless against the scripted model (`model_server`).

`HostSession(host, workspace, tmp_path)` gives the host an isolated HOME (and XDG, Codex and
Copilot homes), a clean environment with no telemetry or updates, and its base configuration
pointing at the scripted model; the gateway's own install runs in between, with
`session.env`; `session.run(steps)` runs the host once and returns what it printed and
what it sent the model. A host that cannot start fails the test; nothing is skipped.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.hosts.model_server import ScriptedModel, Step, tool_results

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = ROOT / ".tools" / "hosts" / "node_modules" / ".bin"
HOSTS = ("claude-code", "copilot", "gemini", "codex", "opencode")
MODELS = {"claude-code": "claude-sonnet-4-5", "copilot": "gpt-4.1", "gemini": "gemini-2.5-pro", "codex": "gpt-5.5", "opencode": "fake/m1"}


@dataclass(frozen=True)
class HostRun:
    returncode: int
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]
    tool_results: list[str]


class HostSession:
    def __init__(self, host: str, workspace: Path, tmp_path: Path, bypass_hook_trust: bool = True) -> None:
        """`bypass_hook_trust=False` runs Codex as a user does: a hook runs only once trusted in its `/hooks`."""
        assert host in HOSTS, host
        self.host, self.workspace, self.bypass_hook_trust = host, workspace, bypass_hook_trust
        self.home = tmp_path / f"home-{host}"
        for directory in (".config", ".cache", ".local/share", ".local/state", ".codex", ".copilot", ".gemini"):
            (self.home / directory).mkdir(parents=True, exist_ok=True)
        self.model = ScriptedModel([])
        self.env = self._environment()
        getattr(self, f"_configure_{host.replace('-', '_')}")()

    def _environment(self) -> dict[str, str]:
        home = str(self.home)
        path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/local/bin", "/usr/bin", "/bin"])
        env = {"PATH": path, "HOME": home, "USER": "gateway-test", "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "CI": "1",
               "XDG_CONFIG_HOME": f"{home}/.config", "XDG_CACHE_HOME": f"{home}/.cache", "XDG_DATA_HOME": f"{home}/.local/share",
               "XDG_STATE_HOME": f"{home}/.local/state", "CODEX_HOME": f"{home}/.codex", "COPILOT_HOME": f"{home}/.copilot",
               "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
               # PYTHONPATH; the daemon's runtime directory, or no daemon (tests/starts.py `hosts`)
               **{name: os.environ[name] for name in ("PYTHONPATH", "XDG_RUNTIME_DIR", "GATEWAY_NO_DAEMON") if name in os.environ}}
        url = self.model.url
        extra = {
            "claude-code": {"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                            "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1", "IS_SANDBOX": "1"},
            "copilot": {"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false", "COPILOT_PROVIDER_BASE_URL": f"{url}/v1",
                        "COPILOT_PROVIDER_TYPE": "openai", "COPILOT_PROVIDER_API_KEY": "x", "COPILOT_MODEL": MODELS["copilot"]},
            "gemini": {"GOOGLE_GEMINI_BASE_URL": url, "GEMINI_API_KEY": "x", "GEMINI_CLI_NO_RELAUNCH": "true"},
            "codex": {"FAKE_API_KEY": "x"},
            "opencode": {"OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
                         "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1", "OPENCODE_DISABLE_CLAUDE_CODE": "1"},
        }[self.host]
        return {**env, **extra}

    def _write_json(self, path: Path, data: dict[str, Any]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2) + "\n")

    def _configure_claude_code(self) -> None:
        self._write_json(self.home / ".claude.json", {"hasCompletedOnboarding": True, "bypassPermissionsModeAccepted": True})

    def _configure_copilot(self) -> None:
        self._write_json(self.home / ".copilot" / "config.json", {"trusted_folders": [str(self.workspace)]})

    def _configure_gemini(self) -> None:
        self._write_json(self.home / ".gemini" / "settings.json", {
            "hooksConfig": {"enabled": True},
            "security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": False}},
            "telemetry": {"enabled": False}, "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        })

    def _configure_codex(self) -> None:
        (self.home / ".codex" / "config.toml").write_text(
            f'model = "{MODELS["codex"]}"\nmodel_provider = "fake"\n\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{self.model.url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_API_KEY"\n\n'
            f'[features]\nhooks = true\n\n[projects."{self.workspace}"]\ntrust_level = "trusted"\n'
        )

    def _configure_opencode(self) -> None:
        for directory in (self.home / ".config" / "opencode", self.workspace / ".opencode"):
            _link_opencode_dependencies(directory)
        models = {"m1": {"name": "m1", "tool_call": True}, "gpt-5.5": {"name": "gpt-5.5", "tool_call": True}}
        self._write_json(self.home / ".config" / "opencode" / "opencode.json", {
            "$schema": "https://opencode.ai/config.json", "autoupdate": False, "share": "disabled",
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "fake",
                                  "options": {"baseURL": f"{self.model.url}/v1", "apiKey": "x"}, "models": models}},
        })

    def command(self, prompt: str, model: str | None, permission_mode: str | None, extra_args: tuple[str, ...]) -> list[str]:
        model = model or MODELS[self.host]
        if self.host == "claude-code":
            return [str(BIN / "claude"), "-p", prompt, "--output-format", "json", "--model", model,
                    "--permission-mode", permission_mode or "default", *extra_args]
        if self.host == "copilot":
            return [str(BIN / "copilot"), "-p", prompt, "--allow-all-tools", "--model", model, *extra_args]
        if self.host == "gemini":
            return [str(BIN / "gemini"), "-m", model, "--yolo", "-p", prompt, *extra_args]
        if self.host == "codex":
            bypass = ("--dangerously-bypass-hook-trust",) if self.bypass_hook_trust else ()
            return [str(BIN / "codex"), "exec", "--skip-git-repo-check", *bypass, "--dangerously-bypass-approvals-and-sandbox", "-m", model, "-C", str(self.workspace), *extra_args, prompt]
        return [str(BIN / "opencode"), "run", "--model", model, *extra_args, prompt]

    def run(self, steps: list[Step], prompt: str = "Make the change.", model: str | None = None, permission_mode: str | None = None,
            extra_args: tuple[str, ...] = (), timeout: float = 150) -> HostRun:
        self.model.steps[:] = steps
        self.model.requests.clear()
        if self.host == "copilot" and model:
            self.env["COPILOT_MODEL"] = model
        process = subprocess.Popen(self.command(prompt, model, permission_mode, extra_args), cwd=self.workspace, env=self.env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
            raise AssertionError(f"{self.host} did not finish in {timeout} s: {stderr[-2000:]}") from None
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # MCP servers and other children it left
            except ProcessLookupError:
                pass
        main = [body for body in self.model.requests if body.get("tools")]
        return HostRun(process.returncode, stdout, stderr, list(self.model.requests), tool_results(main[-1]) if main else [])

    def close(self) -> None:
        self.model.close()

    def evidence(self, result: HostRun, told: str) -> str:
        """For a failed assertion: what the host sent back, its stderr (hook failures and
        timeouts), and the tails of the workspace daemons' logs (a daemon killed mid-call)."""
        runtime = os.environ.get("XDG_RUNTIME_DIR")
        logs = sorted((Path(runtime) / "gateway").glob("*.log")) if runtime else []
        said = [f"--- {log.name}\n{log.read_text(errors='replace')[-1500:]}" for log in logs]
        return "\n".join([told[-2500:], "--- host stderr", result.stderr[-1500:], *said])


def _opencode_dependencies() -> Path:
    """`@opencode-ai/plugin` at OpenCode's own version, installed by `make setup`. OpenCode installs
    it from the registry into each configuration directory that has no node_modules (its own and
    the workspace's `.opencode/`) before it loads plugins: 5-30 s of every run in a fresh HOME and
    workspace, which is what each test has."""
    version = json.loads((BIN.parent / "opencode-ai" / "package.json").read_text())["version"]
    root = ROOT / ".tools" / "opencode-plugin"
    installed = json.loads((root / "package.json").read_text())["dependencies"]["@opencode-ai/plugin"] if (root / "package.json").exists() else None
    assert installed == version, f"{root}: @opencode-ai/plugin {installed}, OpenCode {version}: run `make setup` (OPENCODE_PLUGIN in the Makefile)"
    return root


def _link_opencode_dependencies(directory: Path) -> None:
    """The installed dependencies, as OpenCode leaves them: it installs nothing when node_modules
    exists and the lock file names every dependency of package.json."""
    installed = _opencode_dependencies()
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "node_modules").symlink_to(installed / "node_modules", target_is_directory=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(installed / name, directory / name)
