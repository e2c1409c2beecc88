"""The gateway inside the real agent hosts: each host CLI runs headless against the suite's
scripted model (tests/hosts), with the gateway installed the way a user installs it, and the
assertions are on the bytes on disk and on what the model was sent back."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from gateway.surfaces import daemon_client
from gateway.typed.baseline import BASELINE
from gateway.typed.state import state_path
from tests.hosts.harness import HOSTS, HostSession
from tests.hosts.sample import BODY_NEW, BODY_OLD, BROKEN, NEW, OLD, PRICES_WORKSPACE, ROUTED, SOURCE, prices_workspace

pytestmark = [pytest.mark.usefixtures("hosts"), PRICES_WORKSPACE]

VENV_BIN = str(Path(sys.executable).parent)


def _patch(old: str, new: str) -> str:
    body = "".join(f"-{line}\n" for line in old.splitlines()) + "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Update File: prices.py\n@@ class PriceList:\n{body}*** End Patch\n"


def steps(host: str, path: Path, old: str, new: str) -> list[tuple[str, Any]]:
    """The edit in the host's own tool vocabulary (with the read some hosts require first)."""
    if host == "claude-code":
        return [("Read", {"file_path": str(path)}), ("Edit", {"file_path": str(path), "old_string": old, "new_string": new})]
    if host == "copilot":
        return [("edit", {"path": str(path), "old_str": old, "new_str": new})]
    if host == "gemini":
        return [("replace", {"file_path": str(path), "instruction": "change total", "old_string": old, "new_string": new})]
    if host == "codex":
        return [("apply_patch", _patch(old, new))]
    return [("read", {"filePath": str(path)}), ("edit", {"filePath": str(path), "oldString": old, "newString": new})]


def install(session: HostSession, workspace: Path, host: str, *options: str, env: dict[str, str] | None = None) -> None:
    """The gateway installed for `host` as a user installs it (the daemon as users get it: tests/conftest.py)."""
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "install", host, "--workspace", str(workspace), *options],
                          env=env or session.env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _sent_back(result: Any) -> str:
    """What the host sent the model after the edit: the conversation of its last main request
    (tool results, and context it adds), without the tool definitions or the system prompt."""
    main = [body for body in result.requests if body.get("tools")]
    conversation = {k: v for k, v in main[-1].items() if k in ("messages", "input", "contents")} if main else {}
    return "\n".join(result.tool_results) + "\n" + json.dumps(conversation)




# Claude Code offers a project's MCP tools only when bypassing permissions; Codex 0.169 defers
# them behind a tool search the scripted model does not speak (its offer is checked, not a call).
MCP_CALLED = ("claude-code", "copilot", "gemini", "opencode")
METHOD = "    def count(self):\n        return len(self.prices)"
INIT_OLD, INIT_NEW = "        self.prices = prices\n", "        self.prices = list(prices)\n"


def shell_step(host: str, command: str) -> tuple[str, Any]:
    """`command` run by the host's own shell tool."""
    if host == "codex":
        return ("exec_command", {"cmd": command})
    if host == "gemini":
        return ("run_shell_command", {"command": command})
    return ("bash" if host in ("copilot", "opencode") else "Bash", {"command": command, "description": "change it"})


# A new file that does not parse, written with the host's whole-file write (Codex: a patch's Add File).
BROKEN_MODULE = "def extra(a:\n    return a\n"
# An existing file written whole without one of its functions, by the hosts whose whole-file write
# overwrites (Codex's patches update by hunks; Copilot's `create` refuses a file that exists).
OVERWRITING = ("claude-code", "gemini", "opencode")
UTIL = "def size(items):\n    return len(items)\n\n\ndef count(items):\n    return len(items)\n"
UTIL_WITHOUT_COUNT = "def size(items):\n    return len(items)\n"


def _write(host: str, path: Path, content: str) -> tuple[str, Any]:
    if host == "claude-code":
        return ("Write", {"file_path": str(path), "content": content})
    if host == "copilot":
        return ("create", {"path": str(path), "file_text": content})
    if host == "gemini":
        return ("write_file", {"file_path": str(path), "content": content})
    if host == "codex":
        added = "".join(f"+{line}\n" for line in content.splitlines())
        return ("apply_patch", f"*** Begin Patch\n*** Add File: {path.name}\n{added}*** End Patch\n")
    return ("write", {"filePath": str(path), "content": content})


