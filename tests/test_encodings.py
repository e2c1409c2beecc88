"""Encodings per language: Python's `coding:` cookie for Python only, Ruby's magic comment for
Ruby (binary = bytes, edited as a Latin-1 round trip), UTF-8 with an optional BOM for every
other language; a file whose text does not give back its bytes is refused, nothing written."""

from __future__ import annotations

import codecs
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.cookies import UnknownCodec, ruby_codec
from gateway.errors import UndecodableFile, Unencodable
from gateway.langs import LanguageRegistry, data_dir
from gateway.surfaces.hooks.hosts.claude_code import run as claude_code
from tests.test_hook import applied_by_host

REAL = Path(__file__).parent / "real_code"
# Ruby's own lib/openssl/buffering.rb, `# coding: binary`, with two lines of raw bytes added
# (0xE9, 0xFF: not UTF-8) so that only a byte-for-byte reading can edit it.
BUFFERING = (REAL / "openssl_buffering.rb").read_bytes().replace(
    b"    BINARY = Encoding::BINARY\n", b'    BINARY = Encoding::BINARY\n    CAFE = "caf\xe9" # raw \xff\n'
)
BODY_OLD, BODY_NEW = "    @eof = false\n    @rbuffer = Buffer.new", "    @eof = nil\n    @rbuffer = Buffer.new"
GETBYTE = '  def getbyte\n    byte = read(1)\n    byte && byte.unpack1("C")\n  end\n'
PEEKBYTE = '\n  def peekbyte\n    @rbuffer.empty? ? nil : @rbuffer.getbyte(0)\n  end\n'


def _workspace(tmp_path: Path, name: str, data: bytes) -> Path:
    (tmp_path / name).write_bytes(data)
    return tmp_path / name


def _hook(path: Path, tool_input: dict[str, object], event: str = "PreToolUse") -> dict[str, object] | None:
    payload = {"hook_event_name": event, "tool_name": "Edit", "cwd": str(path.parent),
               "tool_input": {"file_path": str(path), **tool_input}}
    stdout, code = claude_code(json.dumps(payload).encode())
    assert code == 0, stdout
    return json.loads(stdout) if stdout.strip() else None


def test_a_ruby_binary_file_is_edited_through_the_gateway_byte_for_byte(tmp_path: Path) -> None:
    path = _workspace(tmp_path, "buffering.rb", BUFFERING)
    result = Gateway(tmp_path, use_servers=False).edit("buffering.rb", BODY_OLD, BODY_NEW)
    assert result.replacements == 1
    assert path.read_bytes() == BUFFERING.replace(b"@eof = false\n    @rbuffer", b"@eof = nil\n    @rbuffer")


def test_a_ruby_binary_file_takes_new_latin_1_text_and_refuses_what_bytes_cannot_hold(tmp_path: Path) -> None:
    path = _workspace(tmp_path, "buffering.rb", BUFFERING)
    gateway = Gateway(tmp_path, use_servers=False)
    gateway.edit("buffering.rb", '"caf\xe9"', '"th\xe9"')
    assert b'CAFE = "th\xe9" # raw \xff\n' in path.read_bytes()
    before = path.read_bytes()
    with pytest.raises(Unencodable, match=r"buffering.rb: the new text cannot be encoded as latin-1"):
        gateway.edit("buffering.rb", '"th\xe9"', '"\u20ac"')
    assert path.read_bytes() == before


def test_a_ruby_binary_file_routed_through_the_gateway_keeps_its_bytes(tmp_path: Path) -> None:
    path = _workspace(tmp_path, "buffering.rb", BUFFERING)
    result = Gateway(tmp_path, use_servers=False).edit("buffering.rb", GETBYTE, GETBYTE + PEEKBYTE, route=True)
    assert result.route is not None and [o.tool for o in result.route.operations] == ["insert_code"]
    after = path.read_bytes()
    assert b"  def peekbyte\n" in after and b'CAFE = "caf\xe9" # raw \xff\n' in after
    assert after.replace(PEEKBYTE.encode(), b"") == BUFFERING


