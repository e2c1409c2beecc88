"""A language server's messages on the wire (gateway.lsp.wire): read and written as multilspy's
`json` did, whatever orjson refuses."""

from __future__ import annotations

import json

import pytest

from gateway.lsp import wire


@pytest.mark.parametrize("body", [
    b'{"jsonrpc":"2.0","id":1,"result":[{"name":"f","kind":12}]}',
    b'{"id":2,"result":{"name":"\\ud800 lone"}}',  # an escaped lone surrogate, which orjson refuses
    b'{"id":3,"result":[9223372036854775807,-9223372036854775808,2147483647]}',  # LSP's integers are 32 bits; 64 read exactly
    b'{"id":4,"result":NaN}',
])
def test_a_body_reads_as_json_reads_it(body: bytes) -> None:
    assert repr(wire.decoded(body)) == repr(json.loads(body))


def test_what_json_refuses_is_refused() -> None:
    with pytest.raises(json.JSONDecodeError):
        wire.decoded(b'{"id":1,')
    with pytest.raises(UnicodeDecodeError):
        wire.decoded(b'{"id":1,"result":"\xff"}')


@pytest.mark.parametrize("payload", [
    {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"contentChanges": [{"text": "def f():\n    return 'é'\n"}]}},
    {"jsonrpc": "2.0", "id": 1, "params": {1: "a key that is not a string"}},
    {"id": 5, "result": 123456789012345678901234567890},
])
def test_a_payload_is_written_as_multilspy_wrote_it(payload: dict[str, object]) -> None:
    from multilspy.lsp_protocol_handler.server import create_message

    assert wire.framed(payload) == create_message(payload)


def test_a_text_json_cannot_write_is_refused_as_before() -> None:
    with pytest.raises(UnicodeEncodeError):
        wire.framed({"params": {"text": "\ud800"}})
