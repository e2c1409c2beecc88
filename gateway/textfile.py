"""Bytes to text the way the gateway reads source files: light enough for the hook's path."""

from __future__ import annotations

import io
import tokenize

from gateway.errors import BinaryFile, UndecodableFile


def decode(data: bytes, where: str) -> tuple[str, str]:
    """(text, codec): UTF-8 with or without BOM, or a `coding:` cookie's encoding."""
    if b"\x00" in data:
        raise BinaryFile(f"{where}: binary file (contains NUL bytes); refusing to edit it")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding), encoding
    except (SyntaxError, UnicodeDecodeError, LookupError) as error:
        raise UndecodableFile(f"{where}: not decodable as text ({error}); refusing to edit it") from None


def newline_style(data: bytes) -> str | None:
    crlf = data.count(b"\r\n")
    lf = data.count(b"\n") - crlf
    if crlf and lf:
        return None
    return "\r\n" if crlf else "\n"
