"""The workspace daemon: autostart, fallback, crashes of the daemon and of its servers, idle exit,
stale sockets, two workspaces, concurrent edits, the hook's light client, and one daemon for
callers of any environment, each answered with its own settings or in its own process. Real daemons and
real language servers (zuban for Python), each test with its own runtime directory."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from gateway.surfaces import daemon_client
from tests.conftest import make_workspace
from tests.rpc_client import edit_counters_concurrently
from tests.caller_cases import GO, GO_NEW, GO_OLD, GO_WORKSPACE
from tests.test_cli_symbols import HEADER_EDIT

pytestmark = pytest.mark.usefixtures("processes")

STRUCTURAL_EDIT = {"old_string": "def area(width, height):\n    return width * height\n", "new_string": ""}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Daemons allowed, in a runtime directory of this test; every daemon left is killed after."""
    runtime = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    monkeypatch.delenv("GATEWAY_NO_DAEMON", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield dict(os.environ)
    for pid_file in (runtime / "gateway").glob("*.pid"):
        try:
            process = psutil.Process(int(pid_file.read_text()))
            family = [process, *process.children(recursive=True)]
        except (psutil.NoSuchProcess, ValueError, OSError):
            continue
        for member in family:
            with contextlib.suppress(psutil.NoSuchProcess):  # it may end between listing and killing
                member.kill()
    shutil.rmtree(runtime, ignore_errors=True)


def gateway(env: dict[str, str], *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway", *args], env=env, input=stdin, capture_output=True, text=True, timeout=120)


def _status(workspace: Path) -> dict | None:
    try:
        return daemon_client.request(workspace, "gateway/status", {}, timeout=10)
    except daemon_client.DaemonUnavailable:
        return None


def _wait_for(predicate, seconds: float = 30.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _start(env: dict[str, str], workspace: Path) -> dict:
    started = gateway(env, "daemon", "start", "--workspace", str(workspace), "--json")
    assert started.returncode == 0, started.stderr
    return json.loads(started.stdout)


def _gone(pids: list[int]) -> bool:
    return _wait_for(lambda: not [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE], 20)


def _servers_in(workspace: Path) -> list[int]:
    """Live Python server processes (zuban) (or reapers leashing one) run in `workspace`."""
    found = []
    for process in psutil.process_iter(["cmdline", "cwd", "status"]):
        cmdline = process.info["cmdline"] or []
        if process.info["cwd"] == str(workspace) and process.info["status"] != psutil.STATUS_ZOMBIE \
                and any(part.endswith("zuban") for part in cmdline):
            found.append(process.pid)
    return found


def _descends_from(pid: int, ancestor: int) -> bool:
    try:
        return ancestor in [parent.pid for parent in psutil.Process(pid).parents()]
    except psutil.NoSuchProcess:
        return True  # gone: nothing left of it


def test_autostart_then_the_daemon_answers_the_same(env: dict[str, str], workspace: Path) -> None:
    assert _status(workspace) is None
    os.utime(workspace / "pkg" / "use.py", (time.time() + 60, time.time() + 60))  # the newest file is not the call's
    first = gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(workspace), "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["backend"] == "lsp:zuban"
    # Its zuban was killed, not shut down politely, as the command exited: nothing of it lives on
    # (the daemon it started starts one of its own).
    assert _wait_for(lambda: _status(workspace) is not None), "the first call did not start a daemon"
    daemon = psutil.Process(_status(workspace)["pid"])

    def left() -> list[int]:
        return [pid for pid in _servers_in(workspace) if not _descends_from(pid, daemon.pid)]

    assert _wait_for(lambda: not left(), 20), f"the first command left its server: {left()}"
    # The daemon started its server ahead for the file the command asked about.
    assert _wait_for(lambda: _status(workspace)["prestart"]["done"], 60), _status(workspace)
    assert _status(workspace)["prestart"]["started"] == [{"language": "python", "file": "pkg/shapes.py"}]
    served = _status(workspace)["requests"]
    second = gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(workspace), "--json")
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)
    assert _status(workspace)["requests"] == served + 2  # the symbols call and this status
    assert len(_status(workspace)["servers"]) == 1


def test_no_daemon_when_switched_off_and_the_answer_is_the_same(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nautostart = false\n")
    blocked = gateway(env, "classify", "pkg/shapes.py", "--old", STRUCTURAL_EDIT["old_string"], "--new", "", "--workspace", str(workspace), "--json")
    assert blocked.returncode == 3 and json.loads(blocked.stdout)["decision"] == "block"
    off = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, "classify", "pkg/shapes.py", "--old", STRUCTURAL_EDIT["old_string"], "--new", "",
                  "--workspace", str(workspace), "--json")
    time.sleep(1)
    assert _status(workspace) is None
    _start(env, workspace)
    warm = gateway(env, "classify", "pkg/shapes.py", "--old", STRUCTURAL_EDIT["old_string"], "--new", "", "--workspace", str(workspace), "--json")
    assert json.loads(warm.stdout) == json.loads(off.stdout) == json.loads(blocked.stdout)
    # Spelled once, by whichever answered; area is still used (pkg/use.py), so the removal named is the forced one.
    assert json.loads(warm.stdout)["commands"] == ["gateway remove-symbol area pkg/shapes.py --force"]
    assert warm.returncode == off.returncode == 3


def test_second_start_is_a_noop_and_status_reports(env: dict[str, str], workspace: Path) -> None:
    first = _start(env, workspace)
    second = _start(env, workspace)
    assert first["pid"] == second["pid"]
    gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(workspace))
    status = json.loads(gateway(env, "daemon", "status", "--workspace", str(workspace), "--json").stdout)
    assert status["servers"][0]["server"] == "zuban" and status["servers"][0]["pid"]
    assert status["memory"]["daemon_rss_bytes"] > 10 * 2**20 and status["memory"]["servers_rss_bytes"] > 10 * 2**20
    assert status["uptime_seconds"] > 0 and status["requests"] >= 3
    socket_path = Path(daemon_client.daemon_file(workspace, ".sock"))
    assert socket_path.stat().st_mode & 0o777 == 0o600 and socket_path.parent.stat().st_mode & 0o777 == 0o700
    stopped = gateway(env, "daemon", "stop", "--workspace", str(workspace))
    assert stopped.returncode == 0 and _gone([status["pid"], status["servers"][0]["pid"]])
    assert not socket_path.exists()
    assert gateway(env, "daemon", "status", "--workspace", str(workspace)).returncode == 1


