"""`[gate] shell`: after every shell command the source files it changed are judged by the gate,
and the agent is told each definition it added, removed or changed, unverified ("report", the
default), or those changes are put back ("put_back"), or nothing ("off"). Each command really
runs in bash between the host's PreToolUse and PostToolUse hooks, as Claude Code runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.surfaces.hooks.run import run as hook_run
from tests.hosts.sample import SOURCE


TS = "export function area(w: number, h: number): number {\n  return w * h;\n}\n\nexport const unit = 1;\n"
SED_HEADER = "sed -i 's/def total(self, tax):/def total(self, tax, rate=1):/' prices.py"
TS_HEADER = ("python3 -c \"p='shapes.ts'; s=open(p).read(); "
             "open(p, 'w').write(s.replace('h: number): number', 'h: number, d: number): number'))\"")
PRINTF_MODULE = "printf 'def helper(x):\\n    return x\\n' > pkg_new.py"
HEREDOC = "cat > models.py <<'EOF'\nclass Order:\n    def place(self):\n        return 1\nEOF"
BODY_ONLY = "sed -i 's/return len(self.prices)/return len(self.prices) + 0/' prices.py"
GIT = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]


def _git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


pytestmark = [pytest.mark.usefixtures("processes"), pytest.mark.workspace(copy=None, files={"prices.py": SOURCE, "shapes.ts": TS, "README.md": "notes\n"}, git="commit")]


def configure(root: Path, mode: str) -> None:
    (root / ".gateway").mkdir(exist_ok=True)
    (root / ".gateway" / "config.toml").write_text(f'[gate]\nshell = "{mode}"\n')


def hook(host: str, payload: dict[str, object], project_dir: str | None = None) -> dict[str, object] | None:
    out, code = hook_run(host, json.dumps(payload).encode(), {"cwd": None, "project_dir": project_dir})
    assert code == 0
    return json.loads(out) if out else None


def through_hooks(root: Path, command: str, host: str = "claude-code", use_id: str = "toolu_1", project_dir: str | None = None) -> str:
    """Run `command` between the host's pre and post hooks; what the post hook told the agent ("" for nothing)."""
    if host == "codex":
        payload: dict[str, object] = {"tool_name": "Bash", "tool_use_id": use_id, "cwd": str(root), "tool_input": {"command": command}}
        events = ("PreToolUse", "PostToolUse")
    elif host == "gemini":
        payload = {"tool_name": "run_shell_command", "session_id": "s", "cwd": str(root), "tool_input": {"command": command}}
        events = ("BeforeTool", "AfterTool")
    else:
        payload = {"tool_name": "Bash", "tool_use_id": use_id, "session_id": "s", "cwd": str(root), "tool_input": {"command": command}}
        events = ("PreToolUse", "PostToolUse")
    assert hook(host, {**payload, "hook_event_name": events[0]}, project_dir) is None  # a shell command is never denied for what it may write
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, timeout=60, env=env)
    answer = hook(host, {**payload, "hook_event_name": events[1]}, project_dir)
    if answer is None:
        return ""
    return str(answer["hookSpecificOutput"]["additionalContext"])  # type: ignore[index]


REPORTED = [
    (SED_HEADER, "prices.py line 9: changed the header of method `PriceList/total`"),
    (TS_HEADER, "shapes.ts line 1: changed the header of function `area`"),
    (PRINTF_MODULE, "pkg_new.py line 1: added function `helper`"),
    (HEREDOC, "models.py line 1: added class `Order`\n- models.py line 2: added method `Order/place`"),
    ("sed -i '/def count/,$d' prices.py", "prices.py (it was at line 12): removed method `PriceList/count`"),
    ("sed -i 's/def count(self):/def size(self):/' prices.py", "prices.py line 12: renamed method `PriceList/count` to `PriceList/size`"),
    ("sed -i 's/def total(self, tax):/def total(self, tax:/' prices.py", "prices.py line 9: introduced a syntax error"),
]


@pytest.mark.parametrize(("command", "line"), REPORTED, ids=["sed-header", "python-ts-header", "printf-module", "heredoc", "removed",
                                                            "renamed", "syntax-error"])
