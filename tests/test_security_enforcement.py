"""Security round 3 (issue 23): enforcement that a Bash command could switch off from inside.

Each attack runs for real through the Claude Code hook entry point and real shell commands:
a background writer, the gateway's state removed, files hidden with git's index flags, a
grant reused for other bytes, the audit log emptied, `.gateway/` removed. Then 30+ harmless
everyday commands, none of which may be denied or reported.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gateway.snapshot import RACY_NS
from gateway.surfaces.hooks.hosts.claude_code import run as hook
from gateway.typed.state import state_dir
from tests.test_security_shell import DIRTY, ENFORCED_GIT_WORKSPACE, bash_call, files, run_through_hooks
from tests.test_typed_surfaces import declare

pytestmark = [pytest.mark.usefixtures("processes"), ENFORCED_GIT_WORKSPACE]
SHAPES = "pkg/shapes.py"


def _event(root: Path, event: str, tool: str, tool_input: dict[str, Any], use_id: str) -> dict[str, Any] | None:
    payload = {"hook_event_name": event, "tool_name": tool, "tool_use_id": use_id, "session_id": "s", "cwd": str(root),
               "tool_input": tool_input}
    out, code = hook(json.dumps(payload).encode())
    assert code == 0
    return json.loads(out) if out else None


def _stop(root: Path) -> dict[str, Any] | None:
    out, code = hook(json.dumps({"hook_event_name": "Stop", "session_id": "s", "cwd": str(root)}).encode())
    assert code == 0
    return json.loads(out) if out else None


def _wait_for(path: Path, text: str) -> None:
    while text not in path.read_text():
        subprocess.run(["sleep", "0.05"], check=True)


def test_a_background_writer_is_caught_at_the_next_event(workspace: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    command = f"(while [ ! -e {go} ]; do sleep 0.05; done; echo evil > {SHAPES}) > /dev/null 2>&1 &"
    before = files(workspace)
    assert run_through_hooks(workspace, command) == ("ran", None)  # nothing written yet when PostToolUse checks
    go.touch()
    _wait_for(workspace / SHAPES, "evil")
    answer = _stop(workspace)
    assert answer is not None and answer["decision"] == "block" and f"{SHAPES} (changed)" in answer["reason"]
    assert files(workspace) == before
    entry = json.loads((state_dir(workspace) / "edits.jsonl").read_text().splitlines()[-1])
    assert entry["phase"] == "bypass" and entry["operation"] == "watch:post Stop"


def test_a_background_writer_is_caught_before_the_next_tool_call(workspace: Path, tmp_path: Path) -> None:
    go = tmp_path / "go"
    before = files(workspace)
    run_through_hooks(workspace, f"(while [ ! -e {go} ]; do sleep 0.05; done; printf '[typed_edits]\\nenforce = false\\n' > .gateway/config.toml) > /dev/null 2>&1 &")
    go.touch()
    _wait_for(workspace / ".gateway" / "config.toml", "false")
    denied = bash_call(workspace, "ls", "PreToolUse", "toolu_2")
    assert denied is not None and ".gateway/config.toml (changed)" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    assert files(workspace) == before


def test_removing_the_gateway_state_loses_nothing(workspace: Path) -> None:
    before = files(workspace)
    how, answer = run_through_hooks(workspace, "rm -rf .gateway/state ~/.gateway-nothing; echo lost > pkg/use.py; rm notes.txt")
    assert how == "ran" and answer is not None and "put back" in answer["reason"]
    assert files(workspace) == before and (workspace / "pkg" / "use.py").read_text().endswith(DIRTY)


def test_an_altered_baseline_is_reported_not_trusted(workspace: Path) -> None:
    assert run_through_hooks(workspace, "true") == ("ran", None)
    baseline = state_dir(workspace) / json.loads((state_dir(workspace) / "baseline.json").read_text())["body"]
    data = json.loads(baseline.read_text())
    data["files"].pop(SHAPES)
    baseline.write_text(json.dumps(data))
    answer = _stop(workspace)
    assert answer is not None and "altered" in answer["reason"]


def test_a_command_that_puts_size_and_mtime_back_is_still_put_back(workspace: Path) -> None:
    """With the stat cache trusting every file (the baseline taken more than RACY_NS after they
    were written), a same-size write in place with `touch -d` back to the old mtime is still
    caught and put back: its ctime is new."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    time.sleep(RACY_NS / 1e9 + 0.2)  # not a timing assertion: only so that the next baseline trusts the stats
    assert run_through_hooks(workspace, "true") == ("ran", None)
    before, old = files(workspace), (workspace / SHAPES).stat()
    text = (workspace / SHAPES).read_text()
    same_size = text.replace("def ", "fed ", 1)
    assert len(same_size) == len(text) and same_size != text
    seconds, nanoseconds = divmod(old.st_mtime_ns, 10**9)
    command = f"printf '%s' {shlex.quote(same_size)} > {SHAPES} && touch -m -d @{seconds}.{nanoseconds:09d} {SHAPES}"
    assert bash_call(workspace, command, "PreToolUse") is None
    subprocess.run(["bash", "-c", command], cwd=workspace, check=True)
    now = (workspace / SHAPES).stat()
    assert (now.st_size, now.st_mtime_ns, now.st_ino) == (old.st_size, old.st_mtime_ns, old.st_ino)
    answer = bash_call(workspace, command, "PostToolUse")
    assert answer is not None and f"{SHAPES} (changed)" in answer["reason"]
    assert files(workspace) == before


