"""`gateway serve --tcp` under attack: a web page's plain POST, clients without the token, header
floods, bodies that are not JSON, `exit` from one client, bind failures."""

from __future__ import annotations

import json
import signal
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.framing import FrameError, FrameReader
from gateway.surfaces.rpc import token_path
from tests.rpc_client import RpcClient, RpcError

FIXTURES = Path(__file__).parent / "fixtures"


def _start(workspace: Path, address: str = "127.0.0.1:0") -> tuple[subprocess.Popen[str], int]:
    process = subprocess.Popen([sys.executable, "-m", "gateway", "serve", "--workspace", str(workspace), "--tcp", address],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    line = process.stderr.readline()
    assert "listening on 127.0.0.1:" in line, line
    return process, int(line.split("listening on 127.0.0.1:")[1].split(";")[0])


@pytest.fixture
def server(workspace: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    process, port = _start(workspace)
    yield process, port
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def _raw(port: int, data: bytes, wait: float = 5.0) -> bytes:
    """Everything the server answers to `data` before it closes the connection (or `wait` passes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        received = b""
        try:
            while chunk := sock.recv(65536):
                received += chunk
        except TimeoutError:
            received += b"<still open>"
        return received


def _frame(message: dict | bytes) -> bytes:
    body = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


@pytest.mark.usefixtures("processes")
def test_the_token_is_private_and_gone_after_stop(server: tuple[subprocess.Popen[str], int]) -> None:
    process, port = server
    path = token_path("127.0.0.1", port)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert RpcClient.over_tcp("127.0.0.1", port).request("gateway/stop") == {"ok": True}
    assert process.wait(timeout=30) == 0
    assert not path.exists()


@pytest.mark.usefixtures("processes")
def test_a_plain_http_post_is_closed_unanswered(server: tuple[subprocess.Popen[str], int], workspace: Path) -> None:
    _, port = server
    (workspace / "plan.toml").write_text('[contract]\nid = "c"\nsummary = "s"\n[[validate]]\nrun = "touch marker"\ntimeout = 5\n')
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "gateway/contractApply", "params": {"path": "plan.toml"}}).encode()
    post = b"POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    assert _raw(port, post) == b""
    assert _raw(port, _frame(json.loads(body))).count(b"unauthenticated") == 1  # LSP framing, but no token
    assert not (workspace / "marker").exists()


@pytest.mark.usefixtures("processes")
def test_a_wrong_token_is_refused_and_closed(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    answer = _raw(port, _frame({"jsonrpc": "2.0", "id": 1, "method": "gateway/authenticate", "params": {"token": "guess"}}))
    assert b'"code": -32007' in answer and not answer.endswith(b"<still open>")


@pytest.mark.usefixtures("processes")
def test_a_header_flood_is_cut_off(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        # The server closes the connection (a reset or a broken pipe here); a server that only
        # stopped reading would leave sendall to time out instead.
        with pytest.raises(ConnectionError):
            for _ in range(2000):  # 200 MB of header, if nobody stopped it
                sock.sendall(b"Content-Type: " + b"a" * 100_000)


def test_framing_is_linear_and_bounded() -> None:
    scanned = []

    class CountingBuffer(bytearray):
        def find(self, sub, start=0, end=None):  # type: ignore[no-untyped-def, override]
            scanned.append(min(len(self), end if end is not None else len(self)) - start)
            return super().find(sub, start, end)

    reader = FrameReader()
    reader._buffer = CountingBuffer()
    fed = b"Content-Type: "
    reader.feed(fed)
    for _ in range(4000):
        reader.feed(b"a")  # byte by byte never rescans what it saw
    fed += b"a" * 4000
    assert sum(scanned) <= 4 * len(fed)  # linear: a rescan from the start each time would be ~8,000,000
    with pytest.raises(FrameError):
        reader.feed(b"x" * 5000)
    with pytest.raises(FrameError):
        FrameReader().feed(b"Content-Length: 999999999999\r\n\r\n")


@pytest.mark.usefixtures("processes")
def test_a_request_without_params_and_a_malformed_body_are_answered(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    client = RpcClient.over_tcp("127.0.0.1", port)
    client.send({"id": 7, "method": "gateway/kinds"})
    assert client.receive()["id"] == 7
    client.writer.write(_frame(b"{not json"))
    client.writer.flush()
    assert client.receive()["error"]["code"] == -32700
    client.writer.write(_frame(b"[1, 2]"))
    client.writer.flush()
    assert client.receive()["error"]["code"] == -32600
    assert "kinds" in client.request("gateway/kinds")  # the connection still answers


@pytest.mark.usefixtures("processes")
def test_exit_closes_one_client_only(server: tuple[subprocess.Popen[str], int]) -> None:
    process, port = server
    first, second = RpcClient.over_tcp("127.0.0.1", port), RpcClient.over_tcp("127.0.0.1", port)
    assert first.request("shutdown") is None
    first.notify("exit")
    with pytest.raises(EOFError):
        first.receive()
    assert "kinds" in second.request("gateway/kinds")
    assert process.poll() is None


@pytest.mark.usefixtures("processes")
def test_contract_apply_outside_the_workspace_is_refused(server: tuple[subprocess.Popen[str], int], tmp_path: Path) -> None:
    _, port = server
    outside = tmp_path / "plan.toml"
    outside.write_text('[contract]\nid = "c"\nsummary = "s"\n[[validate]]\nrun = "touch marker"\ntimeout = 5\n')
    with pytest.raises(RpcError) as refused:
        RpcClient.over_tcp("127.0.0.1", port).request("gateway/contractApply", {"path": str(outside)})
    assert "outside" in str(refused.value)
    assert not (tmp_path / "marker").exists()


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("address", ["127.0.0.1:99999", "in-use"])
def test_a_bind_failure_exits_non_zero_with_one_line(workspace: Path, address: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        if address == "in-use":
            address = f"127.0.0.1:{taken.getsockname()[1]}"
        done = subprocess.run([sys.executable, "-m", "gateway", "serve", "--workspace", str(workspace), "--tcp", address],
                              capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gateway:"), done.stderr
