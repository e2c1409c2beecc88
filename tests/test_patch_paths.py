"""Every file a patch touches is judged by its net effect over the whole patch (its bytes before
against its bytes after, whatever the Add, Delete, Update and Move sections were), through the
hook as Codex calls it; what Codex's own applier (`codex --codex-run-as-apply-patch`) writes is
the oracle for what the host would have written. And a hook call from one workspace writing a
file of another is judged by the other's rules."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gateway.engine import Engine
from gateway.surfaces.hooks.run import outcome

CODEX = Path(__file__).resolve().parent.parent / ".tools" / "hosts" / "node_modules" / ".bin" / "codex"
APP = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"
NOTES = "TITLE = 'notes'\n"


def codex_apply(root: Path, patch: str) -> int:
    return subprocess.run([str(CODEX), "--codex-run-as-apply-patch", patch], cwd=root, capture_output=True, text=True, timeout=60).returncode


def hook(cwd: Path, patch: str, host: str = "codex") -> dict[str, Any] | None:
    payload = {"hook_event_name": "PreToolUse", "tool_name": "apply_patch", "cwd": str(cwd), "tool_input": {"command": patch}}
    stdout, code = outcome(host, json.dumps(payload).encode(), {"cwd": str(cwd), "project_dir": None})
    assert code == 0
    return json.loads(stdout) if stdout else None


def edit(cwd: Path, path: Path, old: str, new: str, engine: Engine | None = None) -> dict[str, Any] | None:
    """The hook's reply to an Edit, judged on `engine` (as the daemon's is; None: in process)."""
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Edit", "cwd": str(cwd),
               "tool_input": {"file_path": str(path), "old_string": old, "new_string": new}}
    stdout, code = outcome("claude-code", json.dumps(payload).encode(), {"cwd": str(cwd), "project_dir": None}, None, engine)
    assert code == 0
    return json.loads(stdout) if stdout else None


def denial(reply: dict[str, Any] | None) -> str:
    assert reply is not None, "the hook let the patch through unjudged"
    output = reply["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny", output
    return str(output["permissionDecisionReason"])


def suggested_files(reason: str) -> list[Path]:
    """The files the refusal's suggested commands name."""
    return [Path(p) for p in re.findall(r"gateway [a-z-]+ \S+ (/\S+?)[;.]?(?:\s|$)", reason)]


def patch(*sections: str) -> str:
    return "*** Begin Patch\n" + "".join(sections) + "*** End Patch\n"


pytestmark = pytest.mark.workspace(copy=None, files={"app.py": APP, "notes.py": NOTES})


def oracle(workspace: Path, text: str, tmp_path: Path) -> Path:
    """A copy of the workspace as Codex leaves it after applying `text`."""
    copy = tmp_path / "codex-copy"
    shutil.copytree(workspace, copy)
    codex_apply(copy, text)
    return copy


@pytest.mark.usefixtures("processes")
def test_a_move_over_a_file_is_judged_as_that_files_rewrite(workspace: Path, tmp_path: Path) -> None:
    text = patch("*** Update File: notes.py\n*** Move to: app.py\n@@\n-TITLE = 'notes'\n+TITLE = 'app'\n")
    assert (oracle(workspace, text, tmp_path) / "app.py").read_text() == "TITLE = 'app'\n"  # Codex overwrites app.py
    reason = denial(hook(workspace, text))
    assert "removes function `area`" in reason and "removes function `perimeter`" in reason
    assert "moving another file over it" in reason
    assert suggested_files(reason) and all(p.exists() for p in suggested_files(reason))


