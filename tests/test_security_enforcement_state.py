"""Security round 4 (issue 33): the enforcement state itself under attack from the agent's shell.

Saved copies, baseline, shell records, the audit log, the signing key and the witness are
removed or altered by real shell commands run between the Claude Code hook's PreToolUse and
PostToolUse; the untracked file's bytes survive, and the workspace stays tampered (every write
refused, the audit says so) until the user re-arms it. Writes to `.git/hooks/` and `.git/config`
are put back like workspace files. `hook install --enforce` configures the hosts' sandboxes,
and inside the real Claude Code and Codex sandboxes the agent's shell cannot remove the state.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gateway.typed.state import state_dir
from gateway.userstate import state_home
from tests.hosts.harness import HostSession
from tests.test_security_enforcement import SHAPES, _event, _stop
from tests.conftest import make_workspace
from tests.test_security_shell import DIRTY, ENFORCED_GIT_WORKSPACE, files, run_through_hooks
from tests.test_typed_surfaces import declare

pytestmark = ENFORCED_GIT_WORKSPACE
NOTES = "untracked notes\n"
REARM = "gateway enforce rearm"


def _armed(root: Path) -> Path:
    """The workspace armed by a first hook call; its state directory."""
    assert run_through_hooks(root, "true") == ("ran", None)
    return state_dir(root)


def _edit_refused(root: Path) -> str:
    edit = {"file_path": str(root / SHAPES), "old_string": "width * height", "new_string": "height * width"}
    answer = _event(root, "PreToolUse", "Edit", edit, "toolu_edit")
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    return str(answer["hookSpecificOutput"]["permissionDecisionReason"])


def _gateway(root: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway", *args, "--workspace", str(root)], capture_output=True, text=True,
                          timeout=120, input=stdin)


def _phases(state: Path) -> list[str]:
    return [json.loads(line)["phase"] for line in (state / "edits.jsonl").read_text().splitlines() if line.strip()]


@pytest.mark.usefixtures("processes")
def test_removing_the_saved_copies_loses_no_untracked_bytes(workspace: Path) -> None:
    state = _armed(workspace)
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"rm -rf {state / 'objects'}; echo lost > notes.txt; echo lost > pkg/use.py")
    assert how == "ran" and answer is not None
    assert (workspace / "notes.txt").read_text() == NOTES and (workspace / "pkg" / "use.py").read_text().endswith(DIRTY)
    assert files(workspace) == before
    assert "saved copies" in answer["reason"] and REARM in answer["reason"]
    assert REARM in _edit_refused(workspace)
    assert "tampered" in _phases(state)


@pytest.mark.usefixtures("processes")
def test_the_first_command_removing_the_saved_copies_loses_no_bytes(workspace: Path) -> None:
    """Its PreToolUse arms enforcement: the second copies are made then, not at a later check."""
    how, answer = run_through_hooks(workspace, f"rm -rf {state_dir(workspace) / 'objects'}; echo lost > notes.txt")
    assert how == "ran" and answer is not None and REARM in answer["reason"]
    assert (workspace / "notes.txt").read_text() == NOTES


@pytest.mark.usefixtures("processes")
def test_removing_the_baseline_and_the_command_record_puts_back_and_refuses(workspace: Path) -> None:
    state = _armed(workspace)
    before = files(workspace)
    command = f"rm -rf {state / 'baseline.json'} {state / 'shell'}; echo lost > notes.txt; echo evil > {SHAPES}"
    how, answer = run_through_hooks(workspace, command)
    assert how == "ran" and answer is not None and "removed" in answer["reason"] and REARM in answer["reason"]
    assert files(workspace) == before
    assert REARM in _edit_refused(workspace)
    denied = run_through_hooks(workspace, "echo x > notes.txt")
    assert denied[0] == "denied" and (workspace / "notes.txt").read_text() == NOTES


@pytest.mark.usefixtures("processes")
def test_removing_the_whole_state_directory_and_key_is_tampering(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # this test's own key and state
    _armed(workspace)
    how, answer = run_through_hooks(workspace, f"rm -rf {state_home()}")
    assert how == "ran" and answer is not None and "tampered" in answer["reason"]
    assert REARM in _edit_refused(workspace)


@pytest.mark.usefixtures("processes")
def test_a_replaced_signing_key_is_tampering(workspace: Path) -> None:
    _armed(workspace)
    key = state_home() / "key"
    original = key.read_bytes()
    try:
        key.write_bytes(secrets.token_bytes(32))
        answer = _stop(workspace)
        assert answer is not None and "signing key" in answer["reason"] and "replaced" in answer["reason"]
    finally:
        key.write_bytes(original)
    assert REARM in _edit_refused(workspace)  # putting the key back does not undo what was seen


@pytest.mark.usefixtures("processes")
def test_a_cut_audit_log_is_tampering(workspace: Path) -> None:
    state = _armed(workspace)
    declare(workspace, SHAPES)
    log = state / "edits.jsonl"
    log.write_text("".join(log.read_text().splitlines(keepends=True)[:-1]))
    answer = _stop(workspace)
    assert answer is not None and "audit log" in answer["reason"]


@pytest.mark.usefixtures("processes")
def test_tampered_state_refuses_every_write_until_the_user_rearms(workspace: Path) -> None:
    state = _armed(workspace)
    baseline = state / "baseline.json"
    data = json.loads(baseline.read_text())
    data["taken_at"] -= 3600
    baseline.write_text(json.dumps(data))
    answer = _stop(workspace)
    assert answer is not None and "fails its signature" in answer["reason"]
    assert REARM in _edit_refused(workspace)
    declare(workspace, SHAPES)
    assert REARM in _edit_refused(workspace)  # a declaration does not lift it
    cli = _gateway(workspace, "edit", SHAPES, "--old", "width * height", "--new", "height * width")
    assert cli.returncode != 0 and REARM in cli.stderr and "width * height" in (workspace / SHAPES).read_text()
    status = _gateway(workspace, "enforce", "status")
    assert status.returncode == 5 and "TAMPERED" in status.stdout
    unconfirmed = _gateway(workspace, "enforce", "rearm", stdin="")
    assert unconfirmed.returncode == 1 and "confirmation" in unconfirmed.stderr and len(unconfirmed.stderr.splitlines()) == 1
    assert REARM in _edit_refused(workspace)
    rearmed = _gateway(workspace, "enforce", "rearm", "--yes")
    assert rearmed.returncode == 0 and "re-armed" in rearmed.stdout
    declare(workspace, SHAPES)
    edit = {"file_path": str(workspace / SHAPES), "old_string": "width * height", "new_string": "height * width"}
    assert _event(workspace, "PreToolUse", "Edit", edit, "toolu_after") is None
    phases = _phases(state)
    assert phases.index("tampered") < phases.index("rearmed")
    entry = [json.loads(line) for line in (state / "edits.jsonl").read_text().splitlines() if '"rearmed"' in line][0]
    assert "--yes" in entry["by"] and "fails its signature" in entry["audit_error"]["message"]


@pytest.mark.usefixtures("processes")
def test_outside_git_the_second_copies_live_in_the_workspace(tmp_path: Path) -> None:
    root = make_workspace(tmp_path / "plain", enforce=True)
    (root / "notes.txt").write_text(NOTES)
    state = _armed(root)
    how, answer = run_through_hooks(root, f"rm -rf {state / 'objects'}; echo lost > notes.txt")
    assert how == "ran" and answer is not None and REARM in answer["reason"]
    assert (root / "notes.txt").read_text() == NOTES


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("command", [
    "printf '#!/bin/sh\\ntouch /tmp/gateway-owned\\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
    "git config core.pager 'touch /tmp/gateway-owned; less'",
    "printf '[alias]\\n\\tst = !touch /tmp/gateway-owned\\n' >> .git/config",
])
def test_a_command_writing_git_hooks_or_config_is_put_back(workspace: Path, command: str) -> None:
    _armed(workspace)
    config = (workspace / ".git" / "config").read_bytes()
    how, answer = run_through_hooks(workspace, command)
    assert how == "ran" and answer is not None and "put back" in answer["reason"]
    assert not (workspace / ".git" / "hooks" / "pre-commit").exists()
    assert (workspace / ".git" / "config").read_bytes() == config


@pytest.mark.usefixtures("processes")
def test_an_edit_tool_writing_a_git_hook_is_refused(workspace: Path) -> None:
    _armed(workspace)
    write = {"file_path": str(workspace / ".git" / "hooks" / "pre-commit"), "content": "#!/bin/sh\ntouch /tmp/gateway-owned\n"}
    answer = _event(workspace, "PreToolUse", "Write", write, "toolu_hook")
    assert answer is not None and answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "protected" in answer["hookSpecificOutput"]["permissionDecisionReason"]


@pytest.mark.usefixtures("processes")
def test_install_enforce_writes_each_hosts_sandbox(workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.surfaces.hooks.sandboxes import enforcement

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "home" / ".codex"))
    assert {e.host: e.mode for e in enforcement(workspace)} == dict.fromkeys(("claude-code", "copilot", "gemini", "codex", "opencode"), "advisory")
    for host in ("claude-code", "codex", "gemini"):
        done = subprocess.run([sys.executable, "-m", "gateway", "hook", "install", host, "--enforce", "--absolute", "--workspace", str(workspace)],
                              capture_output=True, text=True, timeout=60, env={**os.environ})
        assert done.returncode == 0, done.stderr
    assert "enforcement there stays advisory" in done.stdout  # gemini's
    sandbox = json.loads((workspace / ".claude" / "settings.local.json").read_text())["sandbox"]
    assert sandbox["enabled"] is True and sandbox["allowUnsandboxedCommands"] is False and str(state_home()) in sandbox["filesystem"]["denyWrite"]
    codex = (workspace / ".codex" / "config.toml").read_text()
    assert codex.startswith("# >>> gateway sandbox") and 'sandbox_mode = "workspace-write"' in codex
    assert "exclude_slash_tmp = true" in codex  # the suite's state lives under /tmp, which Codex leaves writable otherwise
    modes = {e.host: (e.installed, e.mode) for e in enforcement(workspace)}
    assert modes == {"claude-code": (True, "sandboxed"), "codex": (True, "sandboxed"), "gemini": (True, "advisory"),
                     "copilot": (False, "advisory"), "opencode": (False, "advisory")}
    doctor = _gateway(workspace, "doctor")
    assert doctor.returncode == 0 and "enforcement for claude-code: sandboxed" in doctor.stdout
    assert "enforcement for gemini: advisory" in doctor.stdout and "language servers found" in doctor.stdout
    status = _gateway(workspace, "daemon", "status")
    assert "enforcement for codex: sandboxed" in status.stdout
    monkeypatch.setenv("PATH", str(tmp_path))  # no bubblewrap: the same settings are only advisory
    assert {e.host: e.mode for e in enforcement(workspace)}["claude-code"] == "advisory"
    for host in ("claude-code", "codex", "gemini"):
        subprocess.run([sys.executable, "-m", "gateway", "hook", "uninstall", host, "--workspace", str(workspace)], capture_output=True,
                       text=True, timeout=60, check=True, env={**os.environ, "PATH": os.environ.get("PATH", "")})
    assert not (workspace / ".claude" / "settings.local.json").exists() and not (workspace / ".codex" / "config.toml").exists()


def _host_install(session: HostSession, workspace: Path, host: str, *options: str) -> None:
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "install", host, "--absolute", *options, "--workspace", str(workspace)],
                          env=session.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.usefixtures("hosts")
def test_claude_codes_sandbox_keeps_the_agents_shell_out_of_the_state(workspace: Path, tmp_path: Path) -> None:
    session = HostSession("claude-code", workspace, tmp_path)
    _host_install(session, workspace, "claude-code", "--enforce")
    state = Path(session.env["XDG_STATE_HOME"]) / "gateway"
    command = f"rm -rf {state}; ls {state}/key && echo KEY-KEPT-$((40 + 2)); echo lost > notes.txt"
    try:
        result = session.run([("Bash", {"command": command, "description": "remove the gateway's state"})], permission_mode="acceptEdits")
    finally:
        session.close()
    assert result.returncode == 0, result.stderr[-2000:]
    assert (state / "key").is_file(), result.tool_results
    assert (workspace / "notes.txt").read_text() == NOTES
    assert any("KEY-KEPT-42" in r and "Read-only file system" in r for r in result.tool_results), result.tool_results


@pytest.mark.usefixtures("hosts")
def test_inside_claude_code_without_a_sandbox_tampering_refuses_the_next_edit(workspace: Path, tmp_path: Path) -> None:
    session = HostSession("claude-code", workspace, tmp_path)
    _host_install(session, workspace, "claude-code")
    state = Path(session.env["XDG_STATE_HOME"]) / "gateway" / "workspaces"
    shapes = workspace / SHAPES
    steps = [("Bash", {"command": f"rm -rf {state}/*/objects; echo lost > notes.txt", "description": "tamper"}),
             ("Read", {"file_path": str(shapes)}),
             ("Edit", {"file_path": str(shapes), "old_string": "width * height", "new_string": "height * width"})]
    before = shapes.read_text()
    try:
        result = session.run(steps, permission_mode="bypassPermissions")
    finally:
        session.close()
    assert result.returncode == 0, result.stderr[-2000:]
    assert (workspace / "notes.txt").read_text() == NOTES and shapes.read_text() == before
    assert REARM in result.tool_results[-1], result.tool_results  # the Edit after it, refused
    main = [body for body in result.requests if body.get("tools")]
    assert "The command `rm -rf" in json.dumps(main[-1]["messages"])  # the PostToolUse report reached the model


class _SandboxedCodex(HostSession):
    """Codex as a user runs it: without the harness's --dangerously-bypass-approvals-and-sandbox."""

    def command(self, prompt: str, model: str | None, permission_mode: str | None, extra_args: tuple[str, ...]) -> list[str]:
        command = super().command(prompt, model, permission_mode, extra_args)
        return [word for word in command if word != "--dangerously-bypass-approvals-and-sandbox"]