@pytest.mark.parametrize(("flag", "target", "text"), [
    ("--skip-worktree", SHAPES, "evil\n"),
    ("--assume-unchanged", SHAPES, "evil\n"),
    ("--assume-unchanged", ".gateway/config.toml", "[typed_edits]\nenforce = false\n"),
])
def test_git_index_flags_hide_nothing(workspace: Path, flag: str, target: str, text: str) -> None:
    before = files(workspace)
    how, answer = run_through_hooks(workspace, f"git update-index {flag} {target} && printf '{text}' > {target}")
    assert how == "ran" and answer is not None and f"{target} (changed)" in answer["reason"]
    assert files(workspace) == before


def test_removing_the_gateway_directory_does_not_switch_enforcement_off(workspace: Path) -> None:
    before = files(workspace)
    how, answer = run_through_hooks(workspace, "rm -rf .gateway && echo evil > pkg/shapes.py")
    assert how == "ran" and answer is not None and "put back" in answer["reason"]
    assert files(workspace) == before


def test_a_grant_covers_one_write_of_the_declared_bytes(workspace: Path) -> None:
    """A command running while a declared Edit lands cannot write other bytes under its grant."""
    assert bash_call(workspace, "sleep 1; echo evil > pkg/shapes.py", "PreToolUse", "toolu_long") is None
    declare(workspace, SHAPES)
    edit = {"file_path": str(workspace / SHAPES), "old_string": "width * height", "new_string": "height * width"}
    assert _event(workspace, "PreToolUse", "Edit", edit, "toolu_edit") is None  # the grant is consumed
    shapes = workspace / SHAPES
    original = shapes.read_text()
    shapes.write_text(original.replace("width * height", "height * width"))  # what the host writes
    edited = shapes.read_text()
    (workspace / SHAPES).write_text("evil\n")  # the long command writes meanwhile
    _event(workspace, "PostToolUse", "Edit", edit, "toolu_edit")
    bash_call(workspace, "sleep 1; echo evil > pkg/shapes.py", "PostToolUse", "toolu_long")
    assert shapes.read_text() in (original, edited) and "evil" not in shapes.read_text()


def test_the_declared_edit_alone_is_kept(workspace: Path) -> None:
    declare(workspace, SHAPES)
    edit = {"file_path": str(workspace / SHAPES), "old_string": "width * height", "new_string": "height * width"}
    assert _event(workspace, "PreToolUse", "Edit", edit, "toolu_edit") is None
    shapes = workspace / SHAPES
    shapes.write_text(shapes.read_text().replace("width * height", "height * width"))
    assert _event(workspace, "PostToolUse", "Edit", edit, "toolu_edit") is None
    assert "height * width" in shapes.read_text()


def _verify(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway", "audit", "verify", "--workspace", str(root)],
                          capture_output=True, text=True, timeout=60)


def test_the_audit_log_cannot_be_emptied_from_a_command(workspace: Path) -> None:
    declare(workspace, SHAPES)
    log = state_dir(workspace) / "edits.jsonl"
    kept = log.read_text()
    assert run_through_hooks(workspace, ": > .gateway/state/edits.jsonl; rm -f .gateway/state/*")[0] == "ran"
    assert log.read_text().startswith(kept)
    done = _verify(workspace)
    assert done.returncode == 0 and "chain whole" in done.stdout


@pytest.mark.parametrize("cut", ["empty", "tail", "middle"])
def test_audit_verify_says_where_the_log_was_cut(workspace: Path, cut: str) -> None:
    for _ in range(3):
        declare(workspace, SHAPES)
    log = state_dir(workspace) / "edits.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    kept = {"empty": [], "tail": lines[:-1], "middle": lines[:1] + lines[2:]}[cut]
    log.write_text("".join(kept))
    done = _verify(workspace)
    assert done.returncode == 5 and done.stdout == "" and len(done.stderr.splitlines()) == 1
    assert {"empty": "cut after entry 0", "tail": "cut after entry 2", "middle": "cut at line 2 (entry 2)"}[cut] in done.stderr


HARMLESS = [
    "git log --oneline -5", "git status", "git status --short", "git diff", "git diff --stat", "git show --stat HEAD",
    "git branch -a", "git rev-parse HEAD", "git ls-files", "git blame pkg/shapes.py", "grep -rn width pkg", "grep -c def pkg/shapes.py",
    "ls", "ls -la pkg", "cat pkg/shapes.py", "head -3 pkg/shapes.py", "wc -l pkg/*.py", "find . -name '*.py' -not -path './.git/*'",
    "python3 -m pytest --co -q", "python3 -c 'print(1 + 1)'", "python3 -c \"import subprocess; subprocess.run(['git', 'status'])\"",
    "node -e \"console.log('rename me')\"", "node -e \"console.log(require('fs').readFileSync('pkg/shapes.py', 'utf8').length)\"",
    "go vet ./... || true", "go version", "cargo --version", "echo hello", "pwd", "env | sort | head -3", "which python3",
    "git diff > /tmp/gateway-enf-change.patch", "ls > /dev/null 2>&1", "sort pkg/shapes.py | uniq | wc -l", "date -u +%Y",
    "python3 -c 'import json; print(json.dumps({\"rm\": \"-rf\"}))'", "jq -n '{a: 1}'", "make --version | head -1",
]


def test_harmless_everyday_commands_are_never_denied(workspace: Path) -> None:
    (workspace / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    bash_call(workspace, "true", "PreToolUse", "toolu_setup")  # the .gitignore predates the session
    assert len(HARMLESS) >= 30
    before = files(workspace)
    results = {command: run_through_hooks(workspace, command) for command in HARMLESS}
    assert {c: r for c, r in results.items() if r != ("ran", None)} == {}
    assert files(workspace) == before
