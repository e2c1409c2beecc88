"""A server whose version probe times out (a loaded machine, a hung binary) is asked again after
a backoff, never remembered as not installed; one that answers it failed is remembered; the
daemon's status names each language answered from tree-sitter because its server could not be
used, and why. The servers are programs made on PATH here: one that sleeps past the probe's
timeout while a file says so, else runs the fault-injecting fake server (tests/fake_lsp_server.py)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.langs import LanguageRegistry, data_dir
from gateway.lsp import discovery
from gateway.surfaces.cli_daemon import _describe
from gateway.surfaces.daemon import DaemonServer
from tests.conftest import FAKE_SERVER, langs_with_python_server

PROBE_SECONDS, RETRY_SECONDS = 0.5, 300.0


def _server_on_path(tmp_path: Path, name: str, version: str) -> tuple[Path, Path]:
    """A program `name` in tmp_path/bin: `--version` appends a line to its count file and runs
    `version` (shell), anything else runs the fake server; its count file."""
    bin_dir, count = tmp_path / "bin", tmp_path / f"{name}.count"
    bin_dir.mkdir(exist_ok=True)
    program = bin_dir / name
    program.write_text(f'#!/bin/sh\nif [ "$1" = "--version" ]; then\n  echo probe >> "{count}"\n  {version}\nfi\n'
                       f'exec "{sys.executable}" "{FAKE_SERVER}" "$@"\n')
    program.chmod(0o755)
    return program, count


def _registry(tmp_path: Path, command: str) -> LanguageRegistry:
    """The language data with Python's server `command` alone (with the fake's adapter)."""
    return LanguageRegistry(langs_with_python_server(tmp_path, [command]), data_dir("queries"))


@pytest.fixture
def probing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_workspace: Path) -> Path:
    monkeypatch.setattr(discovery, "VERSION_TIMEOUT", PROBE_SECONDS)
    monkeypatch.setattr(discovery, "RETRY_SECONDS", RETRY_SECONDS)
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_LSP_MODE", "ok")
    return fake_workspace


def _status(gateway: Gateway) -> tuple[list[dict[str, str]], str]:
    """What `gateway daemon status` says, as JSON and as text, from a daemon serving `gateway`."""

    async def asked() -> dict[str, object]:
        return DaemonServer(gateway, idle_seconds=60).status()

    status = asyncio.run(asked())
    return status["on_tree_sitter"], _describe(status)  # type: ignore[return-value]


@pytest.mark.usefixtures("processes")
def test_a_timed_out_probe_is_retried_after_a_backoff_and_the_status_says_why(tmp_path: Path, probing: Path,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    hang = tmp_path / "hang"
    hang.touch()
    _, count = _server_on_path(tmp_path, "slowpy", f'[ -e "{hang}" ] && exec /bin/sleep 30\n  echo "slowpy 1.0"; exit 0')
    with Gateway(probing, _registry(tmp_path, "slowpy")) as gateway:
        lang = gateway.registry.for_path(probing / "m.py")
        assert lang is not None
        backend = gateway.symbol_service.backend(lang)
        why = f"slowpy --version did not answer within {PROBE_SECONDS:g} s; asked again by a call from {RETRY_SECONDS:g} s after"
        assert backend.session is None and backend.note == f"{why}; symbols from tree-sitter"  # the call says so too
        listed, text = _status(gateway)
        assert listed == [{"language": "python", "server": lang.server.name, "why": why}]
        assert f"python: from tree-sitter, since {lang.server.name} could not be used: {why}" in text.splitlines()
        hang.unlink()  # it would answer now, but is not asked on every call: only once the backoff has passed
        assert gateway.symbol_service.backend(lang).session is None and count.read_text() == "probe\n"
        monkeypatch.setattr(discovery, "RETRY_SECONDS", 0.0)  # the backoff passed
        assert gateway.sessions.session_for(lang) is not None  # asked again: it answers, and it runs
        assert count.read_text() == "probe\nprobe\n"
        assert _status(gateway)[0] == []


@pytest.mark.usefixtures("processes")
def test_a_server_that_fails_its_probe_is_not_asked_again_and_the_status_says_why(tmp_path: Path, probing: Path) -> None:
    _, count = _server_on_path(tmp_path, "brokenpy", 'echo "brokenpy: libfoo.so: cannot open shared object file" >&2; exit 127')
    with Gateway(probing, _registry(tmp_path, "brokenpy")) as gateway:
        lang = gateway.registry.for_path(probing / "m.py")
        assert lang is not None
        for _ in range(3):
            assert gateway.symbol_service.backend(lang).session is None
        assert count.read_text() == "probe\n"
        listed, text = _status(gateway)
        assert listed == [{"language": "python", "server": lang.server.name, "why": "brokenpy: libfoo.so: cannot open shared object file"}]
        assert "python: from tree-sitter" in text


@pytest.mark.usefixtures("processes")
def test_a_server_not_installed_is_named_so(tmp_path: Path, probing: Path) -> None:
    (tmp_path / "bin").mkdir()
    with Gateway(probing, _registry(tmp_path, "nosuchpy")) as gateway:
        lang = gateway.registry.for_path(probing / "m.py")
        assert lang is not None and gateway.symbol_service.backend(lang).session is None
        assert _status(gateway)[0] == [{"language": "python", "server": lang.server.name, "why": "not installed (no nosuchpy on PATH)"}]


@pytest.mark.usefixtures("processes")
def test_the_daemons_status_names_the_language_on_tree_sitter(tmp_path: Path, fake_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a real daemon and `gateway daemon status`, text and --json."""
    _, count = _server_on_path(tmp_path, "brokenpy", 'echo "brokenpy: libfoo.so: cannot open shared object file" >&2; exit 127')
    _registry(tmp_path, "brokenpy")
    runtime = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    monkeypatch.delenv("GATEWAY_NO_DAEMON", raising=False)
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime), "GATEWAY_LANGS_DIR": str(tmp_path / "langs"),
           "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}

    def gateway(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "gateway", *args, "--workspace", str(fake_workspace)], env=env,
                              capture_output=True, text=True, timeout=120)

    try:
        assert gateway("daemon", "start").returncode == 0
        symbols = gateway("symbols", "m.py", "--json")
        answer = json.loads(symbols.stdout)
        assert (answer["backend"], answer["note"]) == ("tree-sitter", "brokenpy: libfoo.so: cannot open shared object file; symbols from tree-sitter")
        status = gateway("daemon", "status", "--json")
        assert json.loads(status.stdout)["on_tree_sitter"] == [
            {"language": "python", "server": "zuban", "why": "brokenpy: libfoo.so: cannot open shared object file"}], status
        text = gateway("daemon", "status").stdout.splitlines()
        assert "python: from tree-sitter, since zuban could not be used: brokenpy: libfoo.so: cannot open shared object file" in text
        assert count.read_text() == "probe\n"  # the daemon asked once, for its life
    finally:
        gateway("daemon", "stop")
        shutil.rmtree(runtime, ignore_errors=True)
