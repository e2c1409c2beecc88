"""A server that crashes, hangs or answers garbage: a one-line error, the file untouched,
a fresh server on the next call, no process left behind. The fake server is pygls."""

from __future__ import annotations

import gc
import json
import os
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from gateway import progress
from gateway.api import Gateway
from gateway.errors import ServerFailed
from gateway.langs import LanguageRegistry
from gateway.lsp import waiting as waiting_module
from gateway.lsp.adapters import adapter_for
from gateway.lsp.early import _record_path, _spawn, start_early, start_recorded
from gateway.lsp.manager import SessionManager, waiting_at_most
from gateway.progress import Update
from tests.conftest import FAKE_SERVER, FAKE_SOURCE



def _alive(pid: int | None) -> bool:
    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _session_pid(gateway: Gateway) -> int | None:
    sessions = list(gateway.sessions._sessions.values())
    return sessions[0].pid if sessions else None


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("crash", r"the server exited \(code 3\)"),
        ("hang", r"no answer within 2s"),
        ("garbage", r"garbage documentSymbol reply: not a list of symbols"),
        ("malformed", r"malformed symbol in documentSymbol reply"),
    ],
)
def test_fault_leaves_file_and_recovers(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path, mode: str, reason: str
) -> None:
    # Only the hang needs a short timeout; the other faults must not race a slow start on a busy machine.
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "2" if mode == "hang" else "30")
    monkeypatch.setenv("FAKE_LSP_MODE", mode)
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        gateway.sessions.session_for(fake_registry.get("python"))  # started: a call answers from tree-sitter until it is
        with pytest.raises(ServerFailed, match=reason) as failed:
            gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n")
        assert "\n" not in str(failed.value)
        assert (fake_workspace / "m.py").read_text() == FAKE_SOURCE
        broken_pid = _session_pid(gateway)

        monkeypatch.setenv("FAKE_LSP_MODE", "ok")
        gateway.sessions.timeout = 30  # the fresh server's start must not race a busy machine
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n").to_json()
        assert result["backend"].startswith("lsp:")
        assert (fake_workspace / "m.py").read_text() == "def f():\n    return 2\n"
        assert not _alive(broken_pid), "the failed server was left running"
        live_pid = _session_pid(gateway)
        assert _alive(live_pid) and live_pid != broken_pid
    assert not _alive(live_pid), "closing the gateway left the server running"


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("mode", ["flaky", "cache-race"])
def test_an_error_the_adapter_knows_to_pass_is_asked_again(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path, mode: str
) -> None:
    monkeypatch.setenv("FAKE_LSP_MODE", mode)
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n").to_json()
        assert result["backend"].startswith("lsp:")
        assert not list(gateway.sessions._sessions.values())[0].broken
    assert (fake_workspace / "m.py").read_text() == "def f():\n    return 2\n"