def test_daemon_killed_mid_call_the_call_is_answered_no_orphans_and_a_new_daemon_next(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nprestart_servers = 0\n")  # its server is the call's
    pid = _start(env, workspace)["pid"]
    expected = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, "symbols", "pkg/shapes.py", "--workspace", str(workspace), "--json")
    call = subprocess.Popen([sys.executable, "-m", "gateway", "symbols", "pkg/shapes.py", "--workspace", str(workspace), "--json"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    daemon = psutil.Process(pid)
    assert _wait_for(lambda: bool(daemon.children(recursive=True)), 30), "the call never reached the daemon's language server"
    family = [p.pid for p in daemon.children(recursive=True)]
    daemon.kill()
    out, err = call.communicate(timeout=120)
    assert call.returncode == 0, err
    assert json.loads(out) == json.loads(expected.stdout)
    assert _gone([pid, *family]), "the daemon's language servers outlived it"
    assert gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(workspace)).returncode == 0
    assert _wait_for(lambda: (_status(workspace) or {}).get("pid") not in (None, pid)), "the next call did not start a new daemon"


def test_server_killed_mid_call_fails_that_call_then_a_fresh_one(env: dict[str, str], workspace: Path) -> None:
    _start(env, workspace)
    daemon_client.request(workspace, "gateway/symbols", {"path": "pkg/shapes.py"})
    server = _status(workspace)["servers"][0]["pid"]
    os.kill(server, signal.SIGKILL)
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(daemon_client.request(workspace, "gateway/symbols", {"path": "pkg/shapes.py"})["backend"])
        except daemon_client.DaemonError as error:
            assert error.code == -32003 and "\n" not in str(error)
            outcomes.append(error.code)
    assert outcomes[-1] == "lsp:zuban"
    fresh = _status(workspace)["servers"][0]["pid"]
    assert fresh != server and _gone([server])


def test_idle_exit_and_stale_socket(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nidle_minutes = 0.02\n")
    pid = _start(env, workspace)["pid"]
    socket_path = Path(daemon_client.daemon_file(workspace, ".sock"))
    assert _gone([pid]), "the idle daemon did not exit"
    assert not socket_path.exists()
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(socket_path))
    stale.close()  # a socket file nobody listens on, as a daemon killed with -9 leaves
    assert gateway(env, "daemon", "status", "--workspace", str(workspace)).returncode == 1
    assert _start(env, workspace)["pid"] != pid


def test_two_workspaces_side_by_side(env: dict[str, str], tmp_path: Path) -> None:
    one, two = make_workspace(tmp_path / "one"), make_workspace(tmp_path / "two")
    (two / "pkg" / "shapes.py").write_text("def only_here():\n    return 2\n")
    first, second = _start(env, one), _start(env, two)
    assert first["pid"] != second["pid"] and first["workspace"] == str(one) and second["workspace"] == str(two)
    names = [
        [s["name_path"] for s in json.loads(gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(ws), "--json").stdout)["symbols"]]
        for ws in (one, two)
    ]
    assert "Shape" in names[0] and names[1] == ["only_here"]


