"""A multi-file patch with Add, Delete and Move sections, and a patch that breaks a file, inside
the real hosts that send the `*** Begin Patch` format (Codex always; OpenCode and Copilot CLI
for GPT-5 model ids): the
gateway installed as a user installs it, the host's own applier writing, the assertions on the
files on disk and on what the host told the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.hosts.harness import HostSession
from tests.hosts.sample import BROKEN, NEW, OLD, ROUTED, SOURCE
from tests.starts import kill_daemons_under
from tests.test_hosts_gateway import _patch, _sent_back, install

pytestmark = pytest.mark.usefixtures("hosts")

SHAPES = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"

# Allowed: a new module, a file without definitions deleted, notes moved, a body changed.
ALLOWED = (
    "*** Begin Patch\n"
    "*** Add File: pkg/new_mod.py\n+def h():\n+    return 3\n"
    "*** Delete File: consts.py\n"
    "*** Update File: notes.txt\n*** Move to: docs/notes.txt\n@@\n-draft\n+final\n"
    "*** Update File: shapes.py\n@@\n-    return w * h\n+    return h * w\n"
    "*** End Patch\n"
)
# Structural and not routable: shapes.py moved out of the sources takes both its functions.
MOVED_OUT = (
    "*** Begin Patch\n"
    "*** Add File: extra.py\n+Y = 2\n"
    "*** Update File: shapes.py\n*** Move to: shapes.txt\n@@\n-    return 2 * (w + h)\n+    return (w + h) * 2\n"
    "*** End Patch\n"
)
# Structural and routed: prices.py deleted and added again with a changed header, an update.
REPLACED = "*** Begin Patch\n*** Delete File: prices.py\n*** Add File: prices.py\n" + "".join(
    f"+{line}\n" for line in SOURCE.replace(OLD, NEW).splitlines()) + "*** End Patch\n"


def step(host: str, patch: str) -> tuple[str, Any]:
    if host == "opencode":
        return ("apply_patch", {"patchText": patch})
    return ("apply_patch", patch)


MODEL = {"codex": "gpt-5.5", "opencode": "fake/gpt-5.5", "copilot": "gpt-5.5"}


@pytest.mark.parametrize("host", ["codex", "opencode", "copilot"])
def test_a_multi_file_patch_with_add_delete_and_move(host: str, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "prices.py").write_text(SOURCE)
    (root / "shapes.py").write_text(SHAPES)
    (root / "consts.py").write_text("X = 1\n")
    (root / "notes.txt").write_text("draft\n")
    session = HostSession(host, root, tmp_path)
    install(session, root, host)
    try:
        result = session.run([step(host, ALLOWED), step(host, MOVED_OUT), step(host, _patch(OLD, BROKEN)), step(host, REPLACED)], model=MODEL[host])
    finally:
        session.close()
        kill_daemons_under(root)  # the host's MCP server may start one with an environment of its own
    told = _sent_back(result)
    # The allowed patch, written as sent.
    assert (root / "pkg" / "new_mod.py").read_text() == "def h():\n    return 3\n", told[-3000:]
    assert not (root / "consts.py").exists() and not (root / "notes.txt").exists()
    assert (root / "docs" / "notes.txt").read_text() == "final\n"
    assert (root / "shapes.py").read_text() == SHAPES.replace("w * h", "h * w")
    # The move out of the sources, refused whole: nothing of it written, and the model told why.
    assert not (root / "shapes.txt").exists() and not (root / "extra.py").exists()
    assert "the patch moves shapes.py to shapes.txt" in told and "removes function `perimeter`" in told
    assert "gateway remove-symbol area" in told
    # A patch that breaks prices.py: refused as a syntax error, nothing written.
    assert "syntax error" in result.tool_results[2], result.tool_results
    # Delete + Add of prices.py, judged as its update and routed: the header change as replace_symbol.
    assert (root / "prices.py").read_text() == ROUTED, told[-3000:]
    assert "The gateway performed this write" in told and "replace_symbol `PriceList/total`" in told
