"""What the caches keep of texts is bounded while requests run and settles to less between them
(`gateway.bounded`): a long file's texts from before its last write are not kept at rest, the
newest is, whatever its size; the daemon settles them, and its heap gives large blocks back."""

from __future__ import annotations

import asyncio
import ctypes
import time
from dataclasses import dataclass
from pathlib import Path

from gateway import incremental
from gateway.api import Gateway
from gateway.gate import touched
from gateway.gate.touched import touched_by
from gateway.langs import default_registry
from gateway.symbols import text
from gateway.bounded import REST_CHARS, Bounded, settle_all
from gateway.lsp import documents
from gateway.surfaces import daemon
from gateway.syntax import trees

LONG = REST_CHARS * 6 // 10  # two of these are more than the rest bound; one is not


def _filled(sizes: list[int]) -> Bounded[str, str]:
    kept: Bounded[str, str] = Bounded(8)
    for n, size in enumerate(sizes):
        kept.put(f"text {n}", f"worked out from text {n}", size)
    return kept


def test_a_request_keeps_the_two_newest_whatever_their_size() -> None:
    kept = _filled([10, 3 * REST_CHARS, 5 * REST_CHARS, 5 * REST_CHARS])
    assert kept.values() == ["worked out from text 2", "worked out from text 3"]
    assert kept.get("text 1") is None
    assert kept.get("text 3") == "worked out from text 3"


def test_settling_keeps_the_newest_within_the_rest_bound() -> None:
    kept = _filled([100, LONG, LONG, LONG])
    assert len(kept.values()) == 4  # within KEPT_CHARS while requests run
    kept.settle()
    assert kept.values() == ["worked out from text 3"]
    assert kept.get("text 2") is None  # asked again, it is worked out again


def test_settling_keeps_small_texts() -> None:
    kept = _filled([1000] * 8)
    kept.settle()
    assert len(kept.values()) == 8


def test_settling_keeps_the_newest_even_if_larger_than_the_bound() -> None:
    kept = _filled([10, 2 * REST_CHARS])
    kept.get("text 0")  # used last: the newest
    kept.settle()
    assert kept.values() == ["worked out from text 0"]


def test_settle_all_reaches_the_server_answers_digests() -> None:
    """The digests of the texts sent to servers are keyed by those texts: settled, the older
    long ones are let go."""
    texts = [chr(ord("a") + n) * LONG for n in range(3)]
    digests = [documents.digest(text) for text in texts]
    assert len(set(digests)) == 3
    settle_all()
    assert documents._DIGESTS.values() == [digests[-1]]
    assert documents.digest(texts[0]) == digests[0]  # worked out again, the same


def test_settle_all_reaches_the_utf8_of_long_texts() -> None:
    """The UTF-8 kept of the last texts (keyed by those texts): settled, the older long ones'
    are let go, the newest's kept."""
    texts = [chr(ord("d") + n) * LONG + "é" for n in range(3)]
    encoded = [trees.utf8(text) for text in texts]
    settle_all()
    assert list(trees._ENCODED.values()) == [encoded[-1]]
    assert trees.utf8(texts[0]) == texts[0].encode()  # worked out again, the same


@dataclass(frozen=True)
class _Definition:
    name_path: str
    start_byte: int
    end_byte: int
    name_start_byte: int


def test_settle_all_reaches_the_nesting_of_long_definition_lists() -> None:
    """The nesting kept per definition list (each list held): settled, the older long files'
    lists are let go, the newest's kept and still found."""
    lists = [[_Definition(f"f{n}", 0, LONG, 4), _Definition(f"f{n}/g", 10, 20, 14)] for n in range(3)]
    for definitions in lists:
        assert incremental.named_within(definitions, 0, 12) == [definitions[0]]  # type: ignore[type-var]
    settle_all()
    assert [kept for kept, _ in incremental._kept_nesting.values()] == [lists[-1]]
    assert incremental.named_within(lists[0], 12, 16) == [lists[0][1]]  # type: ignore[type-var]  # worked out again


def test_settle_all_reaches_the_writes_touched() -> None:
    """The definitions each write touched, kept by its texts: settled, only the newest long
    write's."""
    texts = [f"def f{n}():\n    return {n}\n" + "#" * LONG + "\n" for n in range(3)]
    python = default_registry().get("python")
    found = [touched_by(python, "a.py", source, source.replace("return", "return 1 +")) for source in texts]
    settle_all()
    assert touched._TOUCHED.values() == [found[-1]]


def test_an_ascii_texts_offsets_keep_no_table_and_a_wide_ones_settle() -> None:
    ascii_text, wide = "x" * LONG, ["é" + "x" * LONG + str(n) for n in range(3)]
    assert text.char_to_byte(ascii_text)(5) == 5 and text.byte_to_char(ascii_text)(5) == 5
    for one in wide:
        assert text.char_to_byte(one)(3) == 4 and text.byte_to_char(one)(4) == 3
    settle_all()
    assert len(text._TO_BYTE.values()) == 1 and len(text._TO_CHAR.values()) == 1


def test_the_daemon_settles_the_caches_when_it_tidies(tmp_path: Path) -> None:
    kept = _filled([LONG, LONG, LONG])

    async def tidied() -> None:
        server = daemon.DaemonServer(Gateway(tmp_path), idle_seconds=60)
        server._tidy()

    asyncio.run(tidied())
    assert kept.values() == ["worked out from text 2"]


def test_the_daemon_tidies_at_once_after_a_request_that_left_long_texts(tmp_path: Path) -> None:
    """Tidied a moment ago, the daemon tidies again as soon as an answer has gone out when a
    cache holds more than its rest bound (a long file's texts before and after a write), not
    TIDY_SECONDS later: the memory after the request is what is counted."""

    async def tidied(sizes: list[int]) -> list[str]:
        server = daemon.DaemonServer(Gateway(tmp_path), idle_seconds=60)
        server.loop, server._tidied = asyncio.get_running_loop(), time.monotonic()
        kept = _filled(sizes)
        server._tidy_soon()
        await asyncio.sleep(0.1)
        return kept.values()

    assert asyncio.run(tidied([LONG, LONG])) == ["worked out from text 1"]
    assert asyncio.run(tidied([1000, 1000])) == ["worked out from text 0", "worked out from text 1"]  # within the bound: later


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def _mapped_bytes() -> int:
    mallinfo2 = ctypes.CDLL(None).mallinfo2
    mallinfo2.restype = _Mallinfo2
    return int(mallinfo2().hblkhd)


def test_the_daemons_heap_maps_a_long_texts_blocks_on_their_own() -> None:
    """After a larger block was freed, glibc would put the next megabytes in its heap (where,
    freed, they stay between smaller blocks); the daemon's heap maps them on their own, so that
    freeing them gives them back."""
    daemon._bound_heap()
    freed = bytearray(16 << 20)
    del freed
    before = _mapped_bytes()
    text = bytearray(4 << 20)
    assert _mapped_bytes() - before >= len(text)
    del text
    assert _mapped_bytes() == before