def test_find_symbol_through_the_daemon_follows_the_files_as_a_process_without_it(env: dict[str, str], workspace: Path) -> None:
    """The daemon's definition index, warm in its memory, is the one the CLI reads from disk:
    after files are added, changed and deleted, both answer what the files hold now."""
    _start(env, workspace)
    ask = ["find-symbol", "area", "--workspace", str(workspace), "--json"]
    before = json.loads(gateway(env, *ask).stdout)
    assert [m["path"] for m in before["matches"]] == ["pkg/shapes.py"]
    (workspace / "pkg" / "extra.py").write_text("class Room:\n    def area(self):\n        return 0\n")
    shapes = workspace / "pkg" / "shapes.py"
    shapes.write_text(shapes.read_text().replace("def area(", "def surface("))
    served = _status(workspace)["requests"]
    warm = gateway(env, *ask)
    assert _status(workspace)["requests"] == served + 2  # the daemon answered (this status is the other)
    cold = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, *ask)
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
    assert [(m["path"], m["name_path"]) for m in json.loads(warm.stdout)["matches"]] == [("pkg/extra.py", "Room/area")]
    (workspace / "pkg" / "extra.py").unlink()
    gone = json.loads(gateway(env, *ask).stdout)
    assert gone["matches"] == [] and gone == json.loads(gateway({**env, "GATEWAY_NO_DAEMON": "1"}, *ask).stdout)


def test_concurrent_edits_through_the_daemon_lose_nothing(env: dict[str, str], workspace: Path) -> None:
    _start(env, workspace)
    edit_counters_concurrently(workspace, lambda: lambda params: daemon_client.request(workspace, "gateway/edit", params))


