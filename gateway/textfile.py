"""Bytes to text the way the gateway reads source files: light enough for the hook's path."""

from __future__ import annotations

import codecs
import os
from typing import TYPE_CHECKING

from gateway.cookies import UnknownCodec, codec_for
from gateway.errors import BinaryFile, UndecodableFile

if TYPE_CHECKING:
    from gateway.langs import LanguageRegistry


def decode(data: bytes, where: str, rule: str) -> tuple[str, str]:
    """(text, codec) by the language's encoding rule (`encoding_cookie` in langs/*.toml):
    "python" reads a PEP 263 cookie, "ruby" a magic comment, "" is UTF-8 with or without BOM."""
    if b"\x00" in data:
        raise BinaryFile(f"{where}: binary file (contains NUL bytes); refusing to edit it")
    try:
        codec = codec_for(data, rule)
        return data.decode(codec), codec
    except (UnknownCodec, UnicodeDecodeError, LookupError) as error:
        raise UndecodableFile(f"{where}: not decodable as text ({error}); refusing to edit it") from None


def encoding_rule(path: str | os.PathLike[str], registry: LanguageRegistry | None = None, data: bytes | None = None) -> str:
    """The encoding rule of the language a file belongs to, by its name or (without an
    extension) by the `#!` line of `data` ("" for none, or when the languages that claim its
    extension disagree)."""
    from gateway.langs import default_registry

    rules = {lang.encoding_cookie for lang in (registry or default_registry()).candidates(path, data)}
    return rules.pop() if len(rules) == 1 else ""


def round_trips(text: str, codec: str, data: bytes) -> bool:
    """Whether encoding the decoded text gives back the file's own bytes (a file that does
    not is never re-encoded: the gate would judge a text that is not the file). Strict UTF-8
    decoding is one to one: a text it gave back always does, and a long file is not encoded again."""
    if codec == "utf-8":
        return True
    try:
        return text.encode(codec) == data
    except UnicodeError:
        return False


def unencodable_message(where: str, codec: str) -> str:
    return (
        f"{where}: its {codec} bytes do not come back unchanged from decoding and encoding; "
        "refusing to re-encode the whole file (convert it to UTF-8 first)"
    )


def editing_view(text: str) -> tuple[str, str | None]:
    """(text as edited, newline style): uniform CRLF becomes LF and comes back on writing;
    mixed endings (None) are edited raw, so nothing is rewritten behind them."""
    if "\r" not in text:  # found by memchr: counting "\r\n" over a long text costs milliseconds
        return text, "\n"
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    if crlf and lf:
        return text, None
    return (text.replace("\r\n", "\n"), "\r\n") if crlf else (text, "\n")


def normalize_fragment(fragment: str, newline: str | None) -> str:
    """An agent's old/new text in the convention of the text it edits."""
    return fragment if newline is None else fragment.replace("\r\n", "\n")


def _first_lines(text: str, count: int) -> str:
    """The first `count` lines, line breaks as str.splitlines counts them, without splitting it all."""
    size = 1024
    while True:
        lines = text[:size].splitlines(True)
        if len(lines) > count or size >= len(text):
            return "".join(lines[:count])
        size *= 4


def _declared(text: str, rule: str) -> str:
    head = _first_lines(text, 2).encode("utf-8", "surrogatepass")
    try:
        return codecs.lookup(codec_for(head, rule)).name
    except (UnknownCodec, LookupError) as error:
        raise UndecodableFile(f"the new text declares an encoding that cannot be edited here ({error})") from None


def check_declared_encoding(where: str, before: str | None, after: str, rule: str) -> None:
    """Refuse a write whose text would read back differently: the language decodes the bytes
    written (in the encoding the file has now, UTF-8 for a new one) by the encoding the new
    text declares, so the gate must judge the text the language will see."""
    if not rule:
        return
    now = _declared(before, rule) if before is not None else "utf-8"
    declared = _declared(after, rule)
    if declared == now or {declared, now} <= {"utf-8", "utf-8-sig"}:
        return
    try:
        same = after.encode(now).decode(declared) == after
    except (UnicodeError, LookupError):
        same = False
    if not same:
        raise UndecodableFile(
            f"{where}: the new text declares the encoding {declared}, under which the bytes written ({now}) read as other "
            "text than the text judged; refused (change the declaration and the text in separate writes)"
        )