def test_a_ruby_binary_file_through_the_claude_code_hook(tmp_path: Path) -> None:
    path = _workspace(tmp_path, "buffering.rb", BUFFERING)
    assert _hook(path, {"old_string": BODY_OLD, "new_string": BODY_NEW}) is None  # a body edit passes silently
    output = _hook(path, {"old_string": GETBYTE, "new_string": GETBYTE + PEEKBYTE.replace("nil", "'\xe9'")})
    assert output is not None
    updated = output["hookSpecificOutput"]["updatedInput"]  # type: ignore[index]
    written = applied_by_host(BUFFERING.decode("latin-1"), "Edit", updated).encode("latin-1")
    path.write_bytes(written)  # what the host writes, in the file's own encoding
    assert written.replace(PEEKBYTE.replace("nil", "'\xe9'").encode("latin-1"), b"") == BUFFERING
    note = _hook(path, {"old_string": GETBYTE, "new_string": ""}, "PostToolUse")
    assert note is not None and "insert_code after `OpenSSL/Buffering/getbyte`" in str(note)  # the note finds its file
    assert path.read_bytes() == written


def test_before_the_rule_a_ruby_binary_cookie_was_not_python_s(tmp_path: Path) -> None:
    """Python's reading of the same file fails: `binary` is no Python codec, and the raw bytes are not UTF-8."""
    import io
    import tokenize

    with pytest.raises(SyntaxError, match="unknown encoding: binary"):
        tokenize.detect_encoding(io.BytesIO(BUFFERING).readline)


RUBY_TOPS = [
    (b"# -*- encoding: binary -*-\n", "latin-1"),
    (b"# encoding: ASCII-8BIT\n", "latin-1"),
    (b"#!/usr/bin/env ruby\n# -*- coding: binary -*-\n", "latin-1"),
    (b"# -*- mode: ruby; coding: euc-jp -*-\n", "euc_jp"),
    (b"# vim: set fileencoding=iso-8859-15 :\n", "iso8859-15"),
    (b"# frozen_string_literal: true\n# encoding: binary\n", "utf-8"),
    (b"\n# encoding: binary\n", "utf-8"),
    (b"x = 1 # encoding: binary\n", "utf-8"),
    (b"# fileencoding: binary\n", "utf-8"),
    (b"# -*- foo -*- coding: binary\n", "utf-8"),
    (b"# coding: binary trailing words\n", "latin-1"),
    (b"# -*- coding: binary-unix -*-\n", "latin-1"),
    (b"# coding: utf-8-mac\n", "utf-8"),
    (b"\xef\xbb\xbf# coding: utf-8\n", "utf-8-sig"),
]


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize(("top", "codec"), RUBY_TOPS)
def test_ruby_magic_comments_are_read_as_ruby_reads_them(top: bytes, codec: str) -> None:
    assert ruby_codec(top + b"p __ENCODING__\n") == codec
    ruby = shutil.which("ruby")
    assert ruby is not None, "make setup installs ruby, against which the table is cross-checked"
    done = subprocess.run([ruby, "-"], input=top + b"p __ENCODING__\n", capture_output=True, timeout=30)
    named = done.stdout.decode().strip().removeprefix("#<Encoding:").removesuffix(">")
    assert _rubys(named, top) == codecs.lookup(codec).name, done.stderr