def test_hook_through_the_daemon_answers_as_in_process_and_imports_nothing_heavy(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
    payload = json.dumps({"tool_name": "Edit", "cwd": str(workspace), "hook_event_name": "PreToolUse",
                          "tool_input": {"file_path": "pkg/shapes.py", **STRUCTURAL_EDIT}})
    local = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, "hook", "claude-code", stdin=payload)
    _start(env, workspace)
    probe = (
        "import io, sys; sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[1].encode()));"
        "from gateway.surfaces.hooks.client import main; code = main(['claude-code']);"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'tree_sitter', 'bashlex', 'pydantic', 'json', 're', 'typing'});"
        "print(code, heavy, file=sys.stderr)"
    )
    warm = subprocess.run([sys.executable, "-c", probe, payload], env=env, capture_output=True, text=True, timeout=60)
    assert json.loads(warm.stdout) == json.loads(local.stdout)
    assert json.loads(warm.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert warm.stderr.strip().splitlines()[-1] == "0 []"
    assert _status(workspace)["requests"] >= 2  # the hook was answered by the daemon
    bad = gateway(env, "hook", "claude-code", stdin='{"tool_name": "Edit", "tool_input": 3}')
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "tool_input must be an object" in bad.stderr


HEAVY = ("argparse", "re", "json", "typing", "dataclasses", "inspect", "tomllib", "gateway.config", "gateway.results", "gateway.engine",
         "gateway.api", "tree_sitter", "multilspy")
# The CLI's own entry (`run`) in a process of its own: its exit code, then the heavy modules loaded, on stderr.
CLI_PROBE = ("import sys; from gateway.surfaces.cli import run; code = run(sys.argv[1:]); sys.stdout.flush();"
             f"print(code, sorted(set(sys.modules) & set({HEAVY!r})), file=sys.stderr)")


def test_a_warm_cli_symbol_command_is_answered_by_the_daemon_without_loading_anything_heavy(env: dict[str, str], workspace: Path) -> None:
    """Issue 36: a warm symbol command reads its words, asks the daemon and prints its answer with
    the standard library's light modules alone, as the hook's client does; its output is the one
    computed in process, byte for byte."""
    _start(env, workspace)
    body = workspace.parent / "body.py"
    body.write_text("def area(width, height):\n    return height * width\n")
    for words in (["symbols", "pkg/shapes.py"], ["symbols", "pkg/shapes.py", "--json", "--depth", "1"],
                  ["find-symbol", "Shape/describe", "pkg/shapes.py", "--body"], ["find-symbol", "--json", "area", "pkg/shapes.py"],
                  ["replace-symbol", "area", "pkg/shapes.py", f"--body-file={body}", "--dry-run"]):
        local = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, *words, "--workspace", str(workspace))
        served = _status(workspace)["requests"]
        warm = subprocess.run([sys.executable, "-c", CLI_PROBE, *words, "--workspace", str(workspace)], env=env, capture_output=True,
                              text=True, timeout=60)
        assert (warm.stdout, warm.returncode) == (local.stdout, 0), (words, warm.stderr)
        assert warm.stderr.strip().splitlines()[-1] == f"{local.returncode} []", words
        assert _status(workspace)["requests"] == served + 2, words  # the call was the daemon's (and this status)
    written = subprocess.run([sys.executable, "-c", CLI_PROBE, "replace-symbol", "area", "pkg/shapes.py", "--body-file", str(body),
                              "--workspace", str(workspace)], env=env, capture_output=True, text=True, timeout=60)
    assert written.stderr.strip().splitlines()[-1] == "0 []", written.stderr
    assert "return height * width" in (workspace / "pkg" / "shapes.py").read_text()
    assert written.stdout.startswith("replace_symbol area in pkg/shapes.py")
    # What it cannot read unambiguously goes to argparse, which says the usage error as before.
    bad = gateway(env, "symbols", "pkg/shapes.py", "--depth", "x", "--workspace", str(workspace))
    assert (bad.returncode, bad.stderr) == (1, "gateway: symbols: argument --depth: invalid int value: 'x'\n")


def test_a_hook_with_no_daemon_starts_one_that_warms_the_file_edited(env: dict[str, str], workspace: Path) -> None:
    os.utime(workspace / "pkg" / "use.py", (time.time() + 60, time.time() + 60))  # the newest file is not the edit's
    payload = json.dumps({"tool_name": "Edit", "cwd": str(workspace), "hook_event_name": "PreToolUse",
                          "tool_input": {"file_path": "pkg/shapes.py", "old_string": "return width * height", "new_string": "return height * width"}})
    answered = gateway(env, "hook", "claude-code", stdin=payload)
    assert answered.returncode == 0, answered.stderr
    assert _wait_for(lambda: (_status(workspace) or {}).get("prestart", {}).get("done"), 60), "no daemon warmed anything"
    assert _status(workspace)["prestart"]["started"] == [{"language": "python", "file": "pkg/shapes.py"}]


def test_the_mcp_server_starts_the_daemon_as_it_starts_and_its_first_call_finds_the_server_started(
        env: dict[str, str], workspace: Path) -> None:
    server = subprocess.Popen([sys.executable, "-m", "gateway", "mcp", "--workspace", str(workspace)], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        assert _wait_for(lambda: (_status(workspace) or {}).get("prestart", {}).get("done"), 60), "gateway mcp started no daemon"
        servers = _status(workspace)["servers"]
        assert [s["server"] for s in servers] == ["zuban"]
        assert server.stdin is not None and server.stdout is not None
        for message in ({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}},
                        {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "find_symbol", "arguments": {
                            "name_path": "area", "path": "pkg/shapes.py"}}}):
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(2)]
        assert '"name_path":"area"' in replies[1]["result"]["content"][0]["text"], replies[1]
        assert _status(workspace)["servers"] == servers  # answered by the daemon's server: none started for the call
    finally:
        server.kill()
        server.wait()