# A shell command that changes a definition, reported by default ([gate] shell = "report").
TALLY = "def tally(items):\n    return len(items)\n"
SED_TALLY = "sed -i 's/def tally(items):/def tally(items, start=0):/' tally.py"
TALLY_REPORTED = "tally.py line 1: changed the header of function `tally`"
EDIT_TOOL = {"claude-code": "the Edit and Write tools", "copilot": "the edit and create tools", "gemini": "the replace and write_file tools",
             "codex": "the apply_patch tool", "opencode": "the edit and write tools"}


def _session_steps(host: str, path: Path, gateway: bool) -> list[tuple[str, Any]]:
    """One session's edits, in the host's own tools: (with the gateway only: a header change
    broken, refused) the header change (routed), the deletion of a method with an empty
    replacement (routed: remove_symbol), and with the gateway: a new file that does not parse
    written whole (refused), an existing file written whole without a function (routed, where the
    host's whole-file write overwrites), an edit inside a body through the gateway's own MCP edit tool (where
    the host calls it), and a shell command changing a definition of tally.py, which the model is
    told of."""
    edits = [*(steps(host, path, OLD, BROKEN) if gateway else []), *steps(host, path, OLD, NEW), *steps(host, path, METHOD, "")]
    if not gateway:
        return edits
    edits.append(_write(host, path.parent / "extra.py", BROKEN_MODULE))
    if host in OVERWRITING:  # a whole-file write that removes a function: routed, and written as the host writes it
        edits += [*([("Read", {"file_path": str(path.parent / "util.py")})] if host == "claude-code" else []),
                  _write(host, path.parent / "util.py", UTIL_WITHOUT_COUNT)]
    if host not in MCP_CALLED:
        return [*edits, shell_step(host, SED_TALLY)]
    mcp_edit = (MCP_EDIT[host], {"path": str(path), "old_string": INIT_OLD, "new_string": INIT_NEW})
    return [*_mcp_connected(host), *edits, mcp_edit, shell_step(host, SED_TALLY)]


@pytest.mark.parametrize("host", HOSTS)
def test_in_each_host_a_broken_edit_is_refused_a_header_change_and_a_deletion_are_routed_as_the_host_writes(
        host: str, tmp_path: Path) -> None:
    """One session of the host with the gateway installed (MCP writes allowed), beside one without
    it: the broken edit leaves the file as it was and says why; the header change is routed
    (replace_symbol) and the deletion too (remove_symbol); the host writes what it writes with no
    gateway (Claude Code also deletes the newline after the text, Gemini keeps the file's last
    newline: each host's own way). The gateway's MCP server is registered and connected: its
    tools are offered and its edit tool writes. A shell command that changes a definition is
    reported to the model with the host's own edit tools to use instead."""
    written, results = {}, {}
    for gateway in (False, True):
        (tmp_path / f"gateway-{gateway}").mkdir()
        root = prices_workspace(tmp_path / f"gateway-{gateway}")
        session = HostSession(host, root, root.parent)
        if gateway:
            (root / "tally.py").write_text(TALLY)
            (root / "util.py").write_text(UTIL)
            install(session, root, host, "--mcp-writes", *(("--allow-mcp",) if host in ("gemini", "codex", "opencode") else ()))
            session.env["MCP_CONNECTION_NONBLOCKING"] = "0"  # Claude Code -p: its first request waits for MCP servers
        results[gateway] = session.run(_session_steps(host, root / "prices.py", gateway),
                                       **({"permission_mode": "bypassPermissions"} if host == "claude-code" else {}))
        written[gateway] = (root / "prices.py").read_text()
        session.close()
    told = _sent_back(results[True])
    assert NEW in written[False] and "def count" not in written[False], results[False].stderr[-2000:]
    expected = written[False].replace(INIT_OLD, INIT_NEW) if host in MCP_CALLED else written[False]
    assert written[True] == expected, told[-3000:]
    assert "syntax error" in told and "The gateway performed this write" in told, told[-3000:]
    assert "replace_symbol `PriceList/total`" in told and "remove_symbol `PriceList/count`" in told, told[-3000:]
    _assert_mcp_offered(host, _offered_tools(results[True], -1))
    assert not (tmp_path / "gateway-True" / "ws" / "extra.py").exists()  # the broken new file: refused
    if host in OVERWRITING:
        assert (tmp_path / "gateway-True" / "ws" / "util.py").read_text() == UTIL_WITHOUT_COUNT and "remove_symbol `count`" in told, told[-3000:]
    assert "start=0" in (tmp_path / "gateway-True" / "ws" / "tally.py").read_text()  # reported, not undone
    assert TALLY_REPORTED in told and "went unverified" in told and EDIT_TOOL[host] in told, told[-3000:]


