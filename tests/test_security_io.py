"""Security round 3 (issue 23): what the gateway reads and who may make it read.

Symbolic links are judged as the file they lead to (and refused when they lead out of the
workspace); an extensionless script by its `#!` line; only regular files are read, bounded,
never waiting on a FIFO, and a stuck request cannot take the daemon's workers; `gateway serve
--tcp` takes a stranger's first few KB only, for a few seconds, before the token. Real files,
FIFOs, devices, daemons and sockets throughout."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from gateway.api import Gateway
from gateway.errors import NotRegularFile, OutsideWorkspace, TimedOut, TooLarge
from gateway.langs import default_registry
from gateway.reading import read_regular
from gateway.surfaces.hooks.hosts import claude_code
from tests.test_daemon import _start, env, gateway  # noqa: F401 - `env` is a fixture
from tests.test_security_server import _frame
from tests.test_security_server import _start as start_serve

APP = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"
REMOVAL = ("def perimeter(w, h):\n    return 2 * (w + h)\n", "")  # structural: a definition goes
BODY = ("return w * h", "return h * w")  # not structural
T = TypeVar("T")


def finishing(work: Callable[[], T], fifos: list[Path] = [], guard: float = 60.0) -> T:  # noqa: B006
    """`work()`, which must return at all (a hang fails the test rather than the suite); a FIFO it
    waits on is opened for writing afterwards, so that a failed run frees its thread."""
    box: dict[str, Any] = {}

    def body() -> None:
        try:
            box["value"] = work()
        except BaseException as error:  # noqa: BLE001 - re-raised below
            box["error"] = error

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    thread.join(guard)
    for fifo in fifos:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    assert not thread.is_alive(), "hung"
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".gateway").mkdir(parents=True)
    (root / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
    (root / "app.py").write_text(APP)
    return root


def edit_payload(root: Path, path: Path | str, old: str, new: str) -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(root),
            "tool_input": {"file_path": str(path), "old_string": old, "new_string": new}}


def in_process(root: Path, payload: dict[str, Any], fifos: list[Path] = []) -> dict[str, Any] | None:  # noqa: B006
    stdout, code = finishing(lambda: claude_code.run(json.dumps(payload).encode(), {"cwd": str(root), "project_dir": None}), fifos)
    assert code == 0
    return json.loads(stdout) if stdout else None


def denial(reply: dict[str, Any] | None) -> str:
    assert reply is not None, "the hook let the write through unjudged"
    output = reply["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny", output
    return str(output["permissionDecisionReason"])


# 1. Symbolic links and scripts without an extension


def test_an_edit_through_a_link_is_judged_as_the_file_it_leads_to(project: Path) -> None:
    (project / "notes.txt").symlink_to("app.py")
    assert "perimeter" in denial(in_process(project, edit_payload(project, project / "notes.txt", *REMOVAL)))
    assert in_process(project, edit_payload(project, "notes.txt", *BODY)) is None  # an ordinary edit still passes
    assert (project / "app.py").read_text() == APP


@pytest.mark.parametrize(("shebang", "text", "removal"), [
    ("#!/usr/bin/env python3", APP, REMOVAL),
    ("#!/usr/bin/python3.12 -u", APP, REMOVAL),
    ("#!/usr/bin/env node", "function area(w, h) {\n  return w * h;\n}\n\nfunction perimeter(w, h) {\n  return 2 * (w + h);\n}\n",
     ("function perimeter(w, h) {\n  return 2 * (w + h);\n}\n", "")),
    ("#!/usr/bin/env ruby", "def area(w, h)\n  w * h\nend\n\ndef perimeter(w, h)\n  2 * (w + h)\nend\n",
     ("def perimeter(w, h)\n  2 * (w + h)\nend\n", "")),
    ("#!/bin/sh", "area() {\n  echo $(($1 * $2))\n}\n\nperimeter() {\n  echo $((2 * ($1 + $2)))\n}\n",
     ("perimeter() {\n  echo $((2 * ($1 + $2)))\n}\n", "")),
])
def test_an_extensionless_script_is_judged_by_its_shebang(project: Path, shebang: str, text: str, removal: tuple[str, str]) -> None:
    (project / "bin").mkdir()
    (project / "bin" / "tool").write_text(f"{shebang}\n{text}")
    assert denial(in_process(project, edit_payload(project, project / "bin" / "tool", *removal)))
    (project / "bin" / "link").symlink_to("tool")  # a link to it, too
    assert denial(in_process(project, edit_payload(project, project / "bin" / "link", *removal)))


def test_an_unknown_interpreter_is_not_gated(project: Path) -> None:
    (project / "data").write_text("#!/usr/bin/awk -f\n{ print }\n")
    assert in_process(project, edit_payload(project, project / "data", "{ print }", "")) is None


def test_interpreters_are_language_data() -> None:
    registry = default_registry()
    assert registry.get("python").interpreters[:3] == ("python", "python2", "python3")
    picks = {line: [lang.name for lang in registry.candidates("bin/x", line)] for line in
             ("#!/usr/bin/env -S python3 -u\n", "#! /usr/bin/env FOO=1 ruby\n", b"#!/usr/local/bin/node\n", "#!/bin/sh\n", "print(1)\n")}
    assert picks == {"#!/usr/bin/env -S python3 -u\n": ["python"], "#! /usr/bin/env FOO=1 ruby\n": ["ruby"],
                     b"#!/usr/local/bin/node\n": ["javascript"], "#!/bin/sh\n": ["bash"], "print(1)\n": []}
    assert registry.candidates("x.txt", "#!/usr/bin/env python3\n") == []  # an extension says what a file is


def test_a_write_through_a_new_script_is_judged_by_its_content(project: Path) -> None:
    (project / "tool").write_text(f"#!/usr/bin/env python3\n{APP}")
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(project),
               "tool_input": {"file_path": str(project / "tool"), "content": "#!/usr/bin/env python3\nprint('gone')\n"}}
    assert "perimeter" in denial(in_process(project, payload))


def test_the_gate_and_the_workspace_judge_a_script_by_its_shebang(project: Path) -> None:
    (project / "tool").write_text(f"#!/usr/bin/env python3\n# -*- coding: latin-1 -*-\n{APP}# \xe9\n", encoding="latin-1")
    gateway_ = Gateway(project, use_servers=False)
    assert gateway_.workspace.read("tool").encoding == "iso-8859-1"  # Python's cookie, as for a .py file
    assert gateway_.classify("tool", *REMOVAL).blocked
    (project / "view.txt").symlink_to("tool")
    assert gateway_.classify("view.txt", *REMOVAL).blocked


def test_a_patch_through_a_link_or_to_a_script_is_judged(project: Path) -> None:
    (project / "tool").write_text(f"#!/usr/bin/env python3\n{APP}")
    (project / "notes.txt").symlink_to("app.py")
    for name in ("tool", "notes.txt"):
        patch = f"*** Begin Patch\n*** Update File: {name}\n@@\n-def perimeter(w, h):\n-    return 2 * (w + h)\n*** End Patch\n"
        payload = json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project), "tool_input": patch}).encode()
        stdout, code = finishing(lambda payload=payload: claude_code.run(payload, {"cwd": str(project), "project_dir": None}))
        assert code == 0 and "deny" in stdout, (name, stdout)


def test_a_link_out_of_the_workspace_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text(APP)
    (project / "escape.py").symlink_to(outside)
    (project / "dangling.py").symlink_to(tmp_path / "not-yet.py")
    reason = denial(in_process(project, edit_payload(project, project / "escape.py", *BODY)))
    assert "outside the workspace" in reason and reason.count("\n") == 0
    write = {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(project),
             "tool_input": {"file_path": "dangling.py", "content": "x = 1\n"}}
    assert "outside the workspace" in denial(in_process(project, write))
    assert outside.read_text() == APP and not (tmp_path / "not-yet.py").exists()
    with pytest.raises(OutsideWorkspace):
        Gateway(project, use_servers=False).classify("escape.py", *BODY)


# 2. Processes and inputs: only regular files, bounded, never blocking


def test_a_fifo_named_py_is_refused_not_waited_on(project: Path) -> None:
    fifo = project / "x.py"
    os.mkfifo(fifo)
    reason = denial(in_process(project, edit_payload(project, fifo, "a", "b"), [fifo]))
    assert "FIFO" in reason and reason.count("\n") == 0
    (project / "y.py").symlink_to("x.py")  # a link to it, a Write over it, a patch of it
    assert "FIFO" in denial(in_process(project, edit_payload(project, project / "y.py", "a", "b"), [fifo]))
    write = {"hook_event_name": "PreToolUse", "tool_name": "Write", "cwd": str(project), "tool_input": {"file_path": "x.py", "content": "x = 1\n"}}
    assert "FIFO" in denial(in_process(project, write, [fifo]))
    patch = "*** Begin Patch\n*** Update File: x.py\n@@\n-a\n+b\n*** End Patch\n"
    stdout, _ = finishing(lambda: claude_code.run(json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(project),
                                                              "tool_input": patch}).encode(), {"cwd": str(project), "project_dir": None}), [fifo])
    assert "FIFO" in stdout
    with pytest.raises(NotRegularFile):
        finishing(lambda: Gateway(project, use_servers=False).workspace.read("x.py"), [fifo])


def test_a_link_to_dev_zero_is_never_read(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "zero.py").symlink_to("/dev/zero")
    (project / "zero.py").symlink_to("/dev/zero")
    assert "outside the workspace" in denial(in_process(project, edit_payload(project, project / "zero.py", "a", "b")))
    # outside any workspace, the path is judged as what it is: a device, refused unread
    assert "character device" in denial(in_process(project, edit_payload(project, elsewhere / "zero.py", "a", "b")))
    from gateway.gate.checker import classify_edit

    with pytest.raises(NotRegularFile):
        finishing(lambda: classify_edit(elsewhere / "zero.py", "a", "b"))


def test_reads_stop_at_the_size_limit(tmp_path: Path) -> None:
    big = tmp_path / "big.py"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(TooLarge):
        read_regular(big, "big.py", 1000)
    assert read_regular(big, "big.py", 1001) == b"x" * 1001
    assert read_regular(tmp_path / "absent.py") is None


@pytest.mark.usefixtures("processes")
def test_fifos_through_the_daemon_then_an_edit_is_still_answered(env: dict[str, str], project: Path) -> None:  # noqa: F811
    _start(env, project)
    fifos = [project / f"f{n}.py" for n in range(10)]
    for fifo in fifos:
        os.mkfifo(fifo)
    hooks = [subprocess.Popen([sys.executable, "-m", "gateway", "hook", "claude-code"], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in fifos]
    try:
        answers = [hook.communicate(json.dumps(edit_payload(project, fifo, "a", "b")), timeout=120) for hook, fifo in zip(hooks, fifos)]
    finally:
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
        for hook in hooks:
            hook.kill()
    for stdout, stderr in answers:
        assert "FIFO" in denial(json.loads(stdout)), stderr
    normal = gateway(env, "hook", "claude-code", stdin=json.dumps(edit_payload(project, project / "app.py", *REMOVAL)))
    assert "perimeter" in denial(json.loads(normal.stdout))
    status = json.loads(gateway(env, "daemon", "status", "--workspace", str(project), "--json").stdout)
    assert status["requests"] >= 11  # the daemon answered them all, not the in-process fallback


def test_a_stuck_request_does_not_take_the_workers() -> None:
    import asyncio

    from gateway.workers import RequestPool

    release = threading.Event()

    async def scenario() -> tuple[list[Any], str]:
        pool = RequestPool(workers=2, seconds=0.2, max_abandoned=20)
        stuck = await asyncio.gather(*(pool.run(release.wait) for _ in range(10)), return_exceptions=True)
        normal = await pool.run(lambda: "answered")
        return stuck, normal

    try:
        stuck, normal = asyncio.run(scenario())
    finally:
        release.set()
    assert normal == "answered"
    assert all(isinstance(outcome, TimedOut) for outcome in stuck)


def test_given_up_requests_are_bounded_too() -> None:
    import asyncio

    from gateway.workers import RequestPool

    release = threading.Event()

    async def scenario() -> BaseException | None:
        pool = RequestPool(workers=4, seconds=0.1, max_abandoned=2)
        await asyncio.gather(*(pool.run(release.wait) for _ in range(2)), return_exceptions=True)
        try:
            await pool.run(lambda: None)
        except TimedOut as busy:
            return busy
        return None

    try:
        busy = asyncio.run(scenario())
    finally:
        release.set()
    assert busy is not None and "busy" in str(busy)


# 3. `gateway serve --tcp`: the token first, from a small message, within seconds


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int]]:
    root = tmp_path / "served"
    shutil.copytree(Path(__file__).parent / "fixtures" / "python", root)
    process, port = start_serve(root)
    yield process, port
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)


@pytest.mark.usefixtures("processes")
def test_a_stranger_cannot_send_a_large_body_before_the_token(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    # closed after the header; a server reading on would take all 60 MB
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock, pytest.raises(ConnectionError):
        sock.sendall(b"Content-Length: 60000000\r\n\r\n")
        for _ in range(60):
            sock.sendall(b"a" * 1_000_000)


@pytest.mark.usefixtures("processes")
def test_a_silent_or_trickling_peer_is_dropped(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    with socket.create_connection(("127.0.0.1", port), timeout=60) as silent:
        assert silent.recv(1) == b""  # closed by the server, not by this socket's timeout
    with socket.create_connection(("127.0.0.1", port), timeout=60) as trickle:
        header = b"Content-Length: 100\r\n\r\n" + b" " * 100
        closed = False
        for byte in header:
            try:
                trickle.sendall(bytes([byte]))
            except ConnectionError:
                closed = True
                break
            time.sleep(0.25)
        assert closed or trickle.recv(65536) == b""


@pytest.mark.usefixtures("processes")
def test_before_the_token_anything_else_closes_the_connection(server: tuple[subprocess.Popen[str], int]) -> None:
    _, port = server
    for body in (b"{not json", b"[1, 2]", json.dumps({"jsonrpc": "2.0", "id": 1, "method": "gateway/kinds"}).encode()):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(_frame(body))
            received = b""
            while chunk := sock.recv(65536):
                received += chunk
            assert b"-32007" in received, body


@pytest.mark.usefixtures("processes")
def test_after_the_token_large_requests_are_served(server: tuple[subprocess.Popen[str], int]) -> None:
    from tests.rpc_client import RpcClient

    _, port = server
    client = RpcClient.over_tcp("127.0.0.1", port)
    comment = "  # " + "x" * 120_000  # 120 KB, far over the pre-token limit
    result = client.request("gateway/classify", {"path": "pkg/shapes.py", "old_string": "return width * height",
                                                 "new_string": "return width * height" + comment})
    assert result["decision"] == "allow"


def test_a_given_up_hook_says_it_changes_nothing_and_a_given_up_write_that_it_may_still_finish(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A hook's judgement writes nothing (the host applies its answer, and a given-up answer
    never arrives): past the daemon's bound it is refused without "it may still finish", which
    only a request that writes is told."""
    import asyncio

    from gateway.api import Gateway
    from gateway.surfaces import daemon
    from gateway.workers import RequestPool

    release = threading.Event()
    monkeypatch.setattr(daemon, "HOOK_SECONDS", 0.2)
    monkeypatch.setattr(daemon, "_hook", lambda gateway, params: release.wait())
    (tmp_path / "ws").mkdir()

    async def scenario(server: daemon.DaemonServer) -> tuple[BaseException, BaseException]:
        hook = server.lsp.fm.features[daemon.HOOK]
        given_up = await asyncio.gather(hook({"host": "claude-code", "input": "{}", "context": {"cwd": "/", "project_dir": None}}),
                                        RequestPool(workers=1, seconds=0.2).run(release.wait), return_exceptions=True)
        return given_up[0], given_up[1]

    try:
        with Gateway(tmp_path / "ws") as gateway:
            hook, write = asyncio.run(scenario(daemon.DaemonServer(gateway, idle_seconds=60)))
    finally:
        release.set()
    assert isinstance(hook, TimedOut) and isinstance(write, TimedOut)
    assert str(hook) == "the request took longer than 0.2 seconds and was given up; it changes nothing, so it can be asked again"
    assert str(write) == "the request took longer than 0.2 seconds and was given up (it may still finish; check before retrying)"
