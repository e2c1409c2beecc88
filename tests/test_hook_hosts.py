"""Each host's adapter in process: the host's own payload in, the host's own reply form out,
with the same judgement behind all of them (the real gate and routing, no host)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gateway.api import Gateway
from gateway.engine import Engine
from gateway.errors import HookFailed
from gateway.surfaces.hooks.run import outcome
from tests.caller_cases import GO, GO_NEW, GO_OLD, GO_WORKSPACE
from tests.hosts.sample import BROKEN, NEW, OLD, SOURCE

BODY = ("return len(self.prices)", "return len(self.prices) + 0")


pytestmark = pytest.mark.workspace(copy=None, files={"prices.py": SOURCE})


def answer(host: str, payload: dict[str, Any], event: str | None = None, engine: Engine | None = None) -> dict[str, Any] | None:
    stdout, code = outcome(host, json.dumps(payload).encode(), {"cwd": payload.get("cwd"), "project_dir": None}, event, engine)
    assert code == 0
    return json.loads(stdout) if stdout else None


def payloads(host: str, root: Path, old: str, new: str) -> dict[str, Any]:
    path = str(root / "prices.py")
    if host == "claude-code":
        return {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(root),
                "tool_input": {"file_path": path, "old_string": old, "new_string": new}}
    if host == "copilot-via-claude":
        return {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(root), "tool_input": {"path": path, "old_str": old, "new_str": new}}
    if host == "copilot":
        return {"toolName": "edit", "toolArgs": json.dumps({"path": path, "old_str": old, "new_str": new}), "cwd": str(root)}
    if host == "gemini":
        return {"hook_event_name": "BeforeTool", "tool_name": "replace", "cwd": str(root),
                "tool_input": {"file_path": path, "instruction": "i", "old_string": old, "new_string": new}}
    return {"hook_event_name": "tool.execute.before", "tool": "edit", "cwd": str(root), "args": {"filePath": path, "oldString": old, "newString": new}}


HOSTS = ("claude-code", "copilot-via-claude", "copilot", "gemini", "opencode")
ADAPTER = {"copilot-via-claude": "claude-code"}


def rewritten(host: str, reply: dict[str, Any]) -> tuple[str, str]:
    """(old, new) of the rewritten edit, read from the host's reply form."""
    if host == "claude-code":
        edit = reply["hookSpecificOutput"]["updatedInput"]
        assert "permissionDecision" not in reply["hookSpecificOutput"]
        return edit["old_string"], edit["new_string"]
    if host == "copilot-via-claude":
        edit = reply["hookSpecificOutput"]["updatedInput"]
        assert "file_path" not in edit and "old_string" not in edit
        return edit["old_str"], edit["new_str"]
    if host == "copilot":
        assert "permissionDecision" not in reply
        return reply["modifiedArgs"]["old_str"], reply["modifiedArgs"]["new_str"]
    if host == "gemini":
        tool_input = reply["hookSpecificOutput"]["tool_input"]
        assert tool_input["instruction"] == "i" and tool_input["file_path"].endswith("prices.py")  # the whole input
        return tool_input["old_string"], tool_input["new_string"]
    assert reply["action"] == "rewrite"
    return reply["args"]["oldString"], reply["args"]["newString"]


def refusal(host: str, reply: dict[str, Any] | None) -> str:
    assert reply is not None
    if host in ("claude-code", "copilot-via-claude"):
        assert reply["hookSpecificOutput"]["permissionDecision"] == "deny"
        return str(reply["hookSpecificOutput"]["permissionDecisionReason"])
    if host == "copilot":
        assert reply["permissionDecision"] == "deny"
        return str(reply["permissionDecisionReason"])
    if host == "gemini":
        assert reply["decision"] == "deny"
        return str(reply["reason"])
    assert reply["action"] == "deny"
    return str(reply["reason"])


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("host", HOSTS)
def test_a_structural_edit_comes_back_as_the_hosts_own_edit(host: str, workspace: Path) -> None:
    reply = answer(ADAPTER.get(host, host), payloads(host, workspace, OLD, NEW))
    assert reply is not None
    old, new = rewritten(host, reply)
    assert SOURCE.count(old) == 1 and SOURCE.replace(old, new) == SOURCE.replace(OLD, NEW)