def test_a_session_start_starts_no_daemon_when_autostart_is_off(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nautostart = false\n")
    started = gateway(env, "hook", "claude-code", stdin=json.dumps({"hook_event_name": "SessionStart", "cwd": str(workspace)}))
    assert started.returncode == 0 and started.stdout == "", started.stderr
    time.sleep(1)
    assert _status(workspace) is None


def test_the_daemon_forwards_what_it_waits_on_to_the_cli_that_asked(env: dict[str, str], workspace: Path) -> None:
    assert gateway({**env, "GATEWAY_PROGRESS_AFTER": "0"}, "daemon", "start", "--workspace", str(workspace)).returncode == 0
    # The CLI would wait 1000 s before saying anything itself: what it says comes from the daemon.
    done = gateway({**env, "GATEWAY_PROGRESS_AFTER": "1000"}, "symbols", "pkg/shapes.py", "--json", "--workspace", str(workspace))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["backend"] == "lsp:zuban"
    lines = done.stderr.splitlines()
    assert lines[0].startswith("gateway: symbols") and lines[-1].startswith("gateway: symbols: done ("), lines


def _symbols(env: dict[str, str], workspace: Path) -> subprocess.CompletedProcess[str]:
    return gateway(env, "symbols", "pkg/shapes.py", "--workspace", str(workspace), "--json")


def test_callers_with_other_paths_and_settings_share_one_daemon_answered_with_their_own(
        env: dict[str, str], workspace: Path, tmp_path: Path) -> None:
    pid = _start(env, workspace)["pid"]
    assert json.loads(_symbols(env, workspace).stdout)["backend"] == "lsp:zuban"
    other_path = {**env, "PATH": os.pathsep.join([str(tmp_path), *reversed(env["PATH"].split(os.pathsep))])}
    no_servers = {**env, "GATEWAY_NO_SERVERS": "1"}
    bad_timeout = {**env, "GATEWAY_LSP_TIMEOUT": "abc"}
    backends = []
    for caller in (other_path, no_servers, bad_timeout):
        served, local = _symbols(caller, workspace), _symbols({**caller, "GATEWAY_NO_DAEMON": "1"}, workspace)
        last_line = [run.stderr.strip().rpartition("\n")[2] for run in (served, local)]  # before it, what either waited on
        assert (served.returncode, served.stdout, last_line[0]) == (local.returncode, local.stdout, last_line[1])
        backends.append(json.loads(served.stdout)["backend"] if served.returncode == 0 else last_line[0])
    assert backends == ["lsp:zuban", "tree-sitter", "gateway: GATEWAY_LSP_TIMEOUT must be a number of seconds above 0, not 'abc'"]
    status = _status(workspace)
    assert status["pid"] == pid and len(status["servers"]) == 1 and status["not_served"]["requests"] == 0
    assert status["requests"] >= 5  # every call above reached this one daemon
    assert [p.name for p in Path(env["XDG_RUNTIME_DIR"], "gateway").glob("*.sock")] == [Path(daemon_client.daemon_file(workspace, ".sock")).name]


def test_a_caller_with_another_state_directory_is_answered_in_process_without_a_second_daemon(
        env: dict[str, str], workspace: Path, tmp_path: Path) -> None:
    pid = _start(env, workspace)["pid"]
    other = {**env, "XDG_STATE_HOME": str(tmp_path / "state")}
    blocked = gateway(other, "classify", "pkg/shapes.py", "--old", STRUCTURAL_EDIT["old_string"], "--new", "", "--workspace", str(workspace), "--json")
    local = gateway({**other, "GATEWAY_NO_DAEMON": "1"}, "classify", "pkg/shapes.py", "--old", STRUCTURAL_EDIT["old_string"], "--new", "",
                    "--workspace", str(workspace), "--json")
    assert blocked.returncode == local.returncode == 3 and blocked.stdout == local.stdout
    told = gateway(other, "daemon", "status", "--workspace", str(workspace))
    assert told.returncode == 0 and f"(pid {pid})" in told.stdout
    assert "answered in process" in told.stdout and str(tmp_path / "state") in told.stdout
    assert len(list(Path(env["XDG_RUNTIME_DIR"], "gateway").glob("*.pid"))) == 1
    status = _status(workspace)
    assert status["pid"] == pid and status["not_served"]["requests"] == 1 and status["serves_caller"]


def test_a_language_server_grown_past_its_budget_is_restarted_between_requests(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nserver_growth_mib = 0.001\n")
    _start(env, workspace)
    first = daemon_client.request(workspace, "gateway/symbols", {"path": "pkg/shapes.py"})
    server = _status(workspace)["servers"][0]["pid"]

    grown = workspace / "pkg" / "use.py"

    def restarted() -> bool:  # each request gives the server a new text to read, so it grows
        grown.write_text(grown.read_text() + "# more\n")
        daemon_client.request(workspace, "gateway/findSymbol", {"name_path": "Shape", "path": "pkg/use.py"})
        return _status(workspace)["servers_restarted"] >= 1

    assert _wait_for(restarted, 60), "the grown server was never restarted"
    assert _gone([server])
    again = daemon_client.request(workspace, "gateway/symbols", {"path": "pkg/shapes.py"})
    assert again == first and first["backend"] == "lsp:zuban"


def test_the_daemon_starts_the_leading_language_server_ahead_for_the_newest_file(env: dict[str, str], workspace: Path) -> None:
    os.utime(workspace / "pkg" / "use.py", (time.time() + 60, time.time() + 60))
    _start(env, workspace)
    assert _wait_for(lambda: _status(workspace)["prestart"]["done"], 60), _status(workspace)
    status = _status(workspace)
    assert status["prestart"] == {"servers": 1, "started": [{"language": "python", "file": "pkg/use.py"}], "done": True, "error": None}
    assert [s["server"] for s in status["servers"]] == ["zuban"]
    told = gateway(env, "daemon", "status", "--workspace", str(workspace)).stdout
    assert "started ahead: python (for pkg/use.py)" in told, told
    # The session's first call talks to that server: none is started for it.
    assert json.loads(_symbols(env, workspace).stdout)["backend"] == "lsp:zuban"
    assert _status(workspace)["servers"] == status["servers"]


def test_no_server_is_started_ahead_when_switched_off(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nprestart_servers = 0\n")
    _start(env, workspace)
    assert _wait_for(lambda: _status(workspace)["prestart"]["done"], 60)
    status = _status(workspace)
    assert status["prestart"]["started"] == [] and status["servers"] == [] and not _servers_in(workspace)
    assert json.loads(_symbols(env, workspace).stdout)["backend"] == "lsp:zuban"
    assert [s["server"] for s in _status(workspace)["servers"]] == ["zuban"]  # started by that call


def test_a_daemon_that_cannot_start_says_why_at_once(env: dict[str, str], workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[daemon]\nprestart_servers = true\n")
    started = time.monotonic()
    failed = gateway(env, "daemon", "start", "--workspace", str(workspace))
    assert failed.returncode == 1 and time.monotonic() - started < 15
    assert failed.stderr.strip() == ("gateway: the daemon exited as it started: .gateway/config.toml: [daemon] prestart_servers "
                                     "must be a whole number from 0 to 16"), failed.stderr
    assert _status(workspace) is None


@pytest.mark.usefixtures("servers")
@pytest.mark.workspace(copy=None, files=GO_WORKSPACE)
def test_a_writes_verification_and_a_refusal_for_its_new_errors_come_back_whole_through_the_daemon(
        env: dict[str, str], workspace: Path) -> None:
    """The verification crosses the daemon's socket as JSON: the preview's answer is the one the
    command computes in process, field for field; the refusal keeps its kind, exit code and errors."""
    edit = (*HEADER_EDIT, "--workspace", str(workspace))
    local = gateway({**env, "GATEWAY_NO_DAEMON": "1"}, *edit, "--dry-run", "--json")
    assert local.returncode == 0, local.stderr
    _start(env, workspace)
    served = _status(workspace)["requests"]
    warm = gateway(env, *edit, "--dry-run", "--json")
    assert _status(workspace)["requests"] == served + 2  # the edit and this status: the daemon answered
    assert json.loads(warm.stdout) == json.loads(local.stdout)
    assert [(e["path"], e["line"]) for e in json.loads(warm.stdout)["new_errors"]] == [("checkout.go", 4)]
    (workspace / ".gateway").mkdir(exist_ok=True)
    (workspace / ".gateway" / "config.toml").write_text('[verify]\non_new_errors = "refuse"\n')
    refused = gateway(env, *edit, "--json")
    error = json.loads(refused.stdout)["error"]
    assert (refused.returncode, error["kind"], error["new_errors"][0]["path"]) == (3, "new_errors", "checkout.go")
    assert "\n  checkout.go:4:" in refused.stderr and (workspace / "shop.go").read_text() == GO
    with pytest.raises(daemon_client.DaemonError) as rpc:  # the JSON-RPC method itself, previewed: refused as the write is
        daemon_client.request(workspace, "gateway/edit", {"path": "shop.go", "old_string": GO_OLD, "new_string": GO_NEW, "dry_run": True})
    assert (rpc.value.code, rpc.value.data["error"]["new_errors"][0]["line"]) == (-32012, 4)  # type: ignore[index]