def test_report_names_each_definition_the_command_changed(workspace: Path, command: str, line: str) -> None:
    before = {p.name: p.read_bytes() for p in workspace.iterdir() if p.is_file()}
    told = through_hooks(workspace, command)
    assert line in told, told
    assert "went unverified" in told and "no language server checked them" in told
    assert "Change definitions with the Edit and Write tools" in told
    after = {p.name: p.read_bytes() for p in workspace.iterdir() if p.is_file()}
    assert after != before  # reported, not undone


def test_the_note_names_the_hosts_own_edit_tools(workspace: Path) -> None:
    assert "the apply_patch tool" in through_hooks(workspace, SED_HEADER, "codex")
    (workspace / "prices.py").write_text(SOURCE)
    assert "the replace and write_file tools" in through_hooks(workspace, SED_HEADER, "gemini")


def test_a_body_only_or_non_source_change_says_nothing(workspace: Path) -> None:
    assert through_hooks(workspace, BODY_ONLY) == ""
    assert through_hooks(workspace, "echo more >> README.md; ls > /dev/null") == ""
    told = through_hooks(workspace, f"{BODY_ONLY.replace('+ 0', '+ 1')} && {SED_HEADER}")
    assert "changed the header of method `PriceList/total`" in told and "other source file" not in told


def test_other_changed_sources_get_one_summary_line(workspace: Path) -> None:
    told = through_hooks(workspace, f"{SED_HEADER} && sed -i 's/return w \\* h/return h * w/' shapes.ts")
    assert "It also changed 1 other source file(s) without changing definitions: shapes.ts." in told


def test_git_checkout_and_formatters_are_reported_as_what_they_are(workspace: Path) -> None:
    (workspace / "prices.py").write_text(SOURCE.replace("def total(self, tax):", "def total(self, tax, rate=1):"))
    told = through_hooks(workspace, "git checkout -- prices.py")
    assert "(a git operation) changed definitions" in told and "changed the header of method `PriceList/total`" in told
    assert "Change definitions with" not in told  # nothing to do differently
    assert (workspace / "prices.py").read_text() == SOURCE


LONG_HEADER = "    def total(self, tax, discount_for_regular_customers, rounding_mode_of_the_shop_for_this_year, currency):\n"
FORMATTED = ("    def total(\n        self,\n        tax,\n        discount_for_regular_customers,\n"
             "        rounding_mode_of_the_shop_for_this_year,\n        currency,\n    ):\n")


@pytest.mark.parametrize("mode", ["report", "put_back"])
def test_a_formatter_is_never_fought(workspace: Path, mode: str) -> None:
    """A formatter's layout is no change of definitions: nothing to say, and it stays."""
    configure(workspace, mode)
    (workspace / "prices.py").write_text(SOURCE.replace("    def total(self, tax):\n", LONG_HEADER))
    _git(workspace, "commit", "-qam", "long header")
    assert through_hooks(workspace, "ruff format -q prices.py") == ""
    assert FORMATTED in (workspace / "prices.py").read_text()


@pytest.mark.parametrize("mode", ["report", "put_back"])
def test_a_fixer_that_rewrites_a_header_is_reported_and_kept(workspace: Path, mode: str) -> None:
    configure(workspace, mode)
    typed = "from typing import Optional\n" + SOURCE.replace("def total(self, tax):", "def total(self, tax: Optional[int]):")
    (workspace / "prices.py").write_text(typed)
    _git(workspace, "commit", "-qam", "typed")
    told = through_hooks(workspace, "ruff check -q --isolated --fix --select UP007,UP045 --target-version py311 prices.py")
    assert "def total(self, tax: int | None):" in (workspace / "prices.py").read_text()  # the fixer's result stays
    assert "(a formatter or code generator) changed definitions" in told
    assert "prices.py line 10: changed the header of method `PriceList/total`" in told
    assert ("Kept as written: a formatter or code generator is reported, never put back." in told) == (mode == "put_back")


