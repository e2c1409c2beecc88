"""A minimal JSON-RPC 2.0 client with LSP framing, over a process's pipes or a TCP socket."""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO


class RpcError(Exception):
    def __init__(self, error: dict[str, Any]) -> None:
        super().__init__(error.get("message"))
        self.code = error.get("code")
        self.data = error.get("data")


class RpcClient:
    _ids = itertools.count(1)

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    def over_process(cls, process: subprocess.Popen[bytes]) -> RpcClient:
        assert process.stdout and process.stdin
        return cls(process.stdout, process.stdin)

    @classmethod
    def over_tcp(cls, host: str, port: int, authenticate: bool = True) -> RpcClient:
        """A TCP client; it first presents the token `gateway serve` wrote for this address."""
        from gateway.surfaces.rpc import token_path

        sock = socket.create_connection((host, port), timeout=120)
        client = cls(sock.makefile("rb"), sock.makefile("wb"))
        if authenticate:
            client.request("gateway/authenticate", {"token": token_path(host, port).read_text()})
        return client

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.writer.flush()

    def receive(self) -> dict[str, Any]:
        length = None
        while True:
            line = self.reader.readline()
            if not line:
                raise EOFError("the server closed the connection")
            if line in (b"\r\n", b"\n"):
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert length is not None
        return json.loads(self.reader.read(length))

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request_id = next(self._ids)
        self.send({"id": request_id, "method": method, "params": params or {}})
        while True:
            message = self.receive()
            if message.get("id") == request_id and "method" not in message:
                if "error" in message:
                    raise RpcError(message["error"])
                return message.get("result")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send({"method": method, "params": params or {}})


def edit_counters_concurrently(workspace: Path, connect: Callable[[], Callable[[dict[str, Any]], Any]]) -> None:
    """Four clients, each from `connect()` in its own thread, edit six lines each of one file at
    once; every edit must land."""
    target = workspace / "counters.py"
    target.write_text("".join(f"c{i} = 0\n" for i in range(24)))
    errors: list[BaseException] = []

    def client_edits(first: int) -> None:
        try:
            edit = connect()
            for i in range(first, 24, 4):
                edit({"path": "counters.py", "old_string": f"c{i} = 0\n", "new_string": f"c{i} = {i + 1}\n"})
        except BaseException as error:  # noqa: BLE001 - collected and asserted below
            errors.append(error)

    threads = [threading.Thread(target=client_edits, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors
    assert target.read_text() == "".join(f"c{i} = {i + 1}\n" for i in range(24))