@pytest.mark.parametrize("host", HOSTS)
def test_a_body_edit_passes_and_a_broken_one_is_refused_in_the_hosts_form(host: str, workspace: Path) -> None:
    assert answer(ADAPTER.get(host, host), payloads(host, workspace, *BODY)) is None
    assert "syntax error" in refusal(host, answer(ADAPTER.get(host, host), payloads(host, workspace, OLD, BROKEN)))


@pytest.mark.parametrize("host", ["gemini", "opencode", "copilot"])
def test_an_old_string_not_found_exactly_is_refused_not_left_to_fuzzy_matching(host: str, workspace: Path) -> None:
    """Gemini and OpenCode fall back to whitespace-insensitive matching: the gate judges exact matches only."""
    reason = refusal(host, answer(host, payloads(host, workspace, "def total(self,  tax):", "def total(self, tax, d):")))
    assert "not found" in reason


def test_gemini_judges_the_file_keeping_its_last_newline(workspace: Path) -> None:
    """Gemini's replace keeps whether the file ended with a newline: deleting the last line's
    newline does not happen, so it is no change to judge as one."""
    reply = answer("gemini", payloads("gemini", workspace, "        return len(self.prices)\n", "        return len(self.prices)"))
    assert reply is None


@pytest.mark.parametrize("host", ["claude-code", "copilot", "gemini", "codex", "opencode"])
@pytest.mark.parametrize("raw", [b"not json", b"[]", b'{"tool_name": 3}', b'\xff'])
def test_input_it_cannot_handle_fails_closed(host: str, raw: bytes) -> None:
    with pytest.raises(HookFailed):
        outcome(host, raw, {"cwd": "/", "project_dir": None})


def test_a_start_event_and_other_tools_pass_silently(workspace: Path) -> None:
    assert answer("copilot", {"toolName": "view", "toolArgs": {"path": "prices.py"}, "cwd": str(workspace)}) is None
    assert answer("gemini", {"hook_event_name": "SessionStart", "cwd": str(workspace)}) is None
    assert answer("codex", {"hook_event_name": "PreToolUse", "tool_name": "read_file", "tool_input": {}, "cwd": str(workspace)}) is None
    assert answer("opencode", {"tool": "read", "args": {"filePath": "prices.py"}, "cwd": str(workspace)}) is None


def codex_patch(old: str, new: str, path: str = "prices.py") -> str:
    body = "".join(f"-{line}\n" for line in old.splitlines()) + "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** Update File: {path}\n@@ class PriceList:\n{body}*** End Patch\n"


