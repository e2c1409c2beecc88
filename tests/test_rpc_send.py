"""What the JSON-RPC server writes for an answer: a gateway method's plain result sent as it
is, the same bytes pygls' converter makes of it (no process is started)."""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Any

import pytest
from lsprotocol.types import InitializeResponse, InitializeResult, Position, Range, ResponseError, ServerCapabilities
from pygls.protocol import JsonRPCProtocol

from gateway.api import Gateway
from gateway.surfaces.rpc import GatewayProtocol, GatewayServer


class _Written:
    def __init__(self) -> None:
        self.data: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.data.append(data)

    def is_closing(self) -> bool:
        return False


class _Kind(enum.Enum):
    FUNCTION = "function"


def _sent(protocol: GatewayProtocol, send: Any, *args: Any, **kwargs: Any) -> bytes:
    written = _Written()
    protocol.transport = written  # type: ignore[assignment]
    send(*args, **kwargs)
    return b"".join(written.data)


@pytest.fixture
def protocol(tmp_path: Path) -> GatewayProtocol:
    return GatewayServer(Gateway(tmp_path)).connection(token_required=False)


SYMBOLS = {"path": "big.py", "backend": "lsp:zuban", "symbols": [
    {"name_path": "TextWrapper/_split_chunks", "kind": "method", "lines": (340, 345), "children": [], "note": None},
    {"name_path": "fill", "kind": "function", "lines": [1, 2], "detail": "é \u2028 \"quoted\"", "score": 1.5, "exact": True}]}


@pytest.mark.parametrize("result", [SYMBOLS, None, [], "text", 0, {"stdout": "{}", "exit_code": 0},
                                    {"range": Range(Position(1, 2), Position(3, 4)), "kind": _Kind.FUNCTION}])
def test_a_plain_result_is_sent_as_pygls_sends_it(protocol: GatewayProtocol, result: Any) -> None:
    ours = _sent(protocol, protocol._send_response, 7, result)
    theirs = _sent(protocol, JsonRPCProtocol._send_response, protocol, 7, result)
    assert ours == theirs
    assert b'"result": ' in ours


def test_a_typed_result_and_an_error_go_through_pygls(protocol: GatewayProtocol) -> None:
    typed = InitializeResult(capabilities=ServerCapabilities())
    protocol._result_types["init"] = InitializeResponse
    ours = _sent(protocol, protocol._send_response, "init", typed)
    protocol._result_types["init"] = InitializeResponse
    assert ours == _sent(protocol, JsonRPCProtocol._send_response, protocol, "init", typed)
    assert "init" not in protocol._result_types
    error = ResponseError(-32000, "refused")
    assert _sent(protocol, protocol._send_response, 3, None, error) == _sent(protocol, JsonRPCProtocol._send_response, protocol, 3, None, error)


def test_a_plain_result_is_not_walked_by_the_converter(protocol: GatewayProtocol, monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[object] = []
    serialize = protocol._serialize_message
    monkeypatch.setattr(protocol, "_serialize_message", lambda value: walked.append(value) or serialize(value))
    _sent(protocol, protocol._send_response, 7, SYMBOLS)
    assert walked == []
    _sent(protocol, protocol._send_response, 8, {"range": Range(Position(1, 2), Position(3, 4))})
    assert walked == [Range(Position(1, 2), Position(3, 4))]  # only what is not plain JSON
