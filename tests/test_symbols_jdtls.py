"""Java and Kotlin through the real jdtls, on a bare folder of sources (no build file), the
common agent case.

One test, so that one jdtls starts (5-8 s, and its first rename indexes the JDK): under
`make test`'s load distribution, separate tests would each start one on every worker.
"""

from __future__ import annotations

from pathlib import Path

import psutil
import pytest

from gateway.errors import Ambiguous
from tests.roundtrip import definition_count, round_trip
from tests.symbol_cases import JVM_CASES
from tests.test_symbols_servers import LanguageWorkspace, check_case

pytestmark = pytest.mark.usefixtures("servers")

JDTLS = "lsp:jdtls"


def _kotlin_renames_through_the_checked_fallback(workspace: LanguageWorkspace) -> None:
    result = workspace.gateway.rename_symbol("Basket/size", "kt/Basket.kt", "amount").to_json()
    assert result["backend"] == "tree-sitter" and result["complete"] is True
    assert "read-only" in result["fallback"] and "read-only" in result["message"]
    basket = workspace.original["kt/Basket.kt"].decode()
    assert workspace.text("kt/Basket.kt") == basket.replace("fun size()", "fun amount()").replace("= size()", "= amount()")
    assert workspace.text("kt/Shop.kt") == workspace.original["kt/Shop.kt"].decode().replace("basket.size()", "basket.amount()")


def _kotlin_symbols_after_a_write_come_from_the_text(workspace: LanguageWorkspace) -> None:
    """jdtls answers Kotlin symbols for the text it opened: after the rename's write they come
    from tree-sitter, which shows the new name, saying why."""
    assert workspace.gateway.symbols("kt/Basket.kt").to_json()["backend"] == JDTLS
    workspace.gateway.rename_symbol("Basket/size", "kt/Basket.kt", "amount")
    listing = workspace.gateway.symbols("kt/Basket.kt").to_json()
    assert listing["backend"] == "tree-sitter" and "for the text it opened" in listing["note"], listing
    assert "Basket/amount" in [s["name_path"] for s in listing["symbols"]]


def _kotlin_rename_refuses_what_it_cannot_tie(workspace: LanguageWorkspace) -> None:
    with pytest.raises(Ambiguous, match=r"read-only.*put at kt/Shop\.kt:8 may belong to another type; nothing renamed"):
        workspace.gateway.rename_symbol("Basket/put", "kt/Basket.kt", "add")
    assert all(workspace.text(name) == data.decode() for name, data in workspace.original.items())


def _servers_rows(workspace: LanguageWorkspace) -> None:
    rows = {row["language"]: row for row in workspace.gateway.servers().to_json()["languages"]}
    assert (rows["java"]["status"], rows["kotlin"]["status"]) == ("working", "working")
    assert rows["java"]["rename_fallback"] is None and "read-only" in rows["kotlin"]["rename_fallback"]
    assert rows["java"]["version"].startswith("Eclipse JDT LS")


def _round_trips(workspace: LanguageWorkspace) -> None:
    for path in ("Cart.java", "kt/Basket.kt"):
        outcomes = [round_trip(workspace.gateway, workspace.root, path, i) for i in range(definition_count(workspace.gateway, path))]
        done = [outcome for outcome in outcomes if outcome is not None]
        assert len(done) >= 2 and all(exact for _, exact in done), f"{path}: {done}"


def _renames_in_a_file_rewritten_as_it_was(workspace: LanguageWorkspace) -> None:
    """A file written again with the same text (a checkout, a host's rewrite) is a file changed
    on disk to jdtls, which refuses to rename in one it thinks out of sync; it is told."""
    import os

    cart = workspace.root / "Cart.java"
    workspace.gateway.symbols("Cart.java")  # open in jdtls
    cart.write_bytes(cart.read_bytes())
    stamp = cart.stat()
    os.utime(cart, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 2_000_000_000))
    assert workspace.gateway.rename_symbol("Cart/total", "Cart.java", "grandTotal").to_json()["ok"]
    assert "grandTotal" in workspace.text("Cart.java")


def _closing_ends_jdtls_and_its_java(workspace: LanguageWorkspace) -> None:
    gateway = workspace.gateway
    reaper = psutil.Process(next(s.pid for s in gateway.sessions.running() if s.name == "jdtls" and s.pid))
    family = [reaper, *reaper.children(recursive=True)]
    assert any(p.name() == "java" for p in family[1:]), [p.name() for p in family]
    gateway.close()
    _, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, f"left running: {[p.name() for p in alive]}"


def test_java_and_kotlin_through_jdtls(tmp_path: Path) -> None:
    workspace = LanguageWorkspace("jvm", tmp_path)
    try:
        listing = workspace.gateway.symbols("Cart.java").to_json()
        assert listing["backend"] == JDTLS and [s["name_path"] for s in listing["symbols"]][:3] == ["Cart", "Cart/sum", "Cart/total"]
        for case in JVM_CASES:  # Java replace, insert, remove, rename across files; Kotlin replace, insert, remove
            workspace.reset()
            check_case(workspace, case, JDTLS)
        for check in (_kotlin_renames_through_the_checked_fallback, _kotlin_symbols_after_a_write_come_from_the_text,
                      _kotlin_rename_refuses_what_it_cannot_tie, _servers_rows, _round_trips, _renames_in_a_file_rewritten_as_it_was):
            workspace.reset()
            check(workspace)
        _closing_ends_jdtls_and_its_java(workspace)
    finally:
        workspace.gateway.close()


def test_index_folders_of_gone_or_unused_workspaces_are_removed_and_held_ones_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    import subprocess
    import sys
    import time

    from gateway.lsp.adapters import jdtls

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    live, gone = tmp_path / "live", tmp_path / "gone"
    live.mkdir()
    gone.mkdir()
    kept, removed, stale, held = (jdtls.data_folder(root) for root in (live, gone, tmp_path, tmp_path / "held"))
    month_ago = time.time() - 31 * 86400
    os.utime(stale / "gateway-workspace", (month_ago, month_ago))
    gone.rmdir()
    (held / ".metadata").mkdir()
    (held / ".metadata" / ".lock").touch()
    Path(held / "gateway-workspace").write_text(str(gone))  # its workspace is gone too, but a server holds it
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR); "
                               "fcntl.lockf(fd, fcntl.LOCK_EX); print(flush=True); time.sleep(60)", str(held / ".metadata" / ".lock")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "\n"
        assert sorted(jdtls.prune_data_folders()) == sorted([removed, stale])
        assert kept.is_dir() and held.is_dir() and not removed.exists() and not stale.exists()
    finally:
        holder.kill()
        holder.wait()