# Both ways out of the installed command end in exit 2 with one line (tests/test_hook_install.py
# runs the command itself, for each host but OpenCode): each host is run with the broken one,
# which crashes past the guard, and OpenCode, whose plugin runs the hook itself, with the missing one.
@pytest.mark.parametrize(("host", "gateway"), [("opencode", "missing"), *((host, "broken") for host in HOSTS)])
def test_a_missing_or_broken_gateway_fails_closed(host: str, gateway: str, workspace: Path, tmp_path: Path) -> None:
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    # The hook runs with a PATH where `gateway` is no longer found, or is an installation that crashes.
    path = [p for p in session.env["PATH"].split(":") if p != VENV_BIN and not Path(p, "gateway").exists()]
    if gateway == "broken":
        broken = tmp_path / "broken-bin"
        broken.mkdir()
        (broken / "gateway").write_text("#!/bin/sh\necho 'Traceback (most recent call last): ImportError' >&2\nexit 1\n")
        (broken / "gateway").chmod(0o755)
        path.insert(0, str(broken))
    session.env["PATH"] = ":".join(path)
    result = session.run(steps(host, workspace / "prices.py", BODY_OLD, BODY_NEW),
                         **({"permission_mode": "acceptEdits"} if host == "claude-code" else {}))
    assert (workspace / "prices.py").read_text() == SOURCE, _sent_back(result)[-1500:]