def test_put_back_restores_only_the_structural_change(workspace: Path) -> None:
    configure(workspace, "put_back")
    told = through_hooks(workspace, f"{BODY_ONLY} && {SED_HEADER}")
    assert (workspace / "prices.py").read_text() == SOURCE.replace("len(self.prices)", "len(self.prices) + 0")
    assert "put those changes back" in told and "changed the header of method `PriceList/total`" in told
    assert "Put back: prices.py (the changed definitions' earlier text)." in told
    assert "Change definitions with the Edit and Write tools" in told


def test_put_back_of_a_typescript_header_keeps_bom_crlf_and_mode(workspace: Path) -> None:
    configure(workspace, "put_back")
    original = ("\ufeff" + TS.replace("\n", "\r\n")).encode()
    (workspace / "shapes.ts").write_bytes(original)
    (workspace / "shapes.ts").chmod(0o751)
    keeping_crlf = TS_HEADER.replace("open(p)", "open(p, newline='')").replace("open(p, 'w')", "open(p, 'w', newline='')")
    told = through_hooks(workspace, f"{keeping_crlf} && sed -i 's/unit = 1/unit = 2/' shapes.ts")
    assert "shapes.ts line 1: changed the header of function `area`" in told
    assert (workspace / "shapes.ts").read_bytes() == original.replace(b"unit = 1", b"unit = 2")
    assert (workspace / "shapes.ts").stat().st_mode & 0o777 == 0o751


def test_put_back_removes_a_new_module_and_restores_a_deleted_one(workspace: Path) -> None:
    configure(workspace, "put_back")
    told = through_hooks(workspace, f"{PRINTF_MODULE}; printf 'x = 1\\n' > script.py")
    assert not (workspace / "pkg_new.py").exists() and (workspace / "script.py").read_text() == "x = 1\n"
    assert "pkg_new.py (removed: the command created it)" in told
    told = through_hooks(workspace, HEREDOC.replace("models.py", "prices.py"), use_id="toolu_2")
    assert (workspace / "prices.py").read_text() == SOURCE and "its whole earlier text" in told
    told = through_hooks(workspace, "rm prices.py", use_id="toolu_3")
    assert (workspace / "prices.py").read_text() == SOURCE and "prices.py (restored: the command deleted it)" in told


def test_put_back_leaves_git_operations_alone(workspace: Path) -> None:
    configure(workspace, "put_back")
    changed = SOURCE.replace("def total(self, tax):", "def total(self, tax, rate=1):")
    (workspace / "prices.py").write_text(changed)
    told = through_hooks(workspace, "git stash -q")
    assert (workspace / "prices.py").read_text() == SOURCE and "Kept as written: a git operation" in told
    told = through_hooks(workspace, "git stash pop -q", use_id="toolu_2")
    assert (workspace / "prices.py").read_text() == changed and "Kept as written: a git operation" in told


def test_off_says_nothing_and_changes_nothing(workspace: Path) -> None:
    configure(workspace, "off")
    assert through_hooks(workspace, SED_HEADER) == ""
    assert "rate=1" in (workspace / "prices.py").read_text()
    edit = {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(workspace),
            "tool_input": {"file_path": "prices.py", "old_string": "len(self.prices)", "new_string": "len(self.prices) + 0"}}
    assert hook("claude-code", edit) is None  # the key is the gate's own: every other call reads it too


def test_a_bad_mode_is_one_clear_error(workspace: Path) -> None:
    from gateway.surfaces.hooks.run import outcome

    configure(workspace, "nope")
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t", "cwd": str(workspace), "tool_input": {"command": "ls"}}
    stdout, code = outcome("claude-code", json.dumps(payload).encode(), {"cwd": None, "project_dir": None})
    answer = json.loads(stdout)["hookSpecificOutput"]  # the host's deny, with the reason the model reads
    assert code == 0 and answer["permissionDecision"] == "deny", stdout
    assert '[gate] shell must be "report", "put_back" or "off"' in answer["permissionDecisionReason"]


def test_a_write_in_the_same_clock_tick_is_still_seen(workspace: Path) -> None:
    """The record trusts a file's stat only when the file last changed well before the record
    was taken; a change of the same size within that time is read, not missed."""
    from gateway.shell_changes import _judged_by_name
    from gateway.gate.checker import Gate
    from gateway.shell_record import scan

    judged = _judged_by_name(Gate())
    first = scan(workspace, judged, 1 << 20, None)
    path = workspace / "prices.py"
    info = path.stat()
    path.write_text(SOURCE.replace("tax", "fee"))  # the same size
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert scan(workspace, judged, 1 << 20, first).files["prices.py"].state != first.files["prices.py"].state


