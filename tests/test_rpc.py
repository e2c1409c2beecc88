"""`gateway serve` as a separate process: stdio and TCP, errors, concurrency, clean shutdown."""

from __future__ import annotations

import functools
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from gateway.errors import RPC_BLOCKED
from tests.rpc_client import RpcClient, RpcError, edit_counters_concurrently

pytestmark = pytest.mark.usefixtures("processes")

FIXTURES = Path(__file__).parent / "fixtures"


def _serve(workspace: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "gateway", "serve", "--workspace", str(workspace), *extra],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )


def _language_servers(process: subprocess.Popen[bytes]) -> list[psutil.Process]:
    """Language servers run in their own sessions, so they are found by their parent."""
    return psutil.Process(process.pid).children(recursive=True)


def _gone(processes: list[psutil.Process]) -> bool:
    _, alive = psutil.wait_procs(processes, timeout=15)
    return not [p for p in alive if p.status() != psutil.STATUS_ZOMBIE]


@pytest.fixture
def stdio(workspace: Path) -> Iterator[tuple[RpcClient, subprocess.Popen[bytes]]]:
    process = _serve(workspace)
    yield RpcClient.over_process(process), process
    if process.poll() is None:
        process.kill()
        process.wait()


def test_every_method_over_stdio(stdio: tuple[RpcClient, subprocess.Popen[bytes]], workspace: Path) -> None:
    client, _ = stdio
    path = "pkg/shapes.py"
    listing = client.request("gateway/symbols", {"path": path, "depth": 1})
    assert listing["backend"] == "lsp:zuban"
    assert client.request("gateway/classify", {"path": path, "old_string": "def area(width", "new_string": "def area(w"})["decision"] == "allow"
    assert client.request("gateway/classify", {"path": path, "old_string": "def area(", "new_string": "def area2("})["decision"] == "block"
    found = client.request("gateway/findSymbol", {"name_path": "area", "path": path, "body": True})
    assert found["matches"][0]["body"].startswith("def area(width, height):")
    before = (workspace / path).read_text()
    replace = {"name_path": "area", "path": path, "body": "def area(w, h):\n    return w * h"}
    preview = client.request("gateway/replaceSymbol", {**replace, "dry_run": True})  # the result and its verification, nothing written
    assert (preview["applied"], preview["dry_run"], preview["verified"] == "checked") == (False, True, True)
    assert (workspace / path).read_text() == before and "+def area(w, h):" in preview["diff"]
    replaced = client.request("gateway/replaceSymbol", replace)
    assert replaced["operation"] == "replace_symbol" and replaced["backend"] == "lsp:zuban"
    inserted = client.request("gateway/insertCode", {"name_path": "area", "path": path, "code": "def cube(s):\n    return s ** 3", "position": "after"})
    assert inserted["start_line"] == 32
    assert client.request("gateway/removeSymbol", {"name_path": "cube", "path": path})["ok"] is True
    renamed = client.request("gateway/renameSymbol", {"name_path": "perimeter", "path": path, "new_name": "outline"})
    assert renamed["files"] == [path]
    edited = client.request("gateway/edit", {"file_path": str(workspace / path), "old_string": "w * h", "new_string": "h * w"})
    assert edited["applied"] is True
    assert {row["language"] for row in client.request("gateway/servers")["languages"]} >= {"python", "go"}
    assert "return h * w" in (workspace / path).read_text()
    created = client.request("gateway/createFile", {"path": "pkg/solids.py", "content": "def cube(s):\n    return s ** 3\n"})
    assert (created["applied"], created["path"]) == (True, "pkg/solids.py") and (workspace / "pkg" / "solids.py").read_text().startswith("def cube(s):")


