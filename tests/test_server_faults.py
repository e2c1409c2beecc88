"""A server that crashes, hangs or answers garbage: a one-line error, the file untouched,
a fresh server on the next call, no process left behind. The fake server is pygls."""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from gateway.api import Gateway
from gateway.errors import ServerFailed
from gateway.langs import LanguageRegistry

SOURCE = "def f():\n    return 1\n"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text(SOURCE)
    return root


def _alive(pid: int | None) -> bool:
    try:
        return pid is not None and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _session_pid(gateway: Gateway) -> int | None:
    sessions = list(gateway.sessions._sessions.values())
    return sessions[0].pid if sessions else None


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
    monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, workspace: Path, mode: str, reason: str
) -> None:
    # Only the hang needs a short timeout; the other faults must not race a slow start on a busy machine.
    monkeypatch.setenv("GATEWAY_LSP_TIMEOUT", "2" if mode == "hang" else "30")
    monkeypatch.setenv("FAKE_LSP_MODE", mode)
    with Gateway(workspace, registry=fake_registry) as gateway:
        with pytest.raises(ServerFailed, match=reason) as failed:
            gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n")
        assert "\n" not in str(failed.value)
        assert (workspace / "m.py").read_text() == SOURCE
        broken_pid = _session_pid(gateway)

        monkeypatch.setenv("FAKE_LSP_MODE", "ok")
        gateway.sessions.timeout = 30  # the fresh server's start must not race a busy machine
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n")
        assert result["backend"].startswith("lsp:")
        assert (workspace / "m.py").read_text() == "def f():\n    return 2\n"
        assert not _alive(broken_pid), "the failed server was left running"
        live_pid = _session_pid(gateway)
        assert _alive(live_pid) and live_pid != broken_pid
    assert not _alive(live_pid), "closing the gateway left the server running"


def test_an_error_the_adapter_knows_to_pass_is_asked_again(monkeypatch: pytest.MonkeyPatch, fake_registry: LanguageRegistry, workspace: Path) -> None:
    monkeypatch.setenv("FAKE_LSP_MODE", "flaky")
    with Gateway(workspace, registry=fake_registry) as gateway:
        result = gateway.replace_symbol("f", "m.py", "def f():\n    return 2\n")
        assert result["backend"].startswith("lsp:")
        assert not list(gateway.sessions._sessions.values())[0].broken
    assert (workspace / "m.py").read_text() == "def f():\n    return 2\n"