# Top comments as people write them, and as Ruby's parser reads them at its edges: each is
# tried on line 1 and on line 2 after a shebang (a BOM only on line 1), and compared with what
# Ruby itself says.
RUBY_FORMS = [
    b"# encoding: binary", b"# -*- encoding: binary -*-", b"# -*- mode: ruby; coding: ascii-8bit -*-",
    b"x=1 # encoding: binary", b"   # encoding: binary", b"# vim: set fileencoding=iso-8859-1 :",
    b"# Encoding: BINARY", b"#encoding:binary", b"# coding = binary", b"# xcoding: binary",
    b"# the coding: binary here", b"# -*- coding: binary; frozen_string_literal: true -*-",
    b"# encoding : binary", b"# fileencoding: binary", b"# frozen_string_literal: true; coding: binary",
    b"# coding: binary; frozen_string_literal: true", b"# coding: binary trailing", b'# coding: "binary"',
    b'# -*- coding: "binary" -*-', b"# -*- coding: binary", b"# -*- foo -*- coding: binary",
    b"# -*- foo: bar -*- coding: binary", b"# en-coding: binary", b"# Coding  =  binary",
    b"# xyz coding is binary", b"# vim: fileencoding=binary", b"# -*- Encoding: Binary -*-",
    b"# -*- mode: ruby -*- vim: set fileencoding=binary :", b"\t# coding: binary", b"# coding:binary\r",
    b"# frozen_string_literal: true coding: binary", b"# -*- foo bar: binary; coding: euc-jp -*-",
    b"# -*- coding: binary-unix -*-", b"# coding: binary-dos", b"# coding: utf-8-mac", b"# coding: iso-8859-15",
    b"# coding: cp1252", b"# coding: euc-jp", b"# coding: shift_jis", b"# coding: us-ascii", b"# coding: ascii",
    b"# -*- coding: iso-8859-1; coding: binary -*-", b"#  -*-  coding  :  binary  -*-", b"# -*-coding:binary-*-",
    b"# coding: BINARY", b"# a: b", b"#coding:x", b"#  encoding: ASCII-8BIT", b"# -*- coding: binary;-*-",
    b"# encoding: utf-8", b"# frozen_string_literal: true", b"# -*- frozen_string_literal: true -*-",
    b"# codingcoding: binary", b"# coding  is: binary", b"# ;coding: binary", b"# 'coding': binary",
    b"# encoding: bogus", b"# encoding: utf-16le", b"\xef\xbb\xbf# encoding: utf-8",
]
# One Ruby process loads every file and prints the encoding it was parsed in, or ERROR.
LOAD_ALL = "ARGV.each { |f| begin; load f; puts $enc; rescue SyntaxError, ArgumentError; puts 'ERROR'; end }"


def _ours(data: bytes) -> str:
    try:
        return codecs.lookup(ruby_codec(data)).name
    except UnknownCodec:
        return "ERROR"


def _rubys(named: str, data: bytes) -> str:
    if named == "ERROR":
        return named
    python = {"ASCII-8BIT": "latin-1", "UTF-8": "utf-8-sig" if data.startswith(codecs.BOM_UTF8) else "utf-8"}
    return codecs.lookup(python.get(named, named)).name


@pytest.mark.usefixtures("processes")
def test_ruby_s_own_parser_agrees_on_every_form(tmp_path: Path) -> None:
    ruby = shutil.which("ruby")
    assert ruby is not None, "make setup installs ruby, against which the forms are cross-checked"
    files = []
    tops = [s + f for f in RUBY_FORMS for s in (b"", b"#!/usr/bin/env ruby\n") if not (s and f.startswith(codecs.BOM_UTF8))]
    for n, top in enumerate(tops):
        files.append(tmp_path / f"f{n}.rb")
        files[-1].write_bytes(top + b"\n$enc = __ENCODING__\n")
    done = subprocess.run([ruby, "-e", LOAD_ALL, *map(str, files)], capture_output=True, timeout=60)
    named = [line.removeprefix("#<Encoding:").removesuffix(">") for line in done.stdout.decode().split()]
    assert len(named) == len(files), done.stderr
    disagree = [(f.read_bytes(), r) for f, r in zip(files, named) if _ours(f.read_bytes()) != _rubys(r, f.read_bytes())]
    assert disagree == [], f"{len(disagree)} of {len(files)} forms read otherwise than Ruby reads them"


@pytest.mark.parametrize(("name", "top"), [
    ("unknown", b"# encoding: no-such-encoding\n"),
    ("not ASCII compatible", b"# encoding: UTF-16LE\n"),
    ("depends on the machine", b"# encoding: locale\n"),
])
def test_a_ruby_encoding_that_cannot_be_edited_is_refused_in_one_line(tmp_path: Path, name: str, top: bytes) -> None:
    data = top + b"def f\n  1\nend\n"
    path = _workspace(tmp_path, "m.rb", data)
    with pytest.raises(UndecodableFile, match=name) as refused:
        Gateway(tmp_path, use_servers=False).edit("m.rb", "  1", "  2")
    assert "\n" not in str(refused.value) and path.read_bytes() == data