@pytest.mark.usefixtures("servers")
def test_delete_then_add_of_one_file_is_judged_as_its_update(workspace: Path, tmp_path: Path) -> None:
    text = patch("*** Delete File: app.py\n", "*** Add File: app.py\n+def area(w, h):\n+    return w * h\n")
    reply = hook(workspace, text)
    assert reply is not None, "the add was judged as a new file"
    output = reply["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow", output  # routed: remove_symbol perimeter, as the host's own patch
    rewritten = output["updatedInput"]["command"]
    assert "*** Delete File" not in rewritten and "*** Add File" not in rewritten
    assert (oracle(workspace, rewritten, tmp_path) / "app.py").read_text() == "def area(w, h):\n    return w * h\n"


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("destination", ["app.txt", "../elsewhere/app.py", "app.py"])
def test_moving_a_file_out_of_the_sources_removes_its_definitions(destination: str, workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    text = patch(f"*** Update File: app.py\n*** Move to: {destination}\n@@\n-    return w * h\n+    return h * w\n")
    if destination == "app.py":  # a move onto itself: Codex writes it, then removes it
        assert not (oracle(workspace, text, tmp_path) / "app.py").exists()
    reason = denial(hook(workspace, text))
    assert "removes function `area`" in reason and "removes function `perimeter`" in reason
    assert all(p.exists() for p in suggested_files(reason))
    assert (workspace / "app.py").read_text() == APP


def test_a_patch_through_the_shell_is_judged_by_its_net_effects_too(workspace: Path) -> None:
    text = patch("*** Update File: app.py\n*** Move to: app.txt\n@@\n-    return w * h\n+    return h * w\n")
    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": str(workspace), "tool_input": {"command": f"apply_patch <<'EOF'\n{text}EOF\n"}}
    stdout, code = outcome("codex", json.dumps(payload).encode(), {"cwd": str(workspace), "project_dir": None})
    assert code == 0 and "the patch moves app.py to app.txt" in denial(json.loads(stdout) if stdout else None)


@pytest.mark.parametrize("on_structural", ["route", "deny"])
def test_a_refusal_inside_a_move_suggests_commands_on_files_that_exist(on_structural: str, workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text(f'[gate]\non_structural = "{on_structural}"\n')
    text = patch("*** Update File: app.py\n*** Move to: shapes.py\n@@\n-def perimeter(w, h):\n-    return 2 * (w + h)\n")
    reason = denial(hook(workspace, text))
    named = suggested_files(reason)
    assert named and all(p.exists() for p in named), reason
    assert not any(p.name == "shapes.py" for p in named)


@pytest.mark.usefixtures("processes")
def test_a_patch_that_fails_partway_is_judged_by_what_the_host_writes_before(workspace: Path, tmp_path: Path) -> None:
    text = patch("*** Update File: app.py\n@@\n-def perimeter(w, h):\n-    return 2 * (w + h)\n", "*** Update File: missing.py\n@@\n-a\n+b\n")
    copy = oracle(workspace, text, tmp_path)
    assert "perimeter" not in (copy / "app.py").read_text()  # Codex wrote the first section before it failed
    reason = denial(hook(workspace, text))
    assert "removes function `perimeter`" in reason and "does not apply as a whole" in reason


def test_a_patch_of_allowed_adds_deletes_and_moves_passes(workspace: Path) -> None:
    (workspace / "readme.txt").write_text("hello\n")
    (workspace / "consts.py").write_text("X = 1\n")
    text = patch("*** Add File: pkg/new_mod.py\n+def h():\n+    return 3\n", "*** Delete File: consts.py\n",
                 "*** Update File: readme.txt\n*** Move to: docs/readme.txt\n@@\n-hello\n+hello, world\n",
                 "*** Update File: app.py\n@@\n-    return w * h\n+    return h * w\n")
    assert hook(workspace, text) is None


# A hook call from workspace A writing a file of workspace B


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "a", tmp_path / "b"
    for root in (a, b):
        (root / ".gateway").mkdir(parents=True)
        (root / "app.py").write_text(APP)
    return a, b


REMOVAL = ("\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n", "")
BODY = ("    return w * h\n", "    return h * w\n")


@pytest.mark.usefixtures("servers")
def test_a_write_into_another_workspace_follows_its_gate_settings(two: tuple[Path, Path]) -> None:
    a, b = two
    (b / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
    assert edit(a, a / "app.py", *REMOVAL)["hookSpecificOutput"]["updatedInput"]  # type: ignore[index]  # A routes
    assert "symbol operations instead" in denial(edit(a, b / "app.py", *REMOVAL))  # B refuses
    text = patch(f"*** Update File: {b / 'app.py'}\n@@\n-def perimeter(w, h):\n-    return 2 * (w + h)\n")
    assert "symbol operations instead" in denial(hook(a, text))


def test_a_write_into_another_workspace_needs_its_grant(two: tuple[Path, Path]) -> None:
    a, b = two
    (b / ".gateway" / "config.toml").write_text("[typed_edits]\nenforce = true\n")
    assert edit(a, a / "app.py", *BODY) is None
    assert "declare" in denial(edit(a, b / "app.py", *BODY))
    assert "declare" in denial(hook(a, patch(f"*** Update File: {b / 'app.py'}\n@@\n-    return w * h\n+    return h * w\n")))


def test_a_write_outside_every_workspace_is_judged_by_the_calls_settings(two: tuple[Path, Path], tmp_path: Path) -> None:
    a, _ = two
    (a / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
    outside = tmp_path / "loose"
    outside.mkdir()
    (outside / "app.py").write_text(APP)
    assert "symbol operations instead" in denial(edit(a, outside / "app.py", *REMOVAL))
    assert edit(a, outside / "app.py", *BODY) is None


@pytest.mark.usefixtures("servers")
def test_in_the_calls_daemon_a_write_into_another_workspace_is_planned_there(two: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Through workspace A's engine (as A's daemon runs the hook), B's file is judged by B's
    settings and its routed removal planned on an engine of B, not on A's symbols."""
    from gateway.api import Gateway
    from gateway.engine import Engine

    planned_on: list[Path] = []
    route_or_refuse = Engine.route_or_refuse

    def recorded(self: Engine, *args: Any, **kwargs: Any) -> Any:
        planned_on.append(self.workspace.root)
        return route_or_refuse(self, *args, **kwargs)

    monkeypatch.setattr(Engine, "route_or_refuse", recorded)
    a, b = two
    engine = Gateway(a, use_servers=False)
    try:
        reply = edit(a, b / "app.py", *REMOVAL, engine=engine)
        assert reply is not None and reply["hookSpecificOutput"]["updatedInput"]["file_path"] == str(b / "app.py")
        assert planned_on == [b.resolve()]
        (b / ".gateway" / "config.toml").write_text('[gate]\non_structural = "deny"\n')
        assert "symbol operations instead" in denial(edit(a, b / "app.py", *REMOVAL, engine=engine))
    finally:
        engine.close()
