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


def editing_view(text: str) -> tuple[str, str | None]:
    """(text as edited, newline style): uniform CRLF becomes LF and comes back on writing;
    mixed endings (None) are edited raw, so nothing is rewritten behind them."""
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    if crlf and lf:
        return text, None
    return (text.replace("\r\n", "\n"), "\r\n") if crlf else (text, "\n")


def normalize_fragment(fragment: str, newline: str | None) -> str:
    """An agent's old/new text in the convention of the text it edits."""
    return fragment if newline is None else fragment.replace("\r\n", "\n")