def _claude_outcome(tmp_path: Path, mode: str, allow_rule: bool, gateway: bool) -> tuple[str, str]:
    """(the file afterwards, the Edit's tool result) for one Claude Code run in a fresh workspace."""
    root = tmp_path / f"{mode}-{allow_rule}-{gateway}"
    root.mkdir()
    (root / "prices.py").write_text(SOURCE)
    session = HostSession("claude-code", root, root)
    if gateway:
        install(session, root, "claude-code")
    if allow_rule:  # the user's own rule, in their settings
        (session.home / ".claude").mkdir(exist_ok=True)
        (session.home / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Edit", "Read"]}}))
    result = session.run(steps("claude-code", root / "prices.py", OLD, NEW), permission_mode=mode)
    session.close()
    return (root / "prices.py").read_text(), result.tool_results[-1] if result.tool_results else ""


# The user's allow rule decides only in the default mode (and must not open plan mode). The modes
# that write whatever the rules say, with the gateway: bypassPermissions in the session test above,
# acceptEdits in tests/test_hosts_languages.py.
@pytest.mark.parametrize(("mode", "allow_rule"), [("default", True), ("default", False), ("plan", True)],
                         ids=["allow-rule-default", "no-rule-default", "allow-rule-plan"])
def test_claude_code_the_users_rules_and_mode_decide_as_without_the_gateway(mode: str, allow_rule: bool, tmp_path: Path) -> None:
    without, answer_without = _claude_outcome(tmp_path, mode, allow_rule, gateway=False)
    with_gateway, answer_with = _claude_outcome(tmp_path, mode, allow_rule, gateway=True)
    assert with_gateway == without, (answer_with, answer_without)  # the routed edit lands where the plain one would, nowhere else
    assert ("updated successfully" in answer_with) == ("updated successfully" in answer_without), (answer_with, answer_without)
    if mode in ("acceptEdits", "bypassPermissions") or (allow_rule and mode == "default"):
        assert with_gateway == ROUTED
    else:  # refused by the host (it asks, which -p cannot), or only planned
        # Claude Code may append the MCP server's instructions as a <system-reminder>; the
        # refusal itself must be the host's, not the gateway's.
        refusal = re.sub(r"<system-reminder>.*?</system-reminder>", "", answer_with, flags=re.S)
        assert with_gateway == SOURCE and "gateway" not in refusal.lower(), answer_with


def test_copilot_runs_the_claude_code_hook_with_its_own_argument_names(workspace: Path, tmp_path: Path) -> None:
    """An edit inside a body passes, and the header change after it is routed."""
    session = HostSession("copilot", workspace, tmp_path)
    install(session, workspace, "claude-code")  # only Claude Code's hook, which Copilot also reads
    result = session.run([*steps("copilot", workspace / "prices.py", BODY_OLD, BODY_NEW), *steps("copilot", workspace / "prices.py", OLD, NEW)])
    session.close()
    assert (workspace / "prices.py").read_text() == ROUTED.replace(BODY_OLD, BODY_NEW), _sent_back(result)[-2000:]



def _offered_tools(result: Any, request: int = 0) -> list[str]:
    """The tools offered in a main request of the run (its first by default)."""
    main = [body for body in result.requests if body.get("tools")]
    names = []
    for tool in main[request]["tools"] if main else []:
        names += [f.get("name") for f in tool.get("functionDeclarations", [])] or [tool.get("name") or tool.get("function", {}).get("name")]
    return [str(name) for name in names]


def _assert_mcp_offered(host: str, offered: list[str]) -> None:
    if host == "codex":  # Codex 0.169 defers MCP tools behind its tool search; the resource tools appear once a server is on
        assert "list_mcp_resources" in offered, offered
    else:
        assert sum("replace_symbol" in name and "gateway" in name for name in offered) == 1, offered


@pytest.mark.parametrize("host", HOSTS)
def test_a_background_writer_is_put_back_at_stop(host: str, workspace: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Typed edits enforced: a shell command leaves a writer that changes the file after its
    PostToolUse was checked; the host's Stop hook finds the write, puts the file back, and
    tells the model where the host carries on after a Stop hook's block (Claude Code)."""
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[typed_edits]\nenforce = true\n")
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    # The writer writes while the model is "thinking" about its answer: the answer waits for it.
    written = tmp_path / "written"  # outside the workspace, so not itself a change there
    session.model.final_wait = written.exists
    # In a session of its own: some hosts end a command's process group when it returns. It
    # writes once the command's PostToolUse has been checked (that check removes the record
    # taken before the command, pending in the baseline's head: gateway.typed.shell), 20 s at most:
    # on a loaded machine that check may come later than any fixed pause.
    monkeypatch.setenv("XDG_STATE_HOME", session.env["XDG_STATE_HOME"])  # where the host's hooks keep the state
    head = state_path(workspace) / BASELINE
    checked = f"for i in \\$(seq 200); do grep -q pending {head} 2> /dev/null || break; sleep 0.1; done; sleep 0.2"  # \\$: for `sh -c`, not the host's shell
    writer = f"setsid sh -c \"{checked}; echo 'evil = 1' >> prices.py; touch {written}\" > /dev/null 2>&1 &"
    if host == "codex":
        result = session.run([("exec_command", {"cmd": writer})], model="gpt-5.5")
    elif host == "gemini":
        result = session.run([("run_shell_command", {"command": writer})])
    elif host in ("copilot", "opencode"):
        result = session.run([("bash", {"command": writer, "description": "start a writer"})])
    else:
        result = session.run([("Bash", {"command": writer, "description": "start a writer"})], permission_mode="bypassPermissions")
    assert session.model.final_waited, f"the background writer never wrote: {result.stderr[-2000:]}"
    assert (workspace / "prices.py").read_text() == SOURCE, result.stderr[-2000:]
    restored = [json.loads(line) for line in (state_path(workspace) / "edits.jsonl").read_text().splitlines()]
    assert any(e.get("operation", "").startswith("watch:") and "prices.py" in json.dumps(e) for e in restored), [e.get("operation") for e in restored]
    if host == "claude-code":  # Claude Code carries on with the reason; Codex ends its turn all the same
        assert "prices.py (changed)" in json.dumps(result.requests), result.stderr[-3000:]
    elif host == "codex":
        assert "hook: Stop Completed" in result.stderr


def _status(workspace: Path) -> dict[str, Any]:
    with contextlib.suppress(daemon_client.DaemonUnavailable):
        return daemon_client.request(workspace, "gateway/status", {}, timeout=10)  # type: ignore[no-any-return]
    return {}


@pytest.mark.parametrize("host", ["claude-code", "codex", "gemini"])
def test_a_stopped_daemon_does_not_open_the_gate(host: str, workspace: Path, tmp_path: Path) -> None:
    """The workspace's daemon is stopped (SIGSTOP: its socket still accepts connections, no
    answer ever comes). The hook gives up on it within seconds, kills it and answers in its
    own process: the refused edit stays refused, and the model is told why, long before the
    host's own timeout (120 s), past which the host would run the tool."""
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    started = subprocess.run([sys.executable, "-m", "gateway", "daemon", "start", "--workspace", str(workspace), "--json"],
                             env=session.env, capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    os.kill(pid, signal.SIGSTOP)
    began = time.monotonic()
    result = session.run(steps(host, workspace / "prices.py", OLD, BROKEN), permission_mode="acceptEdits" if host == "claude-code" else None)
    took = time.monotonic() - began
    assert (workspace / "prices.py").read_text() == SOURCE, result.stderr[-2000:]
    assert "syntax error" in _sent_back(result), result.stderr[-2000:]
    assert took < 60, f"{host} took {took:.0f} s with the daemon stopped"
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE, "the stopped daemon was left"


# One host: the bound and the kill are the hook's, whichever host runs it (tests/test_daemon_hung.py
# drives the hook itself); the host's part, a refusal the model reads, is every host's in the tests above.
@pytest.mark.parametrize("host", ["claude-code"])
def test_a_stopped_language_server_is_killed_and_replaced(host: str, workspace: Path, tmp_path: Path) -> None:
    """A session's start starts the daemon and the file's server ahead (Claude Code's SessionStart).
    Then the daemon's zuban is stopped: the hook waits for it no longer than the call's bound (the
    user's GATEWAY_LSP_TIMEOUT, here 5 s; in a hook 20 s at most), kills it and refuses the
    structural edit, saying the server did not answer; the same edit sent again is routed on a
    fresh server."""
    source = SOURCE + "\n\nSIDES = 4\n"  # a text the server has not been asked about yet
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host)
    assert session.run([]).returncode == 0  # nothing asked: only the session's start
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (_status(workspace).get("prestart", {}).get("done") and _status(workspace)["servers"]):
        time.sleep(0.1)
    status = _status(workspace)
    assert status.get("prestart", {}).get("started") == [{"language": "python", "file": "prices.py"}], status
    assert [s["server"] for s in status["servers"]] == ["zuban"] and status["prestart"]["error"] is None
    [server] = status["servers"]
    (workspace / "prices.py").write_text(source)
    os.kill(server["pid"], signal.SIGSTOP)
    mode = "acceptEdits" if host == "claude-code" else None
    session.env["GATEWAY_LSP_TIMEOUT"] = "5"
    result = session.run(steps(host, workspace / "prices.py", OLD, NEW), permission_mode=mode)
    assert (workspace / "prices.py").read_text() == source, result.stderr[-2000:]
    assert "zuban: no answer within 5s, so it was killed" in _sent_back(result), _sent_back(result)[-2000:]
    assert not psutil.pid_exists(server["pid"]) or psutil.Process(server["pid"]).status() == psutil.STATUS_ZOMBIE
    del session.env["GATEWAY_LSP_TIMEOUT"]
    result = session.run(steps(host, workspace / "prices.py", OLD, NEW), permission_mode=mode)
    assert (workspace / "prices.py").read_text() == source.replace(OLD, NEW), _sent_back(result)[-2000:]


# The gateway's MCP edit tool as each host names it (Codex 0.169 defers MCP tools behind a tool
# search the scripted model does not speak: its rule reading is tested in tests/test_host_denies.py).
MCP_EDIT = {"claude-code": "mcp__gateway__edit_file", "copilot": "gateway-edit_file", "gemini": "mcp_gateway_edit_file",
            "opencode": "gateway_edit_file"}
BODY_EDITED = SOURCE.replace(BODY_OLD, BODY_NEW)


def _mcp_connected(host: str) -> list[tuple[str, Any]]:
    """Claude Code 2.1.197 may take the first call before its MCP servers are connected (the
    gateway's takes seconds on a loaded machine), and offers a tool that waits a while for them."""
    return [("WaitForMcpServers", {})] * 4 if host == "claude-code" else []


def _deny_edits(session: HostSession, host: str) -> tuple[tuple[str, ...], str]:
    """The user's deny of the host's own edit tools, set the host's way: (extra arguments for the
    run, the words of the rule the refusal must name)."""
    def merge(path: Path, data: dict[str, Any]) -> None:
        current = json.loads(path.read_text()) if path.exists() else {}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**current, **data}))

    if host == "claude-code":
        merge(session.home / ".claude" / "settings.json", {"permissions": {"deny": ["Edit", "Write"]}})
        return (), "Edit in permissions.deny"
    if host == "opencode":
        merge(session.home / ".config" / "opencode" / "opencode.json", {"permission": {"edit": "deny"}})
        return (), "permission.edit"
    if host == "gemini":
        merge(session.home / ".gemini" / "settings.json", {"tools": {"exclude": ["replace", "write_file"]}})
        return (), "replace in tools.exclude"
    return ("--deny-tool", "write"), "--deny-tool write"


