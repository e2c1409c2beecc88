"""`[gate] shell = "put_back"` inside the real agent hosts: the scripted model changes a
definition with a shell command (`sed -i` on a `def` header); the file is as before and the model
is told why and with which tool to make the change. (The default, a report, is checked in every
host's session in tests/test_hosts_gateway.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hosts.harness import HostSession
from tests.hosts.sample import PRICES_WORKSPACE, SOURCE
from tests.test_hosts_gateway import EDIT_TOOL, _sent_back, install, shell_step

pytestmark = [pytest.mark.usefixtures("hosts"), PRICES_WORKSPACE]

SED_HEADER = "sed -i 's/def total(self, tax):/def total(self, tax, rate=1):/' prices.py"
REPORTED = "prices.py line 9: changed the header of method `PriceList/total`"


def _run(session: HostSession, host: str, command: str) -> Any:
    return session.run([shell_step(host, command)], **({"permission_mode": "bypassPermissions"} if host == "claude-code" else {}))


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
