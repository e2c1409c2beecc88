"""Inside each real agent host, in one session: a TypeScript and a Go file edited through the
host's own edit tool (the header changes routed through typescript-language-server and gopls,
byte for byte, and each caller in another file they break named to the model, `path:line`, in
the host's post-edit channel), and whole-file writes: one that would add a syntax error is
refused, one that removes a function is routed and lands as the host itself writes the content
it was given."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.caller_cases import GO, GO_CALLER, GO_NEW, GO_OLD, TS, TS_CALLER, TS_NEW, TS_OLD
from tests.hosts.harness import HostSession
from tests.test_hosts_gateway import _sent_back, _write, install

GO_BIN = Path("/usr/local/go/bin")  # where the machine's Go is; a user's PATH has it, the host's clean one may not

TS_BROKEN = TS.replace("count(items: string[])", "count(items: string[]")
TS_WITHOUT_COUNT = TS.split("\n\nexport function count")[0] + "\n"


pytestmark = [pytest.mark.usefixtures("hosts"), pytest.mark.workspace(copy=None, git="init", files={
    "app.ts": TS, "tsconfig.json": '{"compilerOptions": {"strict": true}}\n', "go.mod": "module shop\n\ngo 1.21\n", "shop.go": GO,
    "use.ts": TS_CALLER, "checkout.go": GO_CALLER})]


def _install(session: HostSession, workspace: Path, host: str) -> None:
    if GO_BIN.is_dir():
        session.env["PATH"] = f"{session.env['PATH']}:{GO_BIN}"
    install(session, workspace, host)


def _update_patch(name: str, old: str, new: str) -> str:
    body = "".join(f"-{line}\n" for line in old.splitlines()) + "".join(f"+{line}\n" for line in new.splitlines())
    return f"*** Begin Patch\n*** Update File: {name}\n@@\n{body}*** End Patch\n"


def _edit(host: str, path: Path, old: str, new: str) -> list[tuple[str, Any]]:
    if host == "claude-code":
        return [("Read", {"file_path": str(path)}), ("Edit", {"file_path": str(path), "old_string": old, "new_string": new})]
    if host == "copilot":
        return [("edit", {"path": str(path), "old_str": old, "new_str": new})]
    if host == "gemini":
        return [("replace", {"file_path": str(path), "instruction": "change it", "old_string": old, "new_string": new})]
    if host == "codex":
        return [("apply_patch", _update_patch(path.name, old, new))]
    return [("read", {"filePath": str(path)}), ("edit", {"filePath": str(path), "oldString": old, "newString": new})]


def _mode(host: str) -> dict[str, str]:
    return {"permission_mode": "acceptEdits"} if host == "claude-code" else {}


# Codex has no whole-file write over an existing file (its patches update by hunks); Copilot's
# `create` refuses a file that exists.
OVERWRITING_HOSTS = ("claude-code",)


# Two hosts, the two ways to edit (old and new strings; a patch); every host's whole-file write of
# a broken file is refused in its session in tests/test_hosts_gateway.py.
@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_typescript_and_go_header_changes_are_routed_and_a_broken_new_file_is_refused(host: str, workspace: Path, tmp_path: Path) -> None:
    session = HostSession(host, workspace, tmp_path)
    _install(session, workspace, host)
    broken, util = workspace / "extra.ts", workspace / "util.ts"
    util.write_text(TS)
    steps = [*_edit(host, workspace / "app.ts", TS_OLD, TS_NEW), *_edit(host, workspace / "shop.go", GO_OLD, GO_NEW),
             _write(host, broken, TS_BROKEN)]
    if host in OVERWRITING_HOSTS:  # a whole-file write that removes `count`: routed, and written as the host writes it
        steps += [*([("Read", {"file_path": str(util)})] if host == "claude-code" else []), _write(host, util, TS_WITHOUT_COUNT)]
    result = session.run(steps, **_mode(host))
    session.close()
    told = _sent_back(result)
    seen = session.evidence(result, told)
    assert (workspace / "app.ts").read_text() == TS.replace(TS_OLD, TS_NEW), seen
    assert (workspace / "shop.go").read_text() == GO.replace(GO_OLD, GO_NEW), seen
    assert "replace_symbol `greet`" in told and "replace_symbol `Total`" in told, seen
    assert "use.ts:3" in told and "checkout.go:4" in told, seen  # the delta: each broken caller, path:line
    assert not broken.exists() and "syntax error" in told, seen
    if host in OVERWRITING_HOSTS:
        assert util.read_text() == TS_WITHOUT_COUNT and "remove_symbol `count`" in told, seen
