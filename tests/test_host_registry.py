"""Each host registers itself in its own module of `gateway.surfaces.hooks.hosts`: the hook, the
installer, the user's denies, trust and sandboxes find every host there, and nowhere else."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.surfaces.hooks import registry

HOSTS_DIR = Path(registry.__file__).parent / "hosts"


def test_every_module_of_the_hosts_package_registers_the_host_it_is_named_for() -> None:
    modules = sorted(p.stem for p in HOSTS_DIR.glob("*.py") if not p.name.startswith("_"))
    assert [name.replace("-", "_") for name in registry.names()] == modules
    assert set(registry.names()) == {"claude-code", "copilot", "gemini", "codex", "opencode"}


def test_each_host_says_what_every_part_of_the_gateway_needs_of_it() -> None:
    for name, host in registry.hosts().items():
        assert registry.host(name) is host
        assert host.events and set(host.events.values()) <= set(registry.EVENTS) and "pre" in host.events.values(), name
        assert host.edit_style in ("exact", "claude", "gemini") and host.edit_tools and host.process_names, name
        assert (host.sandbox is None) == (host.enforcement is None) and (host.enforcement is not None or host.no_sandbox), name


def test_a_name_no_host_module_has_is_no_host() -> None:
    for name in ("cursor", "install", "../run", "Claude-Code", "_registry", "", 3, None):
        assert registry.host(name) is None


def test_the_hooks_events_come_from_the_hosts() -> None:
    assert set(registry.events_for("stop")) == {"Stop", "SubagentStop", "SessionEnd", "sessionEnd", "session.idle"}
    assert set(registry.events_for("start")) == {"SessionStart", "sessionStart"}
    assert {"PreToolUse", "preToolUse"} <= set(registry.events_for("pre"))


def test_the_project_directory_is_read_from_the_hosts_own_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GEMINI_PROJECT_DIR", "/work/gemini-project")
    monkeypatch.setenv("CLAUDE_PROJECT_DIR", "/work/claude-project")
    assert registry.context_of("gemini")["project_dir"] == "/work/gemini-project"
    assert registry.context_of("claude-code")["project_dir"] == "/work/claude-project"
    assert registry.context_of("codex")["project_dir"] is None