@pytest.mark.usefixtures("hosts")
def test_codexs_sandbox_keeps_the_agents_shell_out_of_the_state(workspace: Path) -> None:
    # Its home outside /tmp: Codex sets up no sandbox helper under a temporary directory, and
    # its workspace-write sandbox leaves /tmp writable (a state there is advisory; doctor says so).
    home = Path(tempfile.mkdtemp(prefix="gateway-codex-", dir="/var/tmp"))
    session = _SandboxedCodex("codex", workspace, home)
    try:
        _host_install(session, workspace, "codex", "--enforce", "--user")
        state = Path(session.env["XDG_STATE_HOME"]) / "gateway"
        doctor = subprocess.run([sys.executable, "-m", "gateway", "doctor", "--workspace", str(workspace)], env=session.env,
                                capture_output=True, text=True, timeout=120)
        assert "enforcement for codex: sandboxed" in doctor.stdout, doctor.stdout
        command = f"find {state} -delete; ls {state}/key && echo KEY-KEPT-$((40 + 2))"  # Codex itself rejects `rm -rf`
        result = session.run([("exec_command", {"cmd": command})])
        kept = (state / "key").is_file()
    finally:
        session.close()
        shutil.rmtree(home, ignore_errors=True)
    assert kept and any("KEY-KEPT-42" in r and "Read-only file system" in r for r in result.tool_results), result.tool_results
