"""What a test starts marks it. A test that starts language servers asks for the `servers`
fixture, one that drives agent host CLIs for `hosts`, one that starts any other process (the
gateway as a command, a daemon, a hook, git) for `processes`; the fixture it asks for gives it
the marker of that name, and `slow` beside it (the `workspace` fixture made with git runs git:
`processes`). `make test-fast` deselects the three.

The marks are checked, not trusted: a test with none of them that starts a process anyway (in
its body or in anything it calls, on any thread) is stopped at that point and fails, naming
what it started. So `make test-fast` starts nothing by construction.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

STARTERS = ("servers", "hosts", "processes")

# GATEWAY_TEST_RECORD_STARTS=FILE: every start by an unmarked test is appended to FILE (one JSON
# object per line) and let through, to find what a new test starts.
RECORD = os.environ.get("GATEWAY_TEST_RECORD_STARTS")


def mark_by_fixtures(item: pytest.Item) -> None:
    names = getattr(item, "fixturenames", ())
    for starter in STARTERS:
        if starter in names:
            item.add_marker(getattr(pytest.mark, starter))
    made = item.get_closest_marker("workspace")
    if "workspace" in names and made is not None and made.kwargs.get("git"):  # the fixture runs git
        item.add_marker(pytest.mark.processes)
    if any(item.get_closest_marker(starter) for starter in STARTERS):
        item.add_marker(pytest.mark.slow)


def starts_something(item: pytest.Item) -> bool:
    return any(item.get_closest_marker(starter) for starter in STARTERS)


@pytest.fixture
def servers() -> None:
    """The test starts real language servers (in process or through a gateway it starts)."""


@pytest.fixture
def processes() -> None:
    """The test starts processes other than language servers and hosts: the gateway as a
    command, its daemon, a hook, git, a fake language server."""


def kill_daemons_under(directory: Path) -> None:
    """Every workspace daemon whose workspace is under `directory` killed, with all it started:
    also those a host's MCP server started with an environment of its own (Codex gives it no
    GATEWAY_NO_DAEMON and no XDG_RUNTIME_DIR)."""
    import psutil

    under = os.path.realpath(directory) + os.sep
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if "daemon" in cmdline and "run" in cmdline and any(word.startswith(under) for word in cmdline):
            with contextlib.suppress(psutil.NoSuchProcess):  # it may end between listing and killing
                for member in [process, *process.children(recursive=True)]:
                    with contextlib.suppress(psutil.NoSuchProcess):
                        member.kill()


@pytest.fixture
def hosts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The test drives agent host CLIs (tests/hosts), which run the daemon as users get it, in a
    runtime directory of the test's own (the host's environment and this process both look
    there; tests/hosts/harness.py). After it every daemon of a workspace under its `tmp_path` is
    killed, whoever started it."""
    runtime = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    monkeypatch.delenv("GATEWAY_NO_DAEMON", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield
    kill_daemons_under(tmp_path)
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(autouse=True)
def _unmarked_tests_start_nothing(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    if starts_something(request.node):
        yield
        return
    started: list[str] = []
    execute = subprocess.Popen._execute_child  # type: ignore[attr-defined]

    def refuse(popen: subprocess.Popen[Any], args: Any, *rest: Any, **named: Any) -> None:
        command = " ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args)
        started.append(command)
        if RECORD:
            with Path(RECORD).open("a") as record:
                record.write(json.dumps({"test": request.node.nodeid, "command": command[:300]}) + "\n")
            execute(popen, args, *rest, **named)
            return
        raise AssertionError(f"this test starts a process ({command[:120]}) and asks for none of the fixtures "
                             f"{', '.join(STARTERS)} (tests/starts.py)")

    def refuse_fork(*args: Any, **named: Any) -> int:
        started.append("os.fork()")
        raise AssertionError(f"this test forks and asks for none of the fixtures {', '.join(STARTERS)} (tests/starts.py)")

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    if not RECORD:
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp"):
            if hasattr(os, name):
                monkeypatch.setattr(os, name, refuse_fork)
    yield
    if started and not RECORD:
        pytest.fail(f"started {len(started)} process(es) without the fixture that marks it: {started[0][:120]}", pytrace=False)
