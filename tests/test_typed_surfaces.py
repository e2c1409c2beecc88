"""Typed edits through the other interfaces: the Claude Code hook (and its Bash guard), JSON-RPC, MCP."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.rpc_client import RpcClient, RpcError
from tests.test_mcp import _payload, _session_calls
from tests.test_typed_grants import SHAPES, log

pytestmark = [pytest.mark.usefixtures("processes"), pytest.mark.workspace(enforce=True)]


def hook(payload: dict[str, Any], cwd: Path) -> dict[str, Any] | None:
    done = subprocess.run([sys.executable, "-m", "gateway", "hook", "claude-code"], input=json.dumps({"cwd": str(cwd), **payload}),
                          capture_output=True, text=True, cwd=cwd, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() else None


def declare(workspace: Path, *files: str) -> str:
    done = subprocess.run([sys.executable, "-m", "gateway", "declare", "edit_boundary_condition", *[a for f in files for a in ("--file", f)],
                           "--target", "prod", "--provenance", "user_confirmed", "--rationale", "asked", "--test-file", "tests/t.py",
                           "--workspace", str(workspace), "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(done.stdout)["token"]


def reason(decision: dict[str, Any] | None) -> str:
    assert decision is not None
    return decision["hookSpecificOutput"]["permissionDecisionReason"]


def test_the_hook_needs_a_grant_for_every_native_write(workspace: Path) -> None:
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(workspace / SHAPES), "old_string": "width * height", "new_string": "height * width"}}
    assert "(undeclared)" in reason(hook(edit, workspace))
    declare(workspace, SHAPES)
    assert hook(edit, workspace) is None
    assert "(consumed)" in reason(hook(edit, workspace))
    write = {"tool_name": "Write", "tool_input": {"file_path": "pkg/new.py", "content": "X = 1\n"}}
    assert "(undeclared)" in reason(hook(write, workspace))
    declare(workspace, "pkg/new.py")  # declared while absent: the grant is for creating it
    assert hook(write, workspace) is None
    notebook = {"tool_name": "NotebookEdit", "tool_input": {"notebook_path": "pkg/n.ipynb", "new_source": "1"}}
    assert "(undeclared)" in reason(hook(notebook, workspace))
    outside = {"tool_name": "Write", "tool_input": {"file_path": "/tmp/gateway-hook-outside.txt", "content": "x"}}
    assert hook(outside, workspace) is None
    blocked = {"tool_name": "Edit", "tool_input": {"file_path": SHAPES, "old_string": "def area(width, height):\n    return width * height\n",
                                                   "new_string": "def area(w, h):\n    return w * h\n"}}
    assert "(consumed)" in reason(hook(blocked, workspace))  # routed, so it needs a grant like any write
    declare(workspace, SHAPES)
    routed = hook(blocked, workspace)
    assert routed is not None and "updatedInput" in routed["hookSpecificOutput"]
    assert [(e["phase"], e.get("operation"), (e["audit_error"] or {}).get("code")) for e in log(workspace)] == [
        ("rejected", "hook:Edit", "undeclared"),
        ("issued", None, None),
        ("consumed", "hook:Edit", None),
        ("rejected", "hook:Edit", "consumed"),
        ("rejected", "hook:Write", "undeclared"),
        ("issued", None, None),
        ("consumed", "hook:Write", None),
        ("rejected", "hook:NotebookEdit", "undeclared"),
        ("rejected", "hook:Edit", "consumed"),
        ("issued", None, None),
        ("consumed", "hook:Edit", None),
    ]
    assert [o["tool"] for o in log(workspace)[-1]["operations"]] == ["replace_symbol"]


def test_the_hook_verifies_bash_commands_instead_of_refusing_them(workspace: Path) -> None:
    for command in ("sed -i 's/width/w/' pkg/shapes.py", "cat > pkg/shapes.py <<'EOF'\nx\nEOF", "cat pkg/shapes.py", "pytest -q"):
        assert hook({"tool_name": "Bash", "tool_input": {"command": command}}, workspace) is None  # checked after it runs
    assert log(workspace) == []
    config = workspace / ".gateway" / "config.toml"
    enforced = config.read_text()
    config.write_text("[typed_edits]\nenforce = false\n")  # between tool calls: put back at the next one
    assert ".gateway/config.toml (changed)" in reason(hook({"tool_name": "Bash", "tool_input": {"command": "true"}}, workspace))
    assert config.read_text() == enforced


def test_rpc_declare_and_write_with_the_token(workspace: Path) -> None:
    process = subprocess.Popen([sys.executable, "-m", "gateway", "serve", "--workspace", str(workspace)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        client = RpcClient.over_process(process)
        assert len(client.request("gateway/kinds")["kinds"]) == 21
        edit = {"path": SHAPES, "old_string": "width * height", "new_string": "height * width"}
        with pytest.raises(RpcError) as caught:
            client.request("gateway/edit", edit)
        assert caught.value.code == -32005 and caught.value.data["error"]["reason"] == "undeclared"  # the one refusal shape
        declared = client.request("gateway/declare", {"kind": "edit_boundary_condition", "files": [SHAPES], "target": "prod",
                                                      "provenance": "user_confirmed", "rationale": "asked", "test_files": ["tests/t.py"]})
        assert client.request("gateway/edit", {**edit, "token": declared["token"]})["applied"] is True
        rejected = client.request("gateway/declare", {"kind": "edit_decision", "files": ["DECISIONS.md"], "provenance": "inference", "rationale": "x"})
        assert rejected["issued"] is False and rejected["audit_error"]["code"] == "provenance_rejected"
        assert (rejected["ok"], rejected["error"]["kind"], rejected["error"]["code"]) == (False, "declaration_refused", "provenance_rejected")
        assert rejected["error"]["message"] == rejected["audit_error"]["message"]
        summary = client.request("gateway/auditSummary")
        assert summary["phases"] == {"issued": 1, "consumed": 1, "rejected": 2}
        assert [e["phase"] for e in client.request("gateway/auditLog", {"kind": "edit_decision"})["entries"]] == ["rejected"]
    finally:
        process.kill()
        process.wait()


def test_mcp_declare_tool_declares_and_applies(workspace: Path) -> None:
    _, results = _session_calls(workspace, [
        ("edit_file", {"file_path": SHAPES, "old_string": "width * height", "new_string": "height * width"}),
        ("declare", {"kind": "edit_boundary_condition", "provenance": "user_confirmed", "rationale": "asked", "target": "prod",
                     "test_files": ["tests/t.py"], "file_path": SHAPES, "old_string": "width * height", "new_string": "height * width"}),
        ("declare", {"kind": "edit_api_contract", "provenance": "user_confirmed", "rationale": "asked", "target": "prod",
                     "test_files": ["tests/t.py"], "files": [SHAPES]}),
        ("declare", {"kind": "edit_cosmetic", "provenance": "speculation", "rationale": "tidy", "target": "prod", "files": [SHAPES]}),
    ])
    assert results[0].is_error and "grant_refused" in results[0].content[0].text
    applied = _payload(results[1])
    assert applied["issued"] and applied["edit"]["applied"] is True
    grant = _payload(results[2])
    assert grant["issued"] and "edit" not in grant
    assert _payload(results[3])["audit_error"]["code"] == "provenance_rejected"
    _, results = _session_calls(workspace, [
        ("replace_symbol", {"name_path": "area", "path": SHAPES, "body": "def area(w, h):\n    return h * w", "token": grant["token"]}),
        ("remove_symbol", {"name_path": "perimeter", "path": SHAPES, "token": grant["token"]}),
    ])
    assert _payload(results[0])["ok"] is True
    assert results[1].is_error and "consumed" in results[1].content[0].text
    assert "def area(w, h):" in (workspace / SHAPES).read_text()