@pytest.mark.usefixtures("servers")
def test_codex_a_structural_patch_is_rewritten_file_by_file(workspace: Path) -> None:
    from gateway.patch import net_effects, parse_patch

    patch = codex_patch(OLD, NEW)
    reply = answer("codex", {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": str(workspace), "tool_input": {"command": patch}})
    assert reply is not None
    output = reply["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"  # Codex applies updatedInput only with it
    rewritten_patch = output["updatedInput"]["command"]
    assert "*** Add File: notes.txt\n+hello\n" in rewritten_patch  # the other file's section as the model wrote it
    found = net_effects(parse_patch(rewritten_patch), workspace, lambda p: p.read_text() if p.exists() else None)
    assert found.paths[1].after == SOURCE.replace(OLD, NEW)


def test_codex_a_broken_patch_is_denied_and_one_that_does_not_apply_is_left_to_codex(workspace: Path) -> None:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": str(workspace)}
    reply = answer("codex", {**payload, "tool_input": {"command": codex_patch(OLD, BROKEN)}})
    assert reply is not None and reply["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "syntax error" in reply["hookSpecificOutput"]["permissionDecisionReason"]
    assert answer("codex", {**payload, "tool_input": {"command": codex_patch("    def nowhere(self):\n", NEW)}}) is None
    assert answer("codex", {**payload, "tool_input": {"command": "*** Begin Patch\n*** Oops\n*** End Patch\n"}}) is None


@pytest.mark.usefixtures("servers")
def test_codex_a_patch_run_through_the_shell_is_judged_as_a_patch(workspace: Path) -> None:
    command = f"apply_patch <<'EOF'\n{codex_patch(OLD, NEW)}EOF\n"
    reply = answer("codex", {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(workspace), "tool_input": {"command": command}})
    assert reply is not None
    new_command = reply["hookSpecificOutput"]["updatedInput"]["command"]
    assert new_command.startswith("apply_patch <<'EOF'\n*** Begin Patch\n") and new_command.endswith("*** End Patch\nEOF\n")
    broken = f"apply_patch <<'EOF'\n{codex_patch(OLD, BROKEN)}EOF\n"
    denied = answer("codex", {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(workspace), "tool_input": {"command": broken}})
    assert denied is not None and denied["hookSpecificOutput"]["permissionDecision"] == "deny"


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("host", ["opencode", "copilot"])
def test_gpt5_sessions_send_the_patch_format_and_get_it_back_rewritten(host: str, workspace: Path) -> None:
    patch = codex_patch(OLD, NEW)
    if host == "opencode":
        reply = answer(host, {"hook_event_name": "tool.execute.before", "tool": "apply_patch", "cwd": str(workspace), "args": {"patchText": patch}})
        assert reply is not None and reply["action"] == "rewrite"
        rewritten_patch = reply["args"]["patchText"]
    else:
        reply = answer(host, {"toolName": "apply_patch", "toolArgs": patch, "cwd": str(workspace)})
        assert reply is not None
        rewritten_patch = reply["modifiedArgs"]
    assert rewritten_patch.startswith("*** Begin Patch\n") and "@@" in rewritten_patch


@pytest.mark.parametrize("host", ["copilot", "claude-code"])
def test_copilot_is_told_why_input_is_refused_in_its_deny_form(host: str, workspace: Path) -> None:
    """Copilot CLI shows the model only "hook exited with code 2": before a tool, input the hook
    cannot handle is refused with the host's JSON deny and the reason, exit 0 (Copilot runs Claude
    Code's hook too, so that one answers the same way)."""
    payload = ({"toolName": "edit", "toolArgs": "[1, 2]", "cwd": str(workspace)} if host == "copilot"
               else {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(workspace), "tool_input": {"path": 3}})
    stdout, code = outcome(host, json.dumps(payload).encode(), {"cwd": str(workspace), "project_dir": None}, "pre")
    assert code == 0
    reply = json.loads(stdout)
    decision = reply if host == "copilot" else reply["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    expected = "toolArgs must be an object" if host == "copilot" else "path must be a string"
    assert decision["permissionDecisionReason"].startswith("gateway: ") and expected in decision["permissionDecisionReason"], decision


@pytest.mark.parametrize("host, payload", [
    ("gemini", {"hook_event_name": "BeforeTool", "tool_name": "replace", "tool_input": 3}),
    ("codex", {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_input": 3}),
    ("opencode", {"hook_event_name": "tool.execute.before", "tool": "edit", "args": 3}),
])
def test_other_hosts_keep_exit_2_with_the_reason_on_stderr(host: str, payload: dict[str, Any], workspace: Path) -> None:
    """Gemini CLI, Codex CLI and OpenCode's plugin give the model the hook's stderr on exit 2."""
    with pytest.raises(HookFailed, match="must be an object"):
        outcome(host, json.dumps({**payload, "cwd": str(workspace)}).encode(), {"cwd": str(workspace), "project_dir": None}, "pre")


def header_change(host: str, root: Path, when: str, old: str = GO_OLD, new: str = GO_NEW) -> tuple[dict[str, Any], str]:
    """A Go header change in shop.go (routed: GO_OLD to GO_NEW), before or after the host ran it, in its own payload."""
    path, pre = str(root / "shop.go"), when == "pre"
    if host == "claude-code":
        return {"hook_event_name": "PreToolUse" if pre else "PostToolUse", "tool_name": "Edit", "cwd": str(root),
                "tool_input": {"file_path": path, "old_string": old, "new_string": new}}, when
    if host == "copilot":
        return {"toolName": "edit", "toolArgs": {"path": path, "old_str": old, "new_str": new}, "cwd": str(root)}, when
    if host == "gemini":
        return {"hook_event_name": "BeforeTool" if pre else "AfterTool", "tool_name": "replace", "cwd": str(root),
                "tool_input": {"file_path": path, "instruction": "i", "old_string": old, "new_string": new}}, when
    if host == "codex":
        body = "".join(f"-{line}\n" for line in old.splitlines()) + "".join(f"+{line}\n" for line in new.splitlines())
        return {"hook_event_name": "PreToolUse" if pre else "PostToolUse", "tool_name": "apply_patch", "cwd": str(root),
                "tool_input": {"command": f"*** Begin Patch\n*** Update File: shop.go\n@@\n{body}*** End Patch\n"}}, when
    return {"hook_event_name": "tool.execute.before" if pre else "tool.execute.after", "tool": "edit", "cwd": str(root),
            "args": {"filePath": path, "oldString": old, "newString": new}}, when


def context(host: str, reply: dict[str, Any] | None) -> str:
    """The note for the model after the host's tool ran, read from the host's reply form."""
    assert reply is not None
    if host == "copilot":
        return str(reply["additionalContext"])
    if host == "opencode":
        assert reply["action"] == "context"
        return str(reply["text"])
    return str(reply["hookSpecificOutput"]["additionalContext"])


def denial(host: str, reply: dict[str, Any] | None) -> str:
    if host == "codex":
        assert reply is not None and reply["hookSpecificOutput"]["permissionDecision"] == "deny"
        return str(reply["hookSpecificOutput"]["permissionDecisionReason"])
    return refusal(host, reply)


EVERY_HOST = ("claude-code", "copilot", "gemini", "codex", "opencode")
ONE_LINE_OLD, ONE_LINE_NEW = "func Total(prices []int, tax int) int {", "func Total(prices []int, tax int, discount int) int {"


@pytest.mark.usefixtures("servers")
@pytest.mark.workspace(copy=None, files=GO_WORKSPACE)
def test_each_host_is_told_the_caller_a_header_change_breaks_and_refused_it_under_refuse(workspace: Path) -> None:
    """gopls, warm as in the daemon: after the host ran a header change, routed or (one line) let
    through (Codex: also a patch run through its shell), its post-edit note names the caller it
    breaks (checkout.go:4); with `[verify]
    on_new_errors = "refuse"` the host's deny does."""
    with Gateway(str(workspace)) as engine:
        for host in EVERY_HOST:
            for old, new in ((GO_OLD, GO_NEW), (ONE_LINE_OLD, ONE_LINE_NEW)):
                answer(host, *header_change(host, workspace, "pre", old, new), engine)
                (workspace / "shop.go").write_text(GO.replace(old, new))  # as the host writes it
                note = context(host, answer(host, *header_change(host, workspace, "post", old, new), engine))
                assert "checkout.go:4" in note, (host, old, note)
                (workspace / "shop.go").write_text(GO)
        # Codex running the patch through its shell (`apply_patch <<'EOF'`) is told the same
        shell = {**header_change("codex", workspace, "pre")[0], "tool_name": "Bash"}
        shell["tool_input"] = {"command": f"apply_patch <<'EOF'\n{shell['tool_input']['command']}EOF\n"}
        answer("codex", shell, "pre", engine)
        (workspace / "shop.go").write_text(GO.replace(GO_OLD, GO_NEW))
        note = context("codex", answer("codex", {**shell, "hook_event_name": "PostToolUse"}, "post", engine))
        assert "shop.go as replace_symbol `Total`" in note and "checkout.go:4" in note, note
        (workspace / "shop.go").write_text(GO)
        (workspace / ".gateway").mkdir()
        (workspace / ".gateway" / "config.toml").write_text('[verify]\non_new_errors = "refuse"\n')
        for host in EVERY_HOST:
            reason = denial(host, answer(host, *header_change(host, workspace, "pre"), engine))
            assert "checkout.go:4" in reason, (host, reason)
            assert (workspace / "shop.go").read_text() == GO