def test_the_record_is_bounded_to_source_files(workspace: Path) -> None:
    from gateway.gate.checker import Gate
    from gateway.shell_changes import _judged_by_name
    from gateway.shell_record import UNREAD, scan

    (workspace / "data.bin").write_bytes(os.urandom(4096))
    (workspace / "big.py").write_text("x = 1\n" * 100)
    record = scan(workspace, _judged_by_name(Gate()), 200, None)
    assert set(record.files) == {"prices.py", "shapes.ts", "big.py"}
    assert record.files["big.py"].state.sha256 == UNREAD  # past max_file_bytes: its stat alone
    shutil.rmtree(workspace / ".git")
    assert set(scan(workspace, _judged_by_name(Gate()), 1 << 20, None).files) == {"prices.py", "shapes.ts", "big.py"}


def test_outside_git_the_project_is_walked_within_a_bound(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway import shell_record

    shutil.rmtree(workspace / ".git")
    told = through_hooks(workspace, SED_HEADER, project_dir=str(workspace))
    assert "changed the header of method `PriceList/total`" in told
    monkeypatch.setattr(shell_record, "MAX_WALKED", 2)
    told = through_hooks(workspace, SED_HEADER.replace("rate=1", "rate=2"), use_id="toolu_2", project_dir=str(workspace))
    assert told == f"The gateway could not check what the shell command changed: {workspace} is not a git repository and holds more than 2 files."


def test_the_setting_before_the_command_decides(workspace: Path) -> None:
    configure(workspace, "put_back")
    told = through_hooks(workspace, f"""printf '[gate]\\nshell = "off"\\n' > .gateway/config.toml && {SED_HEADER}""")
    assert "put those changes back" in told and (workspace / "prices.py").read_text() == SOURCE


def test_a_change_that_cannot_be_judged_is_said(workspace: Path) -> None:
    told = through_hooks(workspace, "printf 'x\\000y' >> prices.py")
    assert told.startswith("The shell command changed source files the gateway did not judge: prices.py (") and "binary" in told


def test_a_patch_run_through_the_shell_is_judged_as_a_patch_not_reported(workspace: Path) -> None:
    patch = ("*** Begin Patch\n*** Update File: prices.py\n@@ class PriceList:\n"
             "-        return len(self.prices)\n+        return len(self.prices) + 0\n*** End Patch\n")
    command = f"apply_patch <<'EOF'\n{patch}EOF\n"
    payload = {"tool_name": "Bash", "tool_use_id": "p1", "cwd": str(workspace), "tool_input": {"command": command}}
    assert hook("codex", {**payload, "hook_event_name": "PreToolUse"}) is None
    (workspace / "prices.py").write_text(SOURCE.replace("len(self.prices)", "len(self.prices) + 0"))  # as Codex applies it
    assert hook("codex", {**payload, "hook_event_name": "PostToolUse"}) is None


def test_past_the_bound_files_are_counted_not_judged(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway import shell_changes

    monkeypatch.setattr(shell_changes, "MAX_JUDGED", 1)
    told = through_hooks(workspace, f"{TS_HEADER} && {SED_HEADER}")
    assert "prices.py line 9: changed the header of method `PriceList/total`" in told  # sorted: prices.py first
    assert "Not judged: 1 more source files (past the 1 files or 10 s judged per command)." in told
    assert "shapes.ts line" not in told


def test_put_back_never_writes_through_a_directory_that_now_leads_out(workspace: Path, tmp_path: Path) -> None:
    configure(workspace, "put_back")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "mod.py").write_text(SOURCE)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mod.py").write_text(SOURCE.replace("def total(self, tax):", "def total(self, tax, rate=1):"))
    told = through_hooks(workspace, f"rm -r pkg && ln -s {outside} pkg")
    assert "pkg/mod.py (its directory now leads out of the workspace" in told
    assert "rate=1" in (outside / "mod.py").read_text()
