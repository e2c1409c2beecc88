"""Which codec a source file's bytes are in, by its language's rule (`encoding_cookie` in
`langs/<lang>.toml`): Python's PEP 263 cookie, Ruby's magic comment, or UTF-8 (with an
optional BOM) for every other language, where a `coding:` comment means nothing.

Light enough for the hook's path: the standard library only."""

from __future__ import annotations

import codecs
import io
import re
import tokenize

BOM = codecs.BOM_UTF8
RULES = ("python", "ruby", "")

# Ruby's names for "no encoding, just bytes": edited as a Latin-1 round trip, byte for byte.
_RUBY_BYTES = frozenset({"binary", "ascii-8bit"})
# Ruby names Python spells differently, or not at all, with the same bytes.
_RUBY_ALIASES = {"utf8-mac": "utf-8", "utf-8-hfs": "utf-8"}
# Ruby names whose meaning depends on the machine that runs the file.
_RUBY_ENVIRONMENT = frozenset({"locale", "external", "filesystem"})
# Every printable ASCII character and the whitespace of source text: an ASCII-compatible
# codec (the only kind Ruby accepts in a magic comment) gives them back as these bytes.
_ASCII = "".join(map(chr, range(32, 127))) + "\t\n\r"
_FALLBACK = re.compile(rb"coding(?=[\s:=])", re.IGNORECASE)
_FALLBACK_VALUE = re.compile(rb"\s*[:=]\s*([-\w]*)")


class UnknownCodec(ValueError):
    """A file names an encoding that cannot be edited here (the message says why)."""


def codec_for(data: bytes, rule: str) -> str:
    """The Python codec `data` is in under `rule` ("python", "ruby" or "")."""
    if rule == "python":
        try:
            return tokenize.detect_encoding(io.BytesIO(data).readline)[0]
        except SyntaxError as error:
            raise UnknownCodec(str(error)) from None
    if rule == "ruby":
        return ruby_codec(data)
    return "utf-8-sig" if data.startswith(BOM) else "utf-8"


def ruby_codec(data: bytes) -> str:
    """Ruby's rule: the magic comment on the first line, or on the second after a shebang."""
    name = ruby_magic_encoding(data)
    if name is None:
        return "utf-8-sig" if data.startswith(BOM) else "utf-8"
    codec = _python_codec(name)
    if data.startswith(BOM) and codec not in ("utf-8", "utf_8"):
        raise UnknownCodec(f"a UTF-8 byte order mark and the magic comment's encoding {name!r} disagree")
    return "utf-8-sig" if data.startswith(BOM) else codec


def ruby_magic_encoding(data: bytes) -> str | None:
    """The encoding name Ruby's parser reads from the file's top comment, if any."""
    lines = data.split(b"\n", 2)
    line = lines[1] if data.startswith(b"#!") and len(lines) > 1 else lines[0]
    if not data.startswith(b"#!") and line.startswith(BOM):
        line = line[len(BOM):]
    stripped = line.lstrip(b" \t\f\v\r")
    if not stripped.startswith(b"#"):
        return None
    comment = stripped[1:].rstrip(b"\r")
    found, name = _magic_comment(comment)
    if not found:
        name = _fallback(comment)
    return _strip_eol_suffix(name.decode("ascii", "replace")) if name else None


def _magic_comment(comment: bytes) -> tuple[bool, bytes | None]:
    """(whether Ruby reads `comment` as a magic comment, the value of its coding/encoding pair).

    `# -*- name: value; ... -*-` holds pairs; otherwise the whole comment must be one pair."""
    if len(comment) <= 7:
        return False, None
    start = comment.find(b"-*-")
    emacs = start >= 0
    if emacs:
        end = comment.find(b"-*-", start + 3)
        if end < 0:
            return False, None
        comment = comment[start + 3 : end]
    pairs = _pairs(comment, emacs)
    if pairs is None:
        return False, None
    values = [value for key, value in pairs if key.lower().replace(b"-", b"_") in (b"coding", b"encoding")]
    return True, (values[-1] if values else None)


_NAME = re.compile(rb"""[\s'":;]*([^\s'":;]*)\s*""")
_VALUE = re.compile(rb""":\s*(?:"((?:\\.|[^"])*)"?|([^"\s;]*))""")
_TAIL = {True: re.compile(rb"[\s;]*"), False: re.compile(rb"\s*")}


def _pairs(text: bytes, emacs: bool) -> list[tuple[bytes, bytes]] | None:
    """`name: value` pairs as Ruby's parser_magic_comment reads them; None: not a magic comment."""
    pairs: list[tuple[bytes, bytes]] = []
    at = 0
    while at < len(text):
        name = _NAME.match(text, at)
        assert name is not None  # the pattern matches the empty string
        at = name.end()
        if at >= len(text):
            break
        value = _VALUE.match(text, at) if text[at : at + 1] == b":" else None
        if value is None:
            if not emacs:
                return None
            continue  # a word without a value: the next name starts here
        at = _TAIL[emacs].match(text, value.end()).end()  # type: ignore[union-attr]
        if not emacs and at < len(text):
            return None
        pairs.append((name.group(1), value.group(1) if value.group(1) is not None else value.group(2)))
    return pairs


def _fallback(comment: bytes) -> bytes | None:
    """Ruby's last look at a top comment: the first `coding` followed by `:` or `=` and a name."""
    found = _FALLBACK.search(comment)
    if found is None:
        return None
    value = _FALLBACK_VALUE.match(comment, found.end())
    return value.group(1) if value and value.group(1) else None


def _strip_eol_suffix(name: str) -> str:
    """Emacs's `-unix`, `-dos` and `-mac` suffixes name line endings, not an encoding (as Ruby reads them)."""
    lowered = name.lower()
    for suffix in ("-unix", "-dos", "-mac"):
        if lowered.endswith(suffix) and len(name) > len(suffix) and lowered != "utf8-mac":
            return name[: -len(suffix)]
    return name


def _python_codec(name: str) -> str:
    lowered = name.lower()
    if lowered in _RUBY_BYTES:
        return "latin-1"
    if lowered in _RUBY_ENVIRONMENT:
        raise UnknownCodec(f"the magic comment's encoding {name!r} depends on the machine that runs the file")
    try:
        codec = codecs.lookup(_RUBY_ALIASES.get(lowered, lowered)).name
    except LookupError:
        raise UnknownCodec(f"unknown encoding {name!r} in the magic comment") from None
    try:
        compatible = _ASCII.encode(codec) == _ASCII.encode("ascii")
    except (UnicodeError, LookupError):
        compatible = False
    if not compatible:
        raise UnknownCodec(f"the magic comment's encoding {name!r} is not ASCII compatible (Ruby refuses it too)")
    return codec
