"""A host's structural edit on a Java workspace while the real jdtls starts (its index folder
fresh, so the start is cold), judged as the workspace's daemon judges a hook (its warm engine,
each server request bounded by the hook's budget): routed on tree-sitter's symbols within
the budget and saying jdtls is still starting, where waiting for the start would have cost
the edit; once jdtls has loaded the workspace, routed on its symbols, and the agent told the caller the
header change breaks (the language server's delta), not the error the file had before. One
jdtls start: it is also the Java case of the delta (tests/test_verify.py has the others)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.lsp.manager import waiting_at_most
from gateway.surfaces.hooks.run import outcome
from tests.test_hook import applied_by_host

pytestmark = pytest.mark.usefixtures("servers")

CART = """package demo;

public class Cart {
    public int total(int a) {
        return a + 1;
    }

    public int count() {
        return 2;
    }

    public int broken() {
        return undefinedName;
    }
}
"""
SHOP = """package demo;

public class Shop {
    int items() {
        return new Cart().count();
    }
}
"""
BUDGET = 2.0  # seconds a request to a server waits in this hook (the daemon's: hooks.client.SERVER_SECONDS)


def _hook(gateway: Gateway, path: Path, old: str, new: str, budget: float) -> tuple[float, str]:
    """The edit through the hook as the daemon judges it: (seconds the PreToolUse answer took,
    what PostToolUse tells the agent once the host has written the routed edit)."""
    context: dict[str, str | None] = {"cwd": str(path.parent), "project_dir": str(gateway.workspace.root)}
    edit = {"file_path": str(path), "old_string": old, "new_string": new}
    began = time.monotonic()
    with waiting_at_most(budget):
        stdout, code = outcome("claude-code", json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": edit}).encode(),
                               context, None, gateway)
    took = time.monotonic() - began
    assert code == 0, stdout
    answer = json.loads(stdout)["hookSpecificOutput"]
    assert "updatedInput" in answer, answer  # routed, not refused
    updated = answer["updatedInput"]
    path.write_text(applied_by_host(path.read_text(), "Edit", updated))
    post = {"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": edit, "tool_response": {"filePath": str(path)}}
    with waiting_at_most(budget):
        told, code = outcome("claude-code", json.dumps(post).encode(), context, None, gateway)
    assert code == 0, told
    return took, json.loads(told)["hookSpecificOutput"]["additionalContext"]


def test_a_hook_edit_while_jdtls_starts_is_routed_on_tree_sitter_within_the_budget_and_on_jdtls_once_it_has_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # no index folder of an earlier run: a cold start
    root = tmp_path / "ws"
    (root / "src" / "demo").mkdir(parents=True)
    cart = root / "src" / "demo" / "Cart.java"
    cart.write_text(CART)
    (root / "src" / "demo" / "Shop.java").write_text(SHOP)
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text("[verify]\nbudget_ms = 60000\nbody = true\n")
    with Gateway(root) as gateway:
        took, told = _hook(gateway, cart, "public int total(int a) {\n        return a + 1;",
                           "public int total(int a, int b) {\n        return a + b;", BUDGET)
        assert "via tree-sitter (jdtls is still starting)" in told, told
        assert took < BUDGET + 2, f"the hook's answer waited {took:.1f} s for jdtls's start"
        assert "public int total(int a, int b) {" in cart.read_text()
        deadline = time.monotonic() + 240
        while not any(session.ready for session in gateway.sessions.running()) and time.monotonic() < deadline:
            time.sleep(0.5)
        [session] = gateway.sessions.running()
        assert session.name == "jdtls" and session.ready and not session.broken, "jdtls was not left to start"
        _, told = _hook(gateway, cart, "public int count() {\n        return 2;", "public int count(int extra) {\n        return 2 + extra;", 20.0)
        assert "via lsp:jdtls;" in told, told
        assert "reports 1 new error: src/demo/Shop.java:5:" in told and "count" in told and "undefinedName" not in told, told
        assert "Callers of the changed header: src/demo/Shop.java:5 (broken)" in told, told
        body = gateway.edit("src/demo/Cart.java", "return 2 + extra;", "return 3 + extra;").to_json()  # beside the error Cart had before
        assert (body["verified"], body["new_errors"]) == ("checked", []), body
    assert "public int count(int extra) {" in cart.read_text()
