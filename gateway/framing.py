"""LSP base-protocol framing (`Content-Length: N\\r\\n\\r\\n` + body), bounded and linear.

Anything else (an HTTP request line, a header that is not `Name: value`, a header block or
body over the limits) is a `FrameError`: the connection is closed unanswered.
"""

from __future__ import annotations

MAX_HEADER_BYTES = 4096
MAX_BODY_BYTES = 64 * 1024 * 1024
_ALLOWED = {b"content-length", b"content-type"}
_END = b"\r\n\r\n"


class FrameError(Exception):
    """Input that is not LSP-framed JSON-RPC within the limits."""


class FrameReader:
    """Bodies out of a byte stream; each byte is scanned a bounded number of times."""

    def __init__(self, max_body: int = MAX_BODY_BYTES) -> None:
        self.max_body = max_body
        self._buffer = bytearray()
        self._scanned = 0
        self._length: int | None = None

    def feed(self, data: bytes) -> list[bytes]:
        self.push(data)
        bodies = []
        while True:
            body = self.next()
            if body is None:
                return bodies
            bodies.append(body)

    def push(self, data: bytes) -> None:
        """Bytes received; `next` takes the bodies out one at a time (the limits in force when
        each one's header is read apply to it)."""
        self._buffer += data

    def next(self) -> bytes | None:
        """The next complete body, or None until more bytes come; FrameError past the limits."""
        if self._length is None:
            self._check_start()
            end = self._buffer.find(_END, max(0, self._scanned - 3), MAX_HEADER_BYTES + 4)
            if end < 0:
                if len(self._buffer) > MAX_HEADER_BYTES:
                    raise FrameError(f"a header block longer than {MAX_HEADER_BYTES} bytes")
                self._scanned = len(self._buffer)
                return None
            self._length = _content_length(bytes(self._buffer[:end]), self.max_body)
            del self._buffer[: end + 4]
            self._scanned = 0
        if len(self._buffer) < self._length:
            return None
        body = bytes(self._buffer[: self._length])
        del self._buffer[: self._length]
        self._length = None
        return body

    def _check_start(self) -> None:
        """Fail at once on what cannot begin a header (an HTTP request line, say)."""
        head = bytes(self._buffer[:14]).lower()
        if not any(name.startswith(head) or head.startswith(name) for name in _ALLOWED):
            raise FrameError("not LSP framing")


def _content_length(header: bytes, max_body: int) -> int:
    length = None
    for line in header.split(b"\r\n"):
        name, colon, value = line.partition(b":")
        if not colon or name.strip().lower() not in _ALLOWED:
            raise FrameError("not LSP framing")
        if name.strip().lower() == b"content-length":
            text = value.strip()
            if not text.isdigit() or len(text) > 12:
                raise FrameError("a bad Content-Length")
            length = int(text)
    if length is None:
        raise FrameError("no Content-Length")
    if length > max_body:
        raise FrameError(f"a body longer than {max_body} bytes")
    return length
