"""`[gate] shell` inside the real agent hosts: the scripted model changes a definition with a
shell command (`sed -i` on a `def` header), and the next request the host sends the model
carries the gateway's report (or, with "put_back", the file is as before and the model is told
why and with which tool to make the change)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hosts.harness import HostSession
from tests.hosts.sample import PRICES_WORKSPACE, SOURCE
from tests.test_hosts_gateway import HOSTS, _sent_back, install

pytestmark = [pytest.mark.usefixtures("hosts"), PRICES_WORKSPACE]

SED_HEADER = "sed -i 's/def total(self, tax):/def total(self, tax, rate=1):/' prices.py"
REPORTED = "prices.py line 9: changed the header of method `PriceList/total`"
EDIT_TOOL = {"claude-code": "the Edit and Write tools", "copilot": "the edit and create tools", "gemini": "the replace and write_file tools",
             "codex": "the apply_patch tool", "opencode": "the edit and write tools"}


def _run(session: HostSession, host: str, command: str) -> Any:
    if host == "codex":
        return session.run([("exec_command", {"cmd": command})], model="gpt-5.5")
    if host == "gemini":
        return session.run([("run_shell_command", {"command": command})])
    if host in ("copilot", "opencode"):
        return session.run([("bash", {"command": command, "description": "change total"})])
    return session.run([("Bash", {"command": command, "description": "change total"})], permission_mode="bypassPermissions")


@pytest.mark.parametrize("host", HOSTS)
def test_a_shell_command_that_changes_a_definition_is_reported(host: str, workspace: Path, tmp_path: Path) -> None:
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    result = _run(session, host, SED_HEADER)
    session.close()
    assert "rate=1" in (workspace / "prices.py").read_text(), result.stderr[-2000:]  # reported, not undone
    sent = _sent_back(result)
    assert REPORTED in sent and "went unverified" in sent, sent[-3000:]
    assert EDIT_TOOL[host] in sent


@pytest.mark.parametrize("host", ["claude-code", "codex"])  # all five pass; two keep the suite's time (each run ~30 s)
def test_put_back_undoes_the_change_and_says_which_tool_to_use(host: str, workspace: Path, tmp_path: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text('[gate]\nshell = "put_back"\n')
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    result = _run(session, host, SED_HEADER)
    session.close()
    assert (workspace / "prices.py").read_text() == SOURCE, result.stderr[-2000:]
    sent = _sent_back(result)
    assert "put those changes back" in sent and REPORTED in sent and EDIT_TOOL[host] in sent, sent[-3000:]
