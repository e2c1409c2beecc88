"""What a language server session keeps of a long file: the symbols read from a documentSymbol
answer, not the answer as decoded beside them (unless its adapter reads more in it: clangd's
macro calls); the digest of the text a document was opened with, not that text."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.lsp.adapters.base import Adapter
from gateway.lsp.adapters.clangd import ADAPTER as CLANGD
from gateway.lsp.documents import Outline

pytestmark = pytest.mark.usefixtures("servers")

SOURCE = "".join(f"def f{n}(a, b):\n    return a + b + {n}\n\n\n" for n in range(300))


def test_outline_read_once_drops_the_answer() -> None:
    reads: list[object] = []
    outline: Outline[list[str]] = Outline([{"name": "f"}], keep_reply=False)
    first = outline.read(lambda reply: reads.append(reply) or ["f"])  # type: ignore[func-returns-value]
    assert outline.read(lambda reply: ["other"]) is first and reads == [[{"name": "f"}]]
    assert outline.reply is None


def test_outline_of_a_server_that_lists_macros_keeps_the_answer() -> None:
    assert CLANGD.lists_macros and not Adapter.lists_macros
    outline: Outline[int] = Outline([{"name": "f"}], keep_reply=True)
    assert outline.read(len) == 1 and outline.reply == [{"name": "f"}]


def test_zubans_answer_is_dropped_once_its_symbols_are_read(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    with Gateway(tmp_path) as gateway:
        listing = gateway.symbols("m.py")
        names = [s.name_path for s in listing.symbols]  # type: ignore[union-attr]
        assert listing.backend == "lsp:zuban" and names[:2] == ["f0", "f1"] and len(names) == 300
        (session,) = gateway.sessions.running()
        assert session.name == "zuban"
        kept = session.documents.answer((tmp_path / "m.py").resolve().as_uri(), SOURCE)
        assert kept is not None and kept.reply is None  # on BASE: the decoded answer itself was kept
        assert [s.name_path for s in gateway.symbols("m.py").symbols] == names  # type: ignore[union-attr]  # read again from what is kept


def test_a_session_keeps_the_digest_of_the_text_it_opened(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    with Gateway(tmp_path) as gateway:
        gateway.symbols("m.py")
        (session,) = gateway.sessions.running()
        path = (tmp_path / "m.py").resolve()
        session.sync(path, SOURCE + "x = 1\n", "python")
        assert not session.opened_otherwise(path, SOURCE) and session.opened_otherwise(path, SOURCE + "x = 1\n")
        assert all(len(kept) <= 64 for kept in session._opened.values())  # on BASE: the whole text opened with
