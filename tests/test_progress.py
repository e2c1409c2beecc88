"""A wait longer than the threshold says what it is doing (a server starting, indexing), on every
surface in its own way; a shorter one says nothing. Thresholds are shortened by parameter (or
GATEWAY_PROGRESS_AFTER for a separate process) or the clock is faked: nothing here measures speed."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gateway import progress
from gateway.api import Gateway
from gateway.langs import LanguageRegistry
from gateway.progress import Reporter, StreamSink, Update
from tests.rpc_client import RpcClient

FIXTURES = Path(__file__).parent / "fixtures"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_silent_before_the_threshold_then_says_what_it_waits_on_and_keeps_saying_it() -> None:
    clock, said = Clock(), []
    reporter = Reporter(said.append, "symbols", after=2, every=5, gap=1, clock=clock)
    with reporter.doing("starting gopls"):
        clock.now = 1.9
        reporter.tick()
        assert said == []
        clock.now = 2.0
        reporter.tick()
        assert [(u.kind, u.text) for u in said] == [("begin", "symbols: starting gopls (2 s)")]
        clock.now = 6.9
        reporter.tick()  # nothing new, and not yet time to repeat
        assert len(said) == 1
        clock.now = 7.0
        reporter.tick()
        assert said[-1].kind == "report" and said[-1].text == "symbols: starting gopls (7 s)"
        work = "Indexing: 2/5 files (40%)"
        with reporter.doing(lambda: f"gopls: documentSymbol — {work}"):
            clock.now = 7.5
            reporter.tick()  # a new wait, but said at most once a second
            assert len(said) == 2
            clock.now = 8.0
            reporter.tick()
            assert said[-1].text == "symbols: starting gopls; gopls: documentSymbol — Indexing: 2/5 files (40%) (8 s)"
    clock.now = 75.0
    reporter.close()
    assert (said[-1].kind, said[-1].text) == ("end", "symbols: done (1 min 15 s)")


def test_a_wait_shorter_than_the_threshold_says_nothing_at_all() -> None:
    clock, said = Clock(), []
    reporter = Reporter(said.append, "symbols", after=2, clock=clock)
    with reporter.doing("starting gopls"):
        clock.now = 1.99
        reporter.tick()
    reporter.close()
    assert said == []


def test_a_failing_sink_silences_the_reporter_not_the_work() -> None:
    calls = []

    def broken(update: Update) -> None:
        calls.append(update)
        raise BrokenPipeError("stderr is gone")

    with progress.reporting(broken, "symbols", after=0) as reporter:
        reporter.tick()
        reporter.tick()
    assert len(calls) == 1


def test_without_a_reporter_doing_is_free_and_silent() -> None:
    with progress.doing("starting gopls"):
        pass


def test_stream_sink_writes_one_line_per_update_off_a_terminal() -> None:
    stream = io.StringIO()
    sink = StreamSink(stream)
    for update in (Update("begin", "symbols: starting gopls", 2.4), Update("end", "symbols: done", 130)):
        sink(update)
    assert stream.getvalue() == "gateway: symbols: starting gopls (2 s)\ngateway: symbols: done (2 min 10 s)\n"


def test_an_update_crosses_the_daemon_connection_as_lsp_progress() -> None:
    received: list[Update] = []
    handler = progress.from_remote(received.append)
    handler({"token": "gateway", "value": Update("begin", "symbols: starting gopls", 3).to_lsp()})
    handler({"token": "gateway", "value": {"kind": "nonsense"}})
    handler("garbage")
    assert [(u.kind, u.text) for u in received] == [("begin", "symbols: starting gopls (3 s)")]


@pytest.mark.usefixtures("processes")
@pytest.mark.slow
def test_a_slow_server_start_and_first_index_are_said_only_after_the_threshold(
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, fake_workspace: Path
) -> None:
    monkeypatch.setenv("FAKE_LSP_SLOW", "1")  # initialize answered 1 s late, then 1 s of announced indexing
    said: list[Update] = []
    with Gateway(fake_workspace, registry=fake_registry) as gateway:
        with progress.reporting(said.append, "symbols", after=0.4, every=0.25, gap=0.25):
            assert gateway.symbols("m.py").to_json()["backend"].startswith("lsp:")
    assert said[0].kind == "begin" and said[-1].kind == "end"
    assert all(update.elapsed is not None and update.elapsed >= 0.4 for update in said)  # nothing before the threshold
    texts = [update.text for update in said]
    assert any(text.startswith("symbols: starting ") for text in texts), texts
    assert any("documentSymbol — Indexing: 2/5 files (40%)" in text for text in texts), texts


def _environment(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), **extra}


@pytest.mark.usefixtures("processes")
@pytest.mark.slow
def test_cli_says_on_stderr_what_a_real_server_start_costs_and_stdout_stays_json(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "go", tmp_path, dirs_exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "gateway", "symbols", "shapes.go", "--json", "--workspace", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=_environment(GATEWAY_PROGRESS_AFTER="0"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["backend"] == "lsp:gopls"
    lines = done.stderr.splitlines()
    assert lines[0].startswith("gateway: symbols") and lines[-1].startswith("gateway: symbols: done ("), lines


@pytest.mark.usefixtures("processes")
@pytest.mark.slow
def test_json_rpc_sends_progress_for_a_work_done_token_and_only_then(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    process = subprocess.Popen([sys.executable, "-m", "gateway", "serve", "--workspace", str(tmp_path)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=_environment(GATEWAY_PROGRESS_AFTER="0"))
    try:
        client = RpcClient.over_process(process)
        first = _messages(client, 1, "gateway/symbols", {"path": "pkg/shapes.py", "workDoneToken": "t1"})
        again = _messages(client, 2, "gateway/symbols", {"path": "pkg/shapes.py"})
    finally:
        process.kill()
        process.wait()
    assert first[-1]["result"]["backend"] == "lsp:zuban"
    notes = [m["params"] for m in first[:-1]]
    assert notes and all(note["token"] == "t1" for note in notes)
    kinds = [note["value"]["kind"] for note in notes]
    assert kinds[0] == "begin" and kinds[-1] == "end" and notes[0]["value"]["message"].startswith("symbols")
    assert len(again) == 1 and "result" in again[0]  # no token: nothing but the answer


def _messages(client: RpcClient, request_id: int, method: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """Everything the server sent up to and including the answer to this request."""
    client.send({"id": request_id, "method": method, "params": params})
    received = [client.receive()]
    while received[-1].get("id") != request_id:
        received.append(client.receive())
    return received


@pytest.mark.usefixtures("processes")
@pytest.mark.slow
def test_mcp_sends_progress_notifications_to_a_client_that_asked(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "python", tmp_path, dirs_exist_ok=True)
    heard: list[tuple[float, str | None]] = []

    async def run() -> Any:
        params = StdioServerParameters(command=sys.executable, args=["-m", "gateway", "mcp", "--workspace", str(tmp_path)],
                                       env=_environment(GATEWAY_PROGRESS_AFTER="0"))

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            heard.append((value, message))

        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await session.call_tool("symbols", {"path": "pkg/shapes.py"}, progress_callback=on_progress)

    result = anyio.run(run)
    assert not result.is_error and json.loads(result.content[0].text)["backend"] == "lsp:zuban"
    assert heard and str(heard[0][1]).startswith("symbols"), heard
    assert [value for value, _ in heard] == sorted({value for value, _ in heard})  # it only grows
