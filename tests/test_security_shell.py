"""Enforcement verified after every shell command: whatever a command wrote in the workspace
without a live grant is put back by the PostToolUse hook, whether or not PreToolUse saw it coming."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gateway.typed.state import state_dir
from gateway.surfaces.hooks.hosts.claude_code import run as hook
from tests.conftest import FIXTURES


DIRTY = "# work in progress\n"
# A git repository of the Python fixture, enforced, with uncommitted work that a careless command
# could lose and an untracked file.
ENFORCED_GIT_WORKSPACE = pytest.mark.workspace(enforce=True, git="commit", uncommitted={
    "pkg/use.py": (FIXTURES / "python" / "pkg" / "use.py").read_text() + DIRTY, "notes.txt": "untracked notes\n"})
pytestmark = [pytest.mark.usefixtures("processes"), ENFORCED_GIT_WORKSPACE]


def files(root: Path) -> dict[str, tuple[bytes, int]]:
    found = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith((".git/", ".gateway/state")) or path.is_dir() and not path.is_symlink():
            continue
        found[relative] = (os.readlink(path).encode() if path.is_symlink() else path.read_bytes(), path.lstat().st_mode)
    return found


def bash_call(root: Path, command: str, event: str, use_id: str = "toolu_1") -> dict[str, Any] | None:
    payload = {"hook_event_name": event, "tool_name": "Bash", "tool_use_id": use_id, "session_id": "s", "cwd": str(root),
               "tool_input": {"command": command}}
    out, code = hook(json.dumps(payload).encode())
    assert code == 0
    return json.loads(out) if out else None


def run_through_hooks(root: Path, command: str, env: dict[str, str] | None = None) -> tuple[str, dict[str, Any] | None]:
    """('denied', reason) if PreToolUse refused it; else ('ran', PostToolUse's answer) after really running it."""
    before = bash_call(root, command, "PreToolUse")
    if before is not None:
        return "denied", before
    subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, env={**os.environ, **(env or {})}, timeout=60)
    return "ran", bash_call(root, command, "PostToolUse")


SCRIPT = "open('pkg/shapes.py', 'w').write('gone\\n'); open('pkg/new.py', 'w').write('x = 1\\n')"
WRITERS = [
    ("{ echo x; } > pkg/shapes.py", {}),
    ("for i in 1 2; do echo $i; done > pkg/shapes.py", {}),
    ('echo x > "$TARGET"', {"TARGET": "pkg/shapes.py"}),
    ("echo x >> $T", {"T": "pkg/use.py"}),
    ("cat $S | bash", {"S": "/tmp/gateway-shell-writer.sh"}),
    ("bash -ec 'echo x > pkg/shapes.py'", {}),
    ("python3 $P", {"P": "/tmp/gateway-shell-writer.py"}),
    ("perl -e 'open(F, \">pkg/shapes.py\"); print F \"x\"'", {}),
    ("git checkout -- pkg/use.py", {}),
    ("git stash", {}),
    ("git reset --hard", {}),
    ("git clean -fdq", {}),
    ("rm pkg/shapes.py notes.txt", {}),
    ("mv pkg/shapes.py /tmp/gateway-moved.py", {}),
    ("$M pkg/shapes.py /tmp/gateway-moved.py", {"M": "mv"}),
    ("touch pkg/made.py && mkdir -p deep/er && echo x > deep/er/f.txt", {}),
    ("ln -s /etc/hostname pkg/link", {}),
    ("chmod +x pkg/shapes.py", {}),
    ("C=.gateway/config.toml; echo 'enforce = false' > $C", {}),
    ("cd pkg && echo x > ../notes.txt", {}),
    ("echo x > /dev/../$W/pkg/shapes.py", {}),
    ("tar -xf /tmp/gateway-shell.tar", {}),
]


@pytest.mark.parametrize(("command", "env"), WRITERS)
def test_no_shell_write_stays_without_a_grant(workspace: Path, command: str, env: dict[str, str]) -> None:
    Path("/tmp/gateway-shell-writer.sh").write_text("echo x > pkg/shapes.py\nrm notes.txt\n")
    Path("/tmp/gateway-shell-writer.py").write_text(SCRIPT)
    subprocess.run(["tar", "-cf", "/tmp/gateway-shell.tar", "-C", str(workspace), "pkg/shapes.py"], check=True)
    with open(workspace / "pkg" / "shapes.py", "a") as handle:
        handle.write("# since the tar was made\n")  # so that extracting it changes the file's bytes
    before = files(workspace)
    how, answer = run_through_hooks(workspace, command.replace("$W", str(workspace)), env)
    assert files(workspace) == {k: v for k, v in before.items()} or how == "denied", command
    if how == "ran":
        assert answer is not None and answer["decision"] == "block" and "put back" in answer["reason"], answer
        entry = json.loads((state_dir(workspace) / "edits.jsonl").read_text().splitlines()[-1])
        assert entry["phase"] == "bypass" and entry["command"] == command.replace("$W", str(workspace))