@pytest.mark.usefixtures("processes")
def test_a_server_still_loading_the_workspace_leaves_the_operations_to_tree_sitter(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """As jdtls on a large project's first import: the server is not killed for it, tree-sitter answers and says why."""
    monkeypatch.setenv("FAKE_LSP_MODE", "loading")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    monkeypatch.setattr(waiting_module, "READY_PATIENCE", 0.5)
    adapter = adapter_for("jedi")  # the registry's python server is the fake one: let it announce readiness as jdtls does
    monkeypatch.setattr(adapter, "announces_ready", True)
    monkeypatch.setattr(adapter, "readiness", lambda method, params: (False, params["message"]) if method == "language/status" else None)
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        listing = gateway.symbols("m.py").to_json()
        assert listing["backend"] == "tree-sitter" and "is still loading the workspace" in listing["note"]
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n").to_json()
        assert result["backend"] == "tree-sitter" and "is still loading the workspace" in result["message"]
        assert (fake_workspace / "m.py").read_text() == "def f():\n    return 2\n"
        renamed = gateway.rename_symbol("f", "m.py", "g").to_json()
        assert renamed["backend"] == "tree-sitter" and "is still loading the workspace" in renamed["fallback"]
        session = gateway.sessions.running()[0]
        assert not session.broken and _alive(session.pid), "a server that is loading is left to load"


@pytest.mark.usefixtures("processes")
def test_a_server_that_never_analyses_a_file_is_waited_for_once_within_the_timeout(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """A request across files waits for the server to analyse the files last sent (as clangd
    must before a rename back): at most half the timeout, the server not broken for it, and
    not again for the same text."""
    monkeypatch.setenv("FAKE_LSP_MODE", "unanalysed")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "2")
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        gateway.sessions.session_for(fake_registry.get("python"))  # started: a call answers from tree-sitter until it is
        gateway.symbols("m.py")
        [session] = gateway.sessions.running()
        assert session.versions_diagnostics and session.reports.unanalysed(dict(session._versions))
        assert not session.wait_for_open_documents()
        assert not session.broken and not session.reports.unanalysed(dict(session._versions))  # not waited for again
        gateway.remove_symbol("f", "m.py")  # asks the server for references first
        assert not session.broken
    assert (fake_workspace / "m.py").read_text() == ""


@pytest.mark.usefixtures("processes")
def test_no_symbols_from_the_server_in_a_file_with_definitions_is_not_an_empty_file(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    monkeypatch.setenv("FAKE_LSP_MODE", "empty")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        listing = gateway.symbols("m.py").to_json()
        assert listing["backend"] == "tree-sitter" and "reports no symbol in this file" in listing["note"]
        assert [s["name_path"] for s in listing["symbols"]] == ["f"]


@pytest.mark.usefixtures("processes")
def test_a_server_started_before_the_engine_answers_its_first_call_or_fails_it(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """A cold CLI command starts the file's server before it loads the engine (gateway.lsp.early):
    the engine's first call gets that server's answer, asked ahead, or what it failed with."""
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    assert start_early(str(fake_workspace), "m.py", fake_registry) is None
    monkeypatch.delenv("GATEWAY_NO_SERVERS")
    with Gateway(fake_workspace, registry=fake_registry, sessions=start_early(str(fake_workspace), "m.py", fake_registry)) as gateway:
        assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
        [session] = gateway.sessions.running()
        assert session.documents.answer((fake_workspace / "m.py").resolve().as_uri(), FAKE_SOURCE) is not None
        assert type(session._handler).__name__ == "AdoptingHandler"  # the process started before the session's imports
        pid = session.pid
    assert not _alive(pid)
    monkeypatch.setenv("FAKE_LSP_MODE", "crash")
    with Gateway(fake_workspace, registry=fake_registry, sessions=start_early(str(fake_workspace), "m.py", fake_registry)) as gateway:
        with pytest.raises(ServerFailed, match=r"the server exited \(code 3\)"):
            gateway.symbols("m.py")


@pytest.mark.usefixtures("processes")
def test_a_server_started_early_and_never_talked_to_ends_with_its_sessions(fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    """A cold command that starts the file's server and then stops before any session talks to
    it (it refused the file, say) leaves no process behind."""
    lang = fake_registry.get("python")
    assert lang is not None
    started = _spawn(lang, fake_workspace)
    assert started is not None
    key, process = started
    sessions = SessionManager(fake_workspace)
    sessions.adopt(key, process)
    assert _alive(process.pid)
    sessions.close()
    assert process.poll() is not None and not _alive(process.pid)


@pytest.mark.usefixtures("processes")
def test_a_cold_command_on_a_file_it_refuses_leaves_no_server_it_started(fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    """The server of a file named `.py` starts before the file is read; when the command then
    refuses the file (it is not there), that server is ended at once."""
    before = {child.pid for child in psutil.Process().children(recursive=True)}
    assert start_early(str(fake_workspace), "missing.py", fake_registry) is None
    assert {child.pid for child in psutil.Process().children(recursive=True)} - before == set()


def _children() -> set[int]:
    return {child.pid for child in psutil.Process().children(recursive=True)}


@pytest.mark.usefixtures("processes")
def test_a_cold_command_starts_the_server_its_predecessor_recorded_and_adopts_it_only_if_planned_alike(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """A cold command leaves the launch of a server it started for a file its name alone told the
    language of; the next one starts that launch before it reads the language table, and its
    session talks to it. A recorded launch that the plan made then does not give is ended."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    assert start_recorded(str(fake_workspace), "m.py") is None  # no record yet
    start_early(str(fake_workspace), "m.py", fake_registry).close()  # type: ignore[union-attr]
    record = json.loads(Path(_record_path()).read_text())
    assert list(record) == [".py"] and record[".py"]["line"][-1] == str(Path(__file__).parent / "fake_lsp_server.py")
    assert os.stat(_record_path()).st_mode & 0o777 == 0o600

    recorded = start_recorded(str(fake_workspace), "m.py")
    assert recorded is not None
    with Gateway(fake_workspace, registry=fake_registry, sessions=start_early(str(fake_workspace), "m.py", fake_registry, recorded)) as gateway:
        assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
        [session] = gateway.sessions.running()
        assert session.pid == recorded[2].pid  # the recorded launch is the one talked to
    assert not _alive(recorded[2].pid)

    before = _children()
    record[".py"]["env"]["PATH"] = "/elsewhere"  # planned now with another PATH: not the same launch
    Path(_record_path()).write_text(json.dumps(record))
    stale = start_recorded(str(fake_workspace), "m.py")
    assert stale is not None
    with Gateway(fake_workspace, registry=fake_registry, sessions=start_early(str(fake_workspace), "m.py", fake_registry, stale)) as gateway:
        assert stale[2].poll() is not None  # ended, a fresh one started in its place
        assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
        assert gateway.sessions.running()[0].pid != stale[2].pid
    assert _children() - before == set()


@pytest.mark.parametrize("record", [
    "FIFO",
    "not json",
    json.dumps([".py"]),
    json.dumps({".py": {"key": [], "line": ["/bin/sh", "-c", "touch pwned"], "env": {}, "stamp": None}}),
    json.dumps({".py": {"key": [], "line": "python", "env": {}, "stamp": None}}),
])
def test_a_record_the_gateway_did_not_write_starts_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, fake_workspace: Path, record: str
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    Path(_record_path()).parent.mkdir(parents=True)
    if record == "FIFO":
        os.mkfifo(_record_path())  # never waited on
    else:
        Path(_record_path()).write_text(record)
    before = _children()
    assert start_recorded(str(fake_workspace), "m.py") is None
    assert _children() - before == set() and not (fake_workspace / "pwned").exists()


@pytest.mark.usefixtures("processes")
def test_a_session_closed_or_ended_at_exit_leaves_no_pending_task(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """Either way a session ends (`close`, or `end_at_exit` in a process about to exit), its
    handler's reading tasks are finished on its own loop: none is destroyed pending when the
    session is collected, and no transport outlives its loop. Sessions that started their
    server and sessions that adopted one a cold command started."""
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    unraisable: list[str] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda failure: unraisable.append(repr(failure.exc_value)))
    threads = []
    for early, exiting in [(False, False), (False, True), (True, False), (True, True)]:
        sessions = start_early(str(fake_workspace), "m.py", fake_registry) if early else None
        with Gateway(fake_workspace, registry=fake_registry, sessions=sessions) as gateway:
            assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
            [session] = gateway.sessions.running()
            threads.append(session._thread)
            gateway.close(exiting=exiting)
        del gateway, session, sessions
    for thread in threads:
        thread.join(timeout=30)  # end_at_exit returned at once; its loop finishes on its own thread
        assert not thread.is_alive()
    gc.collect()
    assert [record.getMessage() for record in caplog.records if record.name == "asyncio"] == []
    assert unraisable == []


@pytest.mark.usefixtures("processes")
def test_what_only_reads_the_sessions_does_not_wait_for_a_server_starting(
        monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    # A daemon's status lists the running servers while one is starting (the one it starts ahead).
    monkeypatch.setenv("FAKE_LSP_SLOW", "3")
    manager = SessionManager(fake_workspace, timeout=30)
    try:
        starting = threading.Thread(target=manager.session_for, args=(fake_registry.get("python"),))
        starting.start()
        deadline = time.monotonic() + 20
        while not manager._starting.locked() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert manager._starting.locked(), "the server never began to start"
        listed = threading.Thread(target=manager.running)
        listed.start()
        listed.join(1.5)
        assert not listed.is_alive(), "running() waited for the server's start"
        assert starting.is_alive()  # still starting: it answers initialize after 3 s
        said: list[Update] = []
        with progress.reporting(said.append, "symbols", after=0, every=0.1):  # a call for the same server meanwhile
            second = manager.session_for(fake_registry.get("python"))
        starting.join(30)
        assert manager.running() == [second]
        assert any(f"waiting for {Path(sys.executable).name} to start" in update.text for update in said), [u.text for u in said]
    finally:
        manager.close()


@pytest.mark.usefixtures("processes")
def test_a_server_slow_to_start_costs_a_call_with_a_shorter_budget_neither_its_answer_nor_the_server(
        monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    """As jdtls starting on a large project under a hook's budget shorter than its start: the
    symbols and a routed edit come from tree-sitter within the budget and say the server is
    still starting (a call that needs the server says so too); the server is not killed for it,
    and once started it answers the calls after."""
    monkeypatch.setenv("FAKE_LSP_SLOW", "4")  # initialize answered 4 s late
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "30")
    starting = f"{Path(sys.executable).name} is still starting"
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        began = time.monotonic()
        with waiting_at_most(2):  # a hook's budget (hooks.client.SERVER_SECONDS), shorter than the start
            listing = gateway.symbols("m.py").to_json()
            routed = gateway.edit("m.py", FAKE_SOURCE, "def f(a):\n    return a\n\n\ndef g():\n    return 2\n", route=True).to_json()
            with pytest.raises(ServerFailed, match="still starting after 2s; it goes on starting"):
                gateway.sessions.session_for(fake_registry.get("python"))
        assert time.monotonic() - began < 3.5, "the calls waited for the start"
        assert (listing["backend"], listing["note"]) == ("tree-sitter", starting)
        assert (routed["decision"], routed["backend"], routed["note"]) == ("routed", "tree-sitter", starting), routed
        assert f"via tree-sitter ({starting})" in routed["message"]
        assert (fake_workspace / "m.py").read_text() == "def f(a):\n    return a\n\n\ndef g():\n    return 2\n"
        deadline = time.monotonic() + 30
        while not gateway.sessions.running() and time.monotonic() < deadline:
            time.sleep(0.1)
        [session] = gateway.sessions.running()
        assert not session.broken and _alive(session.pid), "the server was killed for a caller's budget"
        assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
        assert gateway.sessions.running() == [session]
    assert not _alive(session.pid)


@pytest.mark.usefixtures("processes")
def test_closing_while_a_server_starts_ends_it_without_waiting_for_its_start(
        monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    """A hook answered in its own process closes its engine right after the answer: a server
    still starting then is ended, not waited for (the answer would wait for the start)."""
    monkeypatch.setenv("FAKE_LSP_SLOW", "20")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "60")
    before = _children()
    gateway = Gateway(fake_workspace, registry=fake_registry)
    with waiting_at_most(1):
        assert gateway.symbols("m.py").to_json()["backend"] == "tree-sitter"
    began = time.monotonic()
    gateway.close()
    assert time.monotonic() - began < 5, "closing waited for the server's start"
    deadline = time.monotonic() + 10
    while _children() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _children() - before == set()


@pytest.mark.usefixtures("processes")
def test_a_start_that_fails_after_the_call_went_on_without_it_is_said_once_then_tried_afresh(
        monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path) -> None:
    """A server silent past the timeout at initialize is killed in the background: the call
    that finds its failure routes on tree-sitter and says it could not start and why; the
    next call starts a fresh one."""
    monkeypatch.setenv("FAKE_LSP_SLOW", "30")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "2")
    name = Path(sys.executable).name
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        notes = [gateway.symbols("m.py").to_json()["note"]]
        deadline = time.monotonic() + 30
        while "could not start" not in notes[-1] and time.monotonic() < deadline:
            time.sleep(0.2)
            notes.append(gateway.symbols("m.py").to_json()["note"])
        assert set(notes[:-1]) == {f"{name} is still starting"}, notes
        assert notes[-1] == f"{name} could not start (no answer within 2s, so it was killed; the next call starts a fresh one); symbols from tree-sitter"
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n").to_json()
        assert result["backend"] == "tree-sitter" and f"({name} is still starting)" in result["message"]
    assert (fake_workspace / "m.py").read_text() == "def f():\n    return 2\n"


@pytest.mark.usefixtures("processes")
def test_a_server_that_dies_as_it_starts_fails_its_start_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The exit of a server still being initialised fails the start when it happens, not at
    the start's timeout (the handler makes the process as `initialize` begins)."""
    from gateway.lsp.session import LspSession

    monkeypatch.setenv("FAKE_LSP_MODE", "die-starting")
    began = time.monotonic()
    with pytest.raises(ServerFailed, match=r"the server exited \(code 5\)"):
        LspSession("fake-lsp", (sys.executable, str(FAKE_SERVER)), tmp_path, adapter_for("generic"), 60).start()
    assert time.monotonic() - began < 30, "noticed only at the start's timeout"


@pytest.mark.usefixtures("processes")
def test_a_server_that_writes_long_lines_on_stderr_keeps_answering(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """zuban now and then writes a line of 100 KiB on stderr: read by lines of at most 64 KiB, the
    reading stopped there, and the server blocked on its next write, answering nothing more."""
    monkeypatch.setenv("FAKE_LSP_MODE", "loud")
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "20")
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        for run in range(6):  # a new text each time, so that each is asked of the server
            (fake_workspace / "m.py").write_text(f"{FAKE_SOURCE}# {run}\n")
            assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:"), run
        assert not gateway.sessions.running()[0].broken


@pytest.mark.usefixtures("processes")
def test_a_file_just_written_has_its_structure_kept_before_the_server_answers(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    """`SymbolService.ahead` (the daemon's ask about a text just written) keeps the text's
    tree-sitter structure, which the next write is lifted on, before it waits for the server: a
    server that takes seconds over a long file does not leave the next write to work it out."""
    from gateway.symbols import structure
    from gateway.syntax import parse, utf8

    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "60")  # the hung ask outlasts the wait below
    monkeypatch.setenv("FAKE_LSP_MODE", "hang")  # never answers documentSymbol
    path = (fake_workspace / "m.py").resolve()
    text = FAKE_SOURCE + "\n\nclass Later:\n    def g(self):\n        return 2\n"
    path.write_text(text)
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        lang = fake_registry.get("python")
        session = gateway.sessions.session_for(lang)
        assert session is not None and session.wait_ready()
        gateway.symbol_service.asks_ahead = True
        gateway.symbol_service.ahead(path, text)
        kept = None
        deadline = time.monotonic() + 20
        while (kept is None or kept.outermost is None) and time.monotonic() < deadline:
            time.sleep(0.05)
            kept = structure._recall(lang, parse(lang, utf8(text)))
        assert gateway.symbol_service.asked_ahead(path), "the server answered documentSymbol in mode hang"
        assert kept is not None and [s.name_path for s in kept.symbols] == ["f", "Later", "Later/g"]
        assert kept.outermost == [(0, len(FAKE_SOURCE) - 1), (text.index("class"), len(text) - 1)]  # lift_near's, kept with them
