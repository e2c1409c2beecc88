"""Whether each host will run the gateway's installed hooks, read from the files the hosts write
themselves. Every file under hosts/trust_records was written by the host's own trust prompt
(Codex 0.169.0 "Trust and continue" and "Hooks need review: Trust all and continue"; Copilot
1.0.102 "Yes, and remember this folder"; Gemini 0.61.0 "Trust folder", "Trust parent folder",
"Don't trust"; Claude Code 2.1.197 "Yes, I trust this folder"), run on a workspace the gateway
was installed in; only the workspace's path is replaced by @WS@."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gateway.surfaces.hooks.install import install
from gateway.surfaces.hooks.hosts.codex import codex_gateway_hooks
from gateway.surfaces.hooks.trust import hook_trust, session_notices

CAPTURED = Path(__file__).parent / "hosts" / "trust_records"


def captured(name: str, workspace: Path) -> str:
    return (CAPTURED / name).read_text().replace("@WS@", str(workspace))


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    for name, value in {"HOME": home, "CODEX_HOME": home / ".codex", "COPILOT_HOME": home / ".copilot", "XDG_STATE_HOME": home / ".state",
                        "XDG_CONFIG_HOME": home / ".config"}.items():
        monkeypatch.setenv(name, str(value))
    for name in ("CLAUDE_CONFIG_DIR", "GEMINI_CLI_TRUSTED_FOLDERS_PATH", "GEMINI_CLI_TRUST_WORKSPACE"):
        monkeypatch.delenv(name, raising=False)
    (home / ".codex").mkdir(parents=True)
    return home


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    return workspace


def codex_workspace(ws: Path, home: Path, home_config: str) -> None:
    """The gateway's hooks as `gateway hook install codex` wrote them when Codex trusted them, and
    Codex's own config.toml."""
    (ws / ".codex").mkdir()
    (ws / ".codex" / "config.toml").write_text(captured("codex-project-hooks.toml", ws))
    (home / ".codex" / "config.toml").write_text(captured(home_config, ws))


def test_codex_hashes_each_hook_as_codex_does(ws: Path, home: Path) -> None:
    codex_workspace(ws, home, "codex-home-hooks-trusted.toml")
    recorded = tomllib.loads((home / ".codex" / "config.toml").read_text())["hooks"]["state"]
    ours = codex_gateway_hooks(ws / ".codex" / "config.toml")
    assert [event for event, _, _ in ours] == ["PreToolUse", "PostToolUse", "SessionStart", "Stop"]
    assert {key: {"trusted_hash": digest} for _, key, digest in ours} == recorded  # Codex's keys and hashes, all four


def test_codex_hooks_trusted_in_codex_run(ws: Path, home: Path) -> None:
    codex_workspace(ws, home, "codex-home-hooks-trusted.toml")
    trust = hook_trust("codex", ws)
    assert (trust.state, trust.notice) == ("runs", "")
    assert session_notices(ws) == []


def test_codex_project_trusted_hooks_not_yet_is_off_and_told_at_session_start(ws: Path, home: Path) -> None:
    codex_workspace(ws, home, "codex-home-project-trusted.toml")
    trust = hook_trust("codex", ws)
    assert trust.state == "off" and trust.mcp_runs
    assert "PreToolUse, PostToolUse, SessionStart, Stop hooks are not trusted" in trust.detail and "/hooks" in trust.detail
    assert session_notices(ws) == [trust.notice]
    first_line = trust.notice.splitlines()[0]
    assert first_line.startswith("EDITS ARE NOT JUDGED") and len(first_line) <= 250  # Codex shows a server's first line, cut at 250


def test_codex_hook_changed_since_trusted_is_off(ws: Path, home: Path) -> None:
    codex_workspace(ws, home, "codex-home-hooks-trusted.toml")
    hooks = ws / ".codex" / "config.toml"
    hooks.write_text(hooks.read_text().replace("gateway hook codex pre", "/opt/gateway hook codex pre"))
    trust = hook_trust("codex", ws)
    assert trust.state == "off" and "the gateway's PreToolUse hooks are not trusted (or changed since)" in trust.detail


def test_codex_project_not_trusted_runs_nothing_of_ours(ws: Path, home: Path, tmp_path: Path) -> None:
    codex_workspace(ws, home, "codex-home-hooks-trusted.toml")
    (home / ".codex" / "config.toml").write_text(captured("codex-home-hooks-trusted.toml", tmp_path / "elsewhere"))
    trust = hook_trust("codex", ws)
    assert trust.state == "off" and not trust.mcp_runs and trust.notice == ""
    assert "does not trust" in trust.detail and "Trust and continue" in trust.detail


def test_install_says_whether_codex_will_run_the_hooks(ws: Path, home: Path) -> None:
    (home / ".codex" / "config.toml").write_text(captured("codex-home-project-trusted.toml", ws))
    message = install("codex", ws)["message"]
    assert "the hooks do NOT run yet: Codex runs a hook only once you trust it" in message
    assert "Trust all and continue" in message and "only once you trust it in /hooks" not in message  # the state, not a generic note
    records = [f'[hooks.state."{key}"]\ntrusted_hash = "{digest}"\n' for _, key, digest in codex_gateway_hooks(ws / ".codex" / "config.toml")]
    (home / ".codex" / "config.toml").write_text(captured("codex-home-project-trusted.toml", ws) + "\n" + "\n".join(records))
    assert "the hooks run now: Codex has trusted the gateway's hooks" in install("codex", ws)["message"]


def test_copilot_trusted_folders_as_copilot_writes_them(ws: Path, home: Path, tmp_path: Path) -> None:
    (home / ".copilot").mkdir()
    (home / ".copilot" / "config.json").write_text(captured("copilot-config-folder-trusted.json", ws))  # `//` comments first
    assert hook_trust("copilot", ws).state == "runs"
    assert hook_trust("copilot", ws / "sub").state == "runs"  # a trusted folder covers its subfolders (no prompt there)
    other = hook_trust("copilot", tmp_path / "other")
    assert other.state == "asks" and "nothing of the gateway runs to say so" in other.detail and "copilot -p" in other.detail
    assert "do NOT run yet" in install("copilot", tmp_path)["message"]


@pytest.mark.parametrize(("rules", "state"), [("folder", "runs"), ("parent", "runs"), ("dont", "off"), (None, "asks")])
def test_gemini_trusted_folders_as_gemini_writes_them(ws: Path, home: Path, rules: str | None, state: str) -> None:
    (home / ".gemini").mkdir()
    if rules:
        (home / ".gemini" / "trustedFolders.json").write_text(captured(f"gemini-trustedFolders-{rules}.json", ws))
    trust = hook_trust("gemini", ws)
    assert trust.state == state
    assert state == "runs" or "`/permissions trust`" in trust.detail


def test_gemini_without_folder_trust_runs_project_hooks(ws: Path, home: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text('{"security": {"folderTrust": {"enabled": false}}}')
    assert hook_trust("gemini", ws).state == "runs"


def test_claude_trust_dialog_as_claude_records_it(ws: Path, home: Path, tmp_path: Path) -> None:
    (home / ".claude.json").write_text(captured("claude-json-trust-accepted.json", ws))
    assert hook_trust("claude-code", ws).state == "runs"
    other = hook_trust("claude-code", tmp_path / "other")
    assert other.state == "asks" and "claude -p" in other.detail
