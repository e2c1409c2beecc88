"""Background work gives way to a hook's answer being worked out (gateway.priority); threads only."""

from __future__ import annotations

import threading
import time

import pytest

from gateway import priority
from gateway.priority import answering, background, give_way


def _given_way(marked: bool) -> threading.Event:
    """A thread that gives way once (marked as background work or not); set when it has passed."""
    passed = threading.Event()

    def work() -> None:
        if marked:
            with background():
                give_way()
        else:
            give_way()
        passed.set()

    threading.Thread(target=work, daemon=True).start()
    return passed


def test_background_work_waits_for_the_answer_being_worked_out() -> None:
    with answering():
        passed = _given_way(marked=True)
        assert not passed.wait(0.3)
    assert passed.wait(5)


def test_other_work_and_the_answer_itself_do_not_wait() -> None:
    with answering():
        assert _given_way(marked=False).wait(5)
        started = time.monotonic()
        give_way()
        assert time.monotonic() - started < 0.5


def test_nothing_waits_without_an_answer_and_the_wait_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _given_way(marked=True).wait(5)
    monkeypatch.setattr(priority, "GIVE_WAY_SECONDS", 0.2)
    with answering():
        passed = _given_way(marked=True)
        assert passed.wait(5)  # while the answer is still being worked out: a long one does not hold background work


def test_a_daemon_operation_starts_once_the_hook_answer_is_made() -> None:
    """A CLI, MCP or JSON-RPC request to the daemon (`daemon._after_hooks`) waits for a hook's
    answer being worked out, and is background work while it runs (it gives way again)."""
    from gateway.surfaces.daemon import _after_hooks

    ran = threading.Event()
    marked: list[bool] = []

    def operation() -> dict[str, bool]:
        marked.append(getattr(priority._marked, "background", False))
        ran.set()
        return {}

    with answering():
        threading.Thread(target=_after_hooks, args=(operation,), daemon=True).start()
        assert not ran.wait(0.3)
    assert ran.wait(5) and marked == [True]


def test_a_servers_outline_is_read_without_giving_way() -> None:
    """An outline is read under its lock (`lsp.documents.Outline.read`), which a hook's answer
    about the same text waits on: a background read that gave way there would hold that answer
    up to GIVE_WAY_SECONDS at each step."""
    from types import SimpleNamespace

    from gateway.lsp.adapters.base import Adapter
    from gateway.lsp.documents import Outline
    from gateway.symbols.backends import LspBackend

    names = [f"f{n}" for n in range(600)]
    text = "".join(f"def {name}(): pass\n" for name in names)
    span = lambda line: {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 14}}  # noqa: E731
    reply = [{"name": name, "kind": 12, "range": span(n), "selectionRange": span(n)} for n, name in enumerate(names)]
    backend = LspBackend.__new__(LspBackend)
    backend.session = SimpleNamespace(adapter=Adapter())  # type: ignore[assignment]  # _read asks the session for its adapter only
    outline: Outline[list] = Outline(reply, keep_reply=False)
    read: list[int] = []

    def background_read() -> None:
        with background():
            read.append(len(outline.read(lambda answer: backend._read(answer, text))))

    with answering():
        thread = threading.Thread(target=background_read, daemon=True)
        thread.start()
        thread.join(0.5)
        assert read == [600]