@pytest.mark.parametrize("host", list(MCP_EDIT))
def test_the_users_deny_of_the_hosts_edit_tools_holds_for_the_gateways_mcp_writes(host: str, workspace: Path, tmp_path: Path) -> None:
    """Claude Code `permissions.deny: ["Edit", "Write"]` (in bypassPermissions), OpenCode
    `permission.edit: "deny"`, Gemini CLI `tools.exclude` and Copilot CLI `--deny-tool write`:
    the model's call of the gateway's MCP edit tool leaves the file as it was and says which rule
    refused it. Without the deny the same tool writes (the session test above)."""
    session = HostSession(host, workspace, tmp_path)
    install(session, workspace, host, "--mcp-writes", *(() if host == "copilot" else ("--allow-mcp",)))
    extra, rule = _deny_edits(session, host)
    call = (MCP_EDIT[host], {"path": str(workspace / "prices.py"), "old_string": BODY_OLD, "new_string": BODY_NEW})
    result = session.run([*_mcp_connected(host), call], extra_args=extra,
                         permission_mode="bypassPermissions" if host == "claude-code" else None)
    session.close()
    told = _sent_back(result)
    assert (workspace / "prices.py").read_text() == SOURCE, told[-2000:]
    assert "the gateway's MCP tools do not write it either" in told and rule in told, told[-2000:]