@pytest.mark.parametrize(("name", "top", "body"), [
    ("lib.rs", b"// coding: latin-1\n", b'fn main() { let s = "caf\xc3\xa9"; }\n'),
    ("app.js", b"// -*- coding: latin-1 -*-\n", b'const s = "caf\xc3\xa9";\n'),
    # These two Python's cookie rule read as Latin-1 (a `#` line naming `coding:`): "café" became "cafÃ©".
    ("build.sh", b"#!/bin/sh\n# -*- coding: latin-1 -*-\n", b'echo "caf\xc3\xa9"\n'),
    ("emacs.c", b'#define COOKIE "coding: latin-1"\n', b'const char *s = "caf\xc3\xa9";\n'),
])
def test_a_coding_comment_means_nothing_outside_python_and_ruby(tmp_path: Path, name: str, top: bytes, body: bytes) -> None:
    path = _workspace(tmp_path, name, top + body)
    Gateway(tmp_path, use_servers=False).edit(name, "caf\u00e9", "th\u00e9")
    assert path.read_bytes() == top + body.replace(b"caf\xc3\xa9", b"th\xc3\xa9")


def test_latin_1_bytes_under_a_latin_1_comment_in_rust_are_refused_as_not_utf_8(tmp_path: Path) -> None:
    data = b'// coding: latin-1\nfn main() { let s = "caf\xe9"; }\n'
    path = _workspace(tmp_path, "lib.rs", data)
    with pytest.raises(UndecodableFile, match=r"lib.rs: not decodable as text \('utf-8' codec"):
        Gateway(tmp_path, use_servers=False).edit("lib.rs", "main", "start")
    assert path.read_bytes() == data


def test_a_utf_8_bom_is_kept_in_any_language(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbfpackage main\n\nfunc main() {}\n"
    path = _workspace(tmp_path, "main.go", data)
    Gateway(tmp_path, use_servers=False).edit("main.go", "func main() {}", "func main() { println() }")
    assert path.read_bytes() == b"\xef\xbb\xbfpackage main\n\nfunc main() { println() }\n"


def test_a_python_coding_cookie_still_applies_to_python(tmp_path: Path) -> None:
    data = "# -*- coding: latin-1 -*-\ns = 'caf\u00e9'\n".encode("latin-1")
    path = _workspace(tmp_path, "m.py", data)
    Gateway(tmp_path, use_servers=False).edit("m.py", "caf\u00e9", "th\u00e9")
    assert path.read_bytes() == data.replace(b"caf\xe9", b"th\xe9")


# Windows-31J (cp932): NEC's row 13 "≒" (0x87 0x90) decodes to U+2252, which encodes back as
# JIS's own 0x81 0xE0: the text cannot give back the file's bytes.
CP932 = b'# encoding: cp932\nAPPROX = "\x87\x90"\ndef f\n  1\nend\n'


@pytest.mark.usefixtures("processes")
def test_a_file_that_does_not_round_trip_is_refused_on_every_surface(tmp_path: Path) -> None:
    path = _workspace(tmp_path, "m.rb", CP932)
    with pytest.raises(Unencodable, match=r"^m.rb: its cp932 bytes do not come back unchanged"):
        Gateway(tmp_path, use_servers=False).edit("m.rb", "  1", "  2")
    denied = _hook(path, {"old_string": "  1", "new_string": "  2"})
    assert denied is not None
    reason = denied["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert "cp932 bytes do not come back unchanged" in reason and "\n" not in reason
    done = subprocess.run([sys.executable, "-m", "gateway", "edit", "m.rb", "--old", "  1", "--new", "  2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.count("\n") == 1 and "cp932 bytes do not come back" in done.stderr
    assert path.read_bytes() == CP932


def test_a_language_names_its_encoding_rule_as_data(tmp_path: Path) -> None:
    rules = {lang.name: lang.encoding_cookie for lang in LanguageRegistry(data_dir("langs"), data_dir("queries")).languages.values()}
    assert rules["python"] == "python" and rules["ruby"] == "ruby"
    assert {rule for name, rule in rules.items() if name not in ("python", "ruby")} == {""}
    (tmp_path / "odd.toml").write_text((data_dir("langs") / "go.toml").read_text().replace('encoding_cookie = ""', 'encoding_cookie = "perl"'))
    with pytest.raises(ValueError, match="encoding_cookie must be one of"):
        LanguageRegistry(tmp_path, data_dir("queries"))