HARMLESS = ["cat pkg/shapes.py", "python3 -c 'print(1)'", "git status --short", "git diff > /tmp/gateway-change.patch",
            "ls -la > /dev/null", "grep -rn width pkg", "git add -A && git reset -q"]


@pytest.mark.parametrize("command", HARMLESS)
def test_harmless_commands_pass_both_sides(workspace: Path, command: str) -> None:
    before = files(workspace)
    assert run_through_hooks(workspace, command) == ("ran", None)
    assert files(workspace) == before


def test_a_granted_shell_write_is_kept_and_consumes_the_grant(workspace: Path) -> None:
    from tests.test_typed_surfaces import declare

    declare(workspace, "pkg/shapes.py")
    Path("/tmp/gateway-shell-writer1.py").write_text("open('pkg/shapes.py', 'a').write('# formatted\\n')")
    assert run_through_hooks(workspace, "python3 /tmp/gateway-shell-writer1.py") == ("ran", None)
    assert (workspace / "pkg" / "shapes.py").read_text().endswith("# formatted\n")
    phases = [(e["phase"], e.get("operation")) for e in map(json.loads, (state_dir(workspace) / "edits.jsonl").read_text().splitlines())]
    assert phases[-1] == ("consumed", "hook:Bash")
    assert run_through_hooks(workspace, "python3 /tmp/gateway-shell-writer1.py")[1]["decision"] == "block"  # single use


def test_a_forged_snapshot_is_not_trusted(workspace: Path) -> None:
    assert bash_call(workspace, "python3 /tmp/x.py", "PreToolUse") is None
    head = state_dir(workspace) / "baseline.json"
    data = json.loads(head.read_text())
    [pending] = data["pending"].values()  # the command's record, in the head the check before it wrote
    pending["taken_at"] -= 3600  # grants counted from an hour earlier
    head.write_text(json.dumps(data))
    answer = bash_call(workspace, "python3 /tmp/x.py", "PostToolUse")
    assert answer is not None and "fails its signature" in answer["reason"] and "re-arm" in answer["reason"]


def test_a_record_of_an_earlier_version_is_still_read(workspace: Path) -> None:
    """A command recorded by an earlier version (a signed file of its own) is checked against it."""
    from gateway.typed.shell import SIGNED_AS, record_name
    from gateway.userstate import sign

    shapes = "pkg/shapes.py"

    assert bash_call(workspace, f"echo evil > {shapes}", "PreToolUse") is None
    head = state_dir(workspace) / "baseline.json"
    data = json.loads(head.read_text())
    pending = data.pop("pending")
    head.write_text(json.dumps(sign(data, "baseline")))
    records = state_dir(workspace) / "shell"
    records.mkdir()
    name = record_name("toolu_1")  # bash_call's tool_use_id
    (records / f"{name}.json").write_text(json.dumps(sign({"key": "toolu_1", "command": "", "baseline": pending[name]}, SIGNED_AS)))
    before = files(workspace)
    subprocess.run(["bash", "-c", f"echo evil > {shapes}"], cwd=workspace, check=True)
    answer = bash_call(workspace, f"echo evil > {shapes}", "PostToolUse")
    assert answer is not None and f"{shapes} (changed)" in answer["reason"] and "tampered" not in answer["reason"]
    assert files(workspace) == before and not list(records.iterdir())


def test_a_gated_edit_made_while_a_command_runs_is_left_alone(workspace: Path) -> None:
    from tests.test_typed_surfaces import declare

    assert bash_call(workspace, "sleep 1", "PreToolUse") is None
    declare(workspace, "pkg/shapes.py")
    edit = {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(workspace),
            "tool_input": {"file_path": "pkg/shapes.py", "old_string": "width * height", "new_string": "height * width"}}
    assert hook(json.dumps(edit).encode()) == ("", 0)  # allowed: the grant is consumed
    shapes = workspace / "pkg" / "shapes.py"
    shapes.write_text(shapes.read_text().replace("width * height", "height * width"))  # the host's Edit
    assert bash_call(workspace, "sleep 1", "PostToolUse") is None
    assert "height * width" in shapes.read_text()