def test_claude_code_a_path_rule_holds_for_the_gateways_mcp_writes_under_it_only(workspace: Path, tmp_path: Path) -> None:
    """`Edit(src/**)` in the project's local settings: the MCP edit of src/prices.py is refused
    with the rule named; the same edit of prices.py, outside src/, is written."""
    session = HostSession("claude-code", workspace, tmp_path)
    install(session, workspace, "claude-code", "--mcp-writes")
    (workspace / "src").mkdir()
    (workspace / "src" / "prices.py").write_text(SOURCE)
    (workspace / ".claude" / "settings.local.json").write_text(json.dumps({"permissions": {"deny": ["Edit(src/**)"]}}))
    calls = [(MCP_EDIT["claude-code"], {"path": str(path), "old_string": BODY_OLD, "new_string": BODY_NEW})
             for path in (workspace / "src" / "prices.py", workspace / "prices.py")]
    result = session.run([*_mcp_connected("claude-code"), *calls], permission_mode="bypassPermissions")
    session.close()
    assert (workspace / "src" / "prices.py").read_text() == SOURCE
    assert (workspace / "prices.py").read_text() == BODY_EDITED, _sent_back(result)[-2000:]
    assert "denied for this file (Edit(src/**) in permissions.deny" in result.tool_results[-2], result.tool_results


@pytest.mark.parametrize("installed", ["copilot", "claude-code"])
def test_copilot_tells_the_model_why_a_config_error_refuses_the_edit(installed: str, workspace: Path, tmp_path: Path) -> None:
    """A key `.gateway/config.toml` does not have is an error naming it, and Copilot CLI (which
    shows the model only the exit code of a hook that exits 2) gets it as its deny with the reason,
    from its own hook and from Claude Code's, which it also runs."""
    session = HostSession("copilot", workspace, tmp_path)
    install(session, workspace, installed)
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[typed_edits]\nenforse = true\n")
    result = session.run(steps("copilot", workspace / "prices.py", BODY_OLD, BODY_NEW))
    session.close()
    assert (workspace / "prices.py").read_text() == SOURCE
    assert "[typed_edits] has no key 'enforse' (its keys: enforce, grant_ttl_seconds, protected)" in _sent_back(result), result.tool_results


def test_copilot_running_claude_codes_mcp_server_obeys_copilots_deny(workspace: Path, tmp_path: Path) -> None:
    """Copilot CLI also runs the server Claude Code's install registers (`.mcp.json`, told
    `--host claude-code`): the server finds Copilot among its parents and obeys `--deny-tool write`."""
    session = HostSession("copilot", workspace, tmp_path)
    install(session, workspace, "claude-code", "--mcp-writes")
    call = (MCP_EDIT["copilot"], {"path": str(workspace / "prices.py"), "old_string": BODY_OLD, "new_string": BODY_NEW})
    result = session.run([call], extra_args=("--deny-tool", "write"))
    session.close()
    assert (workspace / "prices.py").read_text() == SOURCE, _sent_back(result)[-2000:]
    assert "copilot's own edit tools are denied for this write (--deny-tool write)" in _sent_back(result), result.tool_results
