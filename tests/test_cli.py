"""`gateway classify` and `gateway edit` as separate processes: exit codes, JSON, files untouched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gateway.errors import NewErrors, RemoteError, exit_code_for
from gateway.results import NewError, OperationResult, Verification, refusal
from gateway.surfaces import cli, cli_text, render
from tests.gate_cases import PYTHON


DECORATED_OLD = "    @functools.cache\n    @staticmethod\n    def fee(amount):\n        return amount // 100"
DECORATED_NEW = "    @staticmethod\n    def fee(amount):\n        return amount // 50"
BODY_OLD = "        self.owner = owner\n        self.balance = 0"
BODY_NEW = "        self.owner = owner\n        self.balance = 100"


def gateway(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gateway", *args], cwd=cwd, input=stdin, capture_output=True, text=True, timeout=60
    )


pytestmark = [pytest.mark.usefixtures("processes"), pytest.mark.workspace(copy=None, files={"src/account.py": PYTHON.source})]


def test_classify_allow(workspace: Path) -> None:
    done = gateway("classify", "src/account.py", "--old", BODY_OLD, "--new", BODY_NEW, "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert (result["decision"], result["suggested_tool"], result["language"], result["definitions"]) == (
        "allow", None, "python", [])
    assert (result["ok"], result["applied"]) == (True, False)  # classify answers in the envelope
    assert result["message"].startswith("Allowed")


def test_classify_block(workspace: Path) -> None:
    done = gateway("classify", "src/account.py", "--old", DECORATED_OLD, "--new", DECORATED_NEW, "--json", cwd=workspace)
    assert done.returncode == 3
    result = json.loads(done.stdout)
    assert result["decision"] == "block" and result["suggested_tool"] == "replace_symbol"
    assert result["definitions"] == [
        {"kind": "method", "name": "fee", "name_path": "Account/fee", "line": 18, "change": "header"}
    ]
    assert "gateway replace-symbol Account/fee src/account.py" in result["message"]
    assert (result["ok"], result["applied"]) == (True, False)
    assert result["suggested"] == [{"operation": "replace_symbol", "params": {"name_path": "Account/fee", "path": "src/account.py",
                                                                            "body": "NEW_DEFINITION_FILE"},
                                    "command": "gateway replace-symbol Account/fee src/account.py --body-file NEW_DEFINITION_FILE"}]


def test_classify_text_files_and_workspace_option(workspace: Path) -> None:
    (workspace / "old.txt").write_text(DECORATED_OLD)
    (workspace / "new.txt").write_text(DECORATED_NEW)
    done = gateway(
        "classify", "src/account.py", "--old-file", str(workspace / "old.txt"), "--new-file",
        str(workspace / "new.txt"), "--workspace", str(workspace), cwd=Path("/"),
    )
    assert done.returncode == 3
    assert done.stdout.startswith("Blocked: this multi-line edit to src/account.py")


@pytest.mark.parametrize(
    "args",
    [
        ("classify", "src/missing.py", "--old", "a", "--new", "b"),
        ("classify", "src/account.py", "--new", "b"),
        ("classify", "src/account.py", "--old", "a", "--old-file", "x", "--new", "b"),
        ("classify", "../etc/passwd", "--old", "a", "--new", "b"),
        ("bogus",),
    ],
)
def test_errors_exit_1_with_one_line(workspace: Path, args: tuple[str, ...]) -> None:
    done = gateway(*args, cwd=workspace)
    assert done.returncode == 1
    assert done.stderr.startswith("gateway: ") and done.stderr.count("\n") == 1


def test_edit_applied(workspace: Path) -> None:
    done = gateway("edit", "src/account.py", "--old", BODY_OLD, "--new", BODY_NEW, "--json", cwd=workspace)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["applied"] is True and result["decision"] == "allow"
    assert (workspace / "src" / "account.py").read_text() == PYTHON.source.replace(BODY_OLD, BODY_NEW)


def test_edit_text_output(workspace: Path) -> None:
    done = gateway("edit", "src/account.py", "--old", BODY_OLD, "--new", BODY_NEW, cwd=workspace)
    assert (done.returncode, done.stdout) == (0, "Applied: 1 replacement(s) in src/account.py (line 13).\n")


def test_edit_blocked_leaves_file(workspace: Path) -> None:
    done = gateway("edit", "src/account.py", "--old", DECORATED_OLD, "--new", DECORATED_NEW, "--json", cwd=workspace)
    assert done.returncode == 3
    result = json.loads(done.stdout)
    assert (result["applied"], result["decision"], result["suggested_tool"]) == (False, "block", "replace_symbol")
    error = result["error"]  # the one refusal shape: ok, error {kind, message, hint?, suggested}
    assert (result["ok"], error["kind"], error["message"]) == (False, "blocked", result["message"])
    assert "rerun with --route" in error["hint"] and [s["command"] for s in error["suggested"]] == result["commands"]
    assert (workspace / "src" / "account.py").read_text() == PYTHON.source
    done = gateway("edit", "src/account.py", "--old", DECORATED_OLD, "--new", DECORATED_NEW, cwd=workspace)
    assert done.returncode == 3 and "rerun with --route" in done.stdout  # the way through, from the CLI


def test_edit_error_json(workspace: Path) -> None:
    done = gateway("edit", "src/account.py", "--old", "absent text", "--new", "x", "--json", cwd=workspace)
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["applied"] is False and result["ok"] is False and result["error"]["kind"] == "not_found"
    assert result["error"]["message"] and result["error"]["suggested"] == []
    assert (workspace / "src" / "account.py").read_text() == PYTHON.source


def test_edit_stdin_agent_payload(workspace: Path) -> None:
    payload = {
        "file_path": str(workspace / "src" / "account.py"),
        "old_string": "= 0",
        "new_string": "= 1",
        "replace_all": True,
    }
    done = gateway("edit", "--stdin", "--json", cwd=workspace, stdin=json.dumps(payload))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["replacements"] == 1
    assert "self.balance = 1" in (workspace / "src" / "account.py").read_text()


def test_edit_stdin_blocked(workspace: Path) -> None:
    payload = {"file_path": "src/account.py", "old_string": DECORATED_OLD, "new_string": ""}
    done = gateway("edit", "--stdin", cwd=workspace, stdin=json.dumps(payload))
    assert done.returncode == 3 and "remove_symbol" in done.stdout
    assert (workspace / "src" / "account.py").read_text() == PYTHON.source


@pytest.mark.parametrize("stdin", ["not json", "[]", '{"file_path": "src/account.py"}'])
def test_edit_stdin_malformed(workspace: Path, stdin: str) -> None:
    done = gateway("edit", "--stdin", cwd=workspace, stdin=stdin)
    assert done.returncode == 1 and done.stderr.startswith("gateway: --stdin")
    assert (workspace / "src" / "account.py").read_text() == PYTHON.source


def test_version_and_one_error_prefix(tmp_path: Path) -> None:
    version = gateway("--version", cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("gateway 0.")
    wrong = gateway("replace-symbol", cwd=tmp_path)
    assert wrong.returncode == 1 and wrong.stderr.startswith("gateway: replace-symbol: ") and wrong.stderr.count("gateway") == 1


def test_a_closed_pipe_and_a_bad_environment_value_give_no_traceback(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("".join(f"def f{i}():\n    return {i}\n\n\n" for i in range(3000)))
    piped = subprocess.run(f"{sys.executable} -m gateway symbols m.py | head -1", shell=True, cwd=tmp_path,
                           capture_output=True, text=True, env={**os.environ, "GATEWAY_NO_SERVERS": "1"})
    assert piped.stdout.startswith("m.py") and "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr
    bad = subprocess.run([sys.executable, "-m", "gateway", "symbols", "m.py"], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "GATEWAY_LSP_TIMEOUT": "abc"})
    assert bad.returncode == 1 and bad.stderr == "gateway: GATEWAY_LSP_TIMEOUT must be a number of seconds above 0, not 'abc'\n"


# What a write did to the program, as the CLI says it (the result's JSON, from the engine or a daemon).
GO_ERROR = NewError("main.go", 6, 22, "not enough arguments in call to Total", "compiler")


def _performed(verification: Verification | None, dry_run: bool = False) -> dict[str, Any]:
    return OperationResult("replace_symbol", "Total", "shop.go", "lsp:gopls", 3, 9, "--- a/shop.go\n+++ b/shop.go\n",
                           "Replaced `Total`.", verification=verification, dry_run=dry_run).to_json()


def test_the_text_of_a_write_names_each_new_error_the_unchecked_files_and_the_callers() -> None:
    checked = Verification("checked", (GO_ERROR,), "far.go: no answer within 2000 ms", ("far.go",), ("main.go:6", "other.go:12"), "gopls")
    text, code = cli_text.operation(_performed(checked), {})
    assert code == 0 and text.splitlines()[3:] == [
        "The language server (gopls) reports 1 new error(s):",
        "  main.go:6:22: not enough arguments in call to Total (compiler)",
        "Not checked (far.go: no answer within 2000 ms): far.go.",
        "Callers of the changed header: main.go:6 (broken), other.go:12 (may break: not checked).",
    ]
    assert cli_text.operation(_performed(Verification("checked", server="gopls")), {})[0].endswith("\nVerified (gopls): no new errors.")
    unknown = Verification("unknown", why="jedi-language-server reports only syntax errors")
    assert cli_text.operation(_performed(unknown), {})[0].endswith("\nNot verified: jedi-language-server reports only syntax errors.")
    assert cli_text.operation(_performed(None), {})[0] == "Replaced `Total`.\n--- a/shop.go\n+++ b/shop.go"


def test_a_preview_says_nothing_was_written_and_exits_as_the_write_would() -> None:
    text, code = cli_text.operation(_performed(Verification("checked", (GO_ERROR,)), dry_run=True), {})
    assert code == 0 and text.startswith("Dry run, nothing written: Replaced `Total`.") and "main.go:6:22: not enough" in text


def test_a_refusal_for_new_errors_is_spelled_on_every_surface_with_each_place(capsys: pytest.CaptureFixture[str]) -> None:
    refused = NewErrors("Refused: the write would add 1 error: main.go:6 (not enough arguments in call to Total).", new_errors=(GO_ERROR,))
    for error in (refused, RemoteError(refusal(refused))):  # in process, and as a daemon's answer
        data = render.refusal(error, render.CLI)
        assert (data["ok"], data["error"]["kind"], data["error"]["new_errors"]) == (False, "new_errors", [GO_ERROR.to_json()])
        assert exit_code_for(error) == 3
        code, message, rpc_data = render.rpc_error(error)
        assert (code, rpc_data["error"]["new_errors"][0]["line"]) == (-32012, 6) and "main.go:6" in message
        assert json.loads(render.mcp_error(error))["error"]["new_errors"] == [GO_ERROR.to_json()]
        cli._say_new_errors(data)  # noqa: SLF001
        assert capsys.readouterr().err == "  main.go:6:22: not enough arguments in call to Total (compiler)\n"


def test_a_write_that_changed_no_definition_says_nothing_of_verification() -> None:
    skipped = Verification("skipped", why="the write changes only bodies of definitions ([verify] body = false)")
    assert cli_text.operation(_performed(skipped), {})[0] == "Replaced `Total`.\n--- a/shop.go\n+++ b/shop.go"
    assert _performed(skipped)["verified"] == "skipped"  # said in --json


def test_a_contracts_text_ends_with_the_verification_of_its_writes() -> None:
    applied = {"contract": "add-discount", "ready": True, "validated": True, "problems": [], "steps": [], "validations": [],
               **Verification("checked", (GO_ERROR,), server="gopls").to_json()}
    text, code = cli_text.contract("apply")(applied, {})
    assert code == 0 and text.splitlines() == ["Contract add-discount applied and validated.", "The language server (gopls) reports 1 new error(s):",
                                               "  main.go:6:22: not enough arguments in call to Total (compiler)"]
