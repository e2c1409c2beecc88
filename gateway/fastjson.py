"""`loads` and `dumps` on CPython's C JSON scanner and encoder, without the `json` package:
`json` imports `re`, which doubles the start-up of the hook's client. Same results as
`json.loads` (strict) and `json.dumps(ensure_ascii=False)`; ValueError on invalid input."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - not CPython
    _json = None


class _Context:
    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, str] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]


_WHITESPACE = " \t\n\r"


def loads(text: str | bytes) -> Any:
    if isinstance(text, bytes | bytearray):
        text = text.decode("utf-8")
    if _json is None:  # pragma: no cover
        import json

        return json.loads(text)
    body = text.strip(_WHITESPACE)
    try:
        make_scanner: Any = _json.make_scanner  # typeshed's signature wants a JSONDecoder
        value, end = make_scanner(_Context())(body, 0)
    except StopIteration as stop:
        raise ValueError(f"not JSON (at character {stop.value})") from None
    if end != len(body):
        raise ValueError(f"extra data after the JSON value (at character {end})")
    return value


def _unknown(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def dumps(value: Any) -> str:
    if _json is None:  # pragma: no cover
        import json

        return json.dumps(value, ensure_ascii=False)
    encode = _json.make_encoder({}, _unknown, _json.encode_basestring, None, ": ", ", ", False, False, True)
    return "".join(encode(value, 0))