def test_blocked_edit_is_an_error_with_the_classification(stdio: tuple[RpcClient, subprocess.Popen[bytes]], workspace: Path) -> None:
    client, _ = stdio
    before = (workspace / "pkg" / "shapes.py").read_bytes()
    with pytest.raises(RpcError) as blocked:
        client.request("gateway/edit", {"path": "pkg/shapes.py", "old_string": "def perimeter(width, height):\n    return 2 * (width + height)\n",
                                        "new_string": "", "route": False})
    assert blocked.value.code == RPC_BLOCKED
    refusal = blocked.value.data  # the one refusal shape, the gate's classification beside its error
    assert (refusal["ok"], refusal["applied"], refusal["error"]["kind"], refusal["suggested_tool"]) == (False, False, "blocked", "remove_symbol")
    call = 'gateway/removeSymbol {"name_path": "perimeter", "path": "pkg/shapes.py"}'  # spelled by the surface (gateway.surfaces.render)
    assert refusal["commands"] == [call] and call in str(blocked.value) and call in refusal["error"]["message"]
    assert refusal["error"]["suggested"] == [{"operation": "remove_symbol", "params": {"name_path": "perimeter", "path": "pkg/shapes.py"},
                                               "method": "gateway/removeSymbol"}]
    assert (workspace / "pkg" / "shapes.py").read_bytes() == before
    removed = "def perimeter(width, height):\n    return 2 * (width + height)\n"
    routed = client.request("gateway/edit", {"path": "pkg/shapes.py", "old_string": removed, "new_string": ""})
    assert (routed["decision"], routed["exact"]) == ("routed", True)
    assert [(o["tool"], o["name_path"], o["backend"]) for o in routed["operations"]] == [("remove_symbol", "perimeter", "lsp:zuban")]
    assert (workspace / "pkg" / "shapes.py").read_bytes() == before.replace(removed.encode(), b"")


def test_an_edit_removing_a_referenced_definition_is_refused_as_remove_symbol_refuses_it(stdio: tuple[RpcClient, subprocess.Popen[bytes]],
                                                                                       workspace: Path) -> None:
    client, _ = stdio
    before = (workspace / "pkg" / "shapes.py").read_bytes()
    with pytest.raises(RpcError) as refused:
        client.request("gateway/edit", {"path": "pkg/shapes.py", "old_string": "def area(width, height):\n    return width * height\n", "new_string": "",
                                        "route": True})
    assert refused.value.data["error"]["kind"] == "referenced" and "area is still referenced at pkg/use.py:1, pkg/use.py:5" in str(refused.value)
    forced = 'gateway/removeSymbol {"name_path": "area", "path": "pkg/shapes.py", "force": true}'
    assert forced in str(refused.value) and (workspace / "pkg" / "shapes.py").read_bytes() == before
    client.request("gateway/removeSymbol", {"name_path": "area", "path": "pkg/shapes.py", "force": True})  # what it names succeeds
    assert b"def area" not in (workspace / "pkg" / "shapes.py").read_bytes()


@pytest.mark.parametrize(
    ("params", "code"),
    [({"path": "pkg/none.py", "old_string": "a", "new_string": "b"}, -32000), ({"path": "pkg/shapes.py"}, -32602), ({"path": 3, "old_string": "a", "new_string": "b"}, -32602)],
)
def test_bad_requests(stdio: tuple[RpcClient, subprocess.Popen[bytes]], params: dict[str, object], code: int) -> None:
    client, _ = stdio
    with pytest.raises(RpcError) as failed:
        client.request("gateway/edit", params)
    assert failed.value.code == code and "\n" not in str(failed.value)


def test_shutdown_and_exit_stop_every_server(stdio: tuple[RpcClient, subprocess.Popen[bytes]]) -> None:
    client, process = stdio
    client.request("gateway/symbols", {"path": "pkg/shapes.py"})
    children = _language_servers(process)
    assert children, "a language server should be running"
    assert client.request("shutdown") is None
    client.notify("exit")
    assert process.wait(timeout=30) == 0
    assert _gone(children)


def test_sigterm_stops_every_server(stdio: tuple[RpcClient, subprocess.Popen[bytes]]) -> None:
    client, process = stdio
    client.request("gateway/symbols", {"path": "pkg/shapes.py"})
    children = _language_servers(process)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)
    assert _gone(children)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_concurrent_clients_over_tcp_lose_no_edit(workspace: Path) -> None:
    port = _free_port()
    process = _serve(workspace, "--tcp", f"127.0.0.1:{port}")
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        edit_counters_concurrently(workspace, lambda: functools.partial(RpcClient.over_tcp("127.0.0.1", port).request, "gateway/edit"))
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


def test_a_language_server_killed_with_9_fails_one_call_then_is_replaced(stdio: tuple[RpcClient, subprocess.Popen[bytes]]) -> None:
    client, process = stdio
    client.request("gateway/symbols", {"path": "pkg/shapes.py"})
    old = _language_servers(process)
    for child in old:
        child.kill()
    assert _gone(old)
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(client.request("gateway/symbols", {"path": "pkg/shapes.py"})["backend"])
        except RpcError as error:
            assert error.code == -32003 and "\n" not in str(error), error  # the documented code, one line
            outcomes.append(error.code)
    assert outcomes[-1] == "lsp:zuban"  # a fresh server answers at the latest on the next call
    assert {p.pid for p in _language_servers(process)}.isdisjoint({p.pid for p in old})
