"""A hook the host has not trusted yet, inside the real Codex CLI run as a user runs it (without
`--dangerously-bypass-hook-trust`): Codex skips the gateway's hooks, so an edit the gate refuses
is written; the session is told so at its start, through the first line of the gateway MCP
server's instructions, which Codex puts in the model's first request. Once the hooks are trusted
in Codex's own record (`[hooks.state."<key>"] trusted_hash`, as its "Hooks need review" prompt
writes it), the hook refuses that edit and nothing is said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.surfaces.hooks.hosts.codex import codex_gateway_hooks
from tests.hosts.harness import HostRun, HostSession
from tests.hosts.sample import BROKEN, OLD, PRICES_WORKSPACE, SOURCE
from tests.test_hosts_gateway import install, steps

pytestmark = [pytest.mark.usefixtures("hosts"), PRICES_WORKSPACE]

NOTICE = "EDITS ARE NOT JUDGED: Codex has not trusted the gateway's hooks"
# Codex gives an MCP server only its own short list of variables: the server is told here too, so
# that it starts no daemon that would outlive the test.


def first_request(result: HostRun) -> str:
    """What the model was sent at the session's start: its first main request, tools left out."""
    main = [body for body in result.requests if body.get("tools")]
    assert main, result.stderr[-2000:]
    return json.dumps({key: value for key, value in main[0].items() if key != "tools"})


def test_codex_untrusted_hooks_do_not_judge_and_the_session_is_told(workspace: Path, tmp_path: Path) -> None:
    session = HostSession("codex", workspace, tmp_path, bypass_hook_trust=False)
    install(session, workspace, "codex")
    result = session.run(steps("codex", workspace / "prices.py", OLD, BROKEN))
    assert (workspace / "prices.py").read_text() == SOURCE.replace(OLD, BROKEN)  # the premise: Codex wrote it, unjudged
    start = first_request(result)
    assert f"mcp__gateway: {NOTICE}" in start and "/hooks" in start, start[-3000:]
    session.close()


def test_codex_trusted_hooks_judge_and_nothing_is_said(workspace: Path, tmp_path: Path) -> None:
    session = HostSession("codex", workspace, tmp_path, bypass_hook_trust=False)
    install(session, workspace, "codex")
    records = [f'[hooks.state."{key}"]\ntrusted_hash = "{digest}"\n' for _, key, digest in codex_gateway_hooks(workspace / ".codex" / "config.toml")]
    assert len(records) == 4
    config = session.home / ".codex" / "config.toml"
    config.write_text(config.read_text() + "\n[hooks.state]\n\n" + "\n".join(records))
    result = session.run(steps("codex", workspace / "prices.py", OLD, BROKEN))
    assert (workspace / "prices.py").read_text() == SOURCE  # the hook ran and refused it
    assert "syntax error" in "\n".join(result.tool_results)
    start = first_request(result)
    assert "mcp__gateway: Structural edit gateway" in start and NOTICE not in start
    session.close()
