"""The `*** Begin Patch` format (Codex's apply_patch, also sent by OpenCode and Copilot CLI for
GPT-5 models): parsed, applied and written exactly as Codex does it (a port of openai/codex
`codex-rs/apply-patch`: parser.rs, lib.rs, seek_sequence.rs), so the gateway judges the
bytes the host will write and can rewrite a file's section so that the host's own applier
writes a verified result."""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from gateway.errors import GatewayError

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
END_OF_FILE = "*** End of File"
PUNCTUATION = {
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
}


class PatchError(GatewayError):
    """The patch does not parse, or does not apply to the files as they are (Codex's message)."""

    kind = "patch"


@dataclass(frozen=True)
class Chunk:
    """One `@@` section of an update: the context line to find first, and its lines in order,
    each (" ", "-" or "+", text). Context lines stay in the file as they are (bytes, line end);
    removed lines go; added lines get the file's line ending."""

    context: str | None
    ops: tuple[tuple[str, str], ...]
    end_of_file: bool = False

    @property
    def old(self) -> tuple[str, ...]:
        return tuple(text for kind, text in self.ops if kind != "+")


@dataclass(frozen=True)
class FileChange:
    kind: Literal["add", "delete", "update"]
    path: str
    move_to: str | None = None
    content: str = ""
    chunks: tuple[Chunk, ...] = ()
    lines: tuple[int, int] = (0, 0)  # the change's lines in the patch text, [start, end)


@dataclass(frozen=True)
class Patch:
    changes: tuple[FileChange, ...]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class PathEffect:
    """One path's net change over a whole patch, whatever the operations were: its text before
    the patch (None: absent) against its text after (None: deleted, or moved away). `changes`:
    the indexes of the patch's changes that touch it (as their file or their Move destination);
    `moved_to`: where a Move took its text, when it ends absent so; `moved_in`: a Move wrote it."""

    path: Path
    before: str | None
    after: str | None
    changes: tuple[int, ...]
    moved_to: Path | None = None
    moved_in: bool = False


@dataclass(frozen=True)
class NetEffects:
    """Every path a patch touches, in the order it first does. `failure`: where the host's applier
    stops (it writes the changes before that one all the same); None when the patch applies."""

    paths: tuple[PathEffect, ...]
    failure: PatchError | None = None


def _strip_heredoc(lines: list[str]) -> list[str]:
    """Codex's lenient mode: a patch wrapped in `<<'EOF'` ... `EOF` is the patch inside."""
    if len(lines) >= 4 and lines[0] in ("<<EOF", "<<'EOF'", '<<"EOF"') and lines[-1].endswith("EOF"):
        return lines[1:-1]
    return lines


def parse_patch(text: str) -> Patch:
    lines = _strip_heredoc([line.removesuffix("\r") for line in text.strip().split("\n")])
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError("invalid patch: The first line of the patch must be '*** Begin Patch'")
    if lines[-1].strip() != END:
        raise PatchError("invalid patch: The last line of the patch must be '*** End Patch'")
    changes, index = [], 1
    while index < len(lines) - 1:
        change, index = _parse_change(lines, index)
        changes.append(change)
    return Patch(tuple(changes), tuple(lines))


def _parse_change(lines: list[str], index: int) -> tuple[FileChange, int]:
    first = lines[index].strip()
    if first.startswith(ADD):
        end = index + 1
        while end < len(lines) - 1 and lines[end].startswith("+"):
            end += 1
        content = "".join(line[1:] + "\n" for line in lines[index + 1 : end])
        return FileChange("add", first[len(ADD) :], content=content, lines=(index, end)), end
    if first.startswith(DELETE):
        return FileChange("delete", first[len(DELETE) :], lines=(index, index + 1)), index + 1
    if not first.startswith(UPDATE):
        raise PatchError(
            f"invalid hunk at line {index + 1}, '{first}' is not a valid hunk header. Valid hunk headers: "
            "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'"
        )
    path, end, move_to = first[len(UPDATE) :], index + 1, None
    if end < len(lines) - 1 and lines[end].startswith(MOVE):
        move_to, end = lines[end][len(MOVE) :], end + 1
    chunks: list[Chunk] = []
    while end < len(lines) - 1:
        if not lines[end].strip():
            end += 1
            continue
        if lines[end].startswith("***"):
            break
        chunk, end = _parse_chunk(lines, end, not chunks)
        chunks.append(chunk)
    if not chunks:
        raise PatchError(f"invalid hunk at line {index + 1}, Update file hunk for path '{path}' is empty")
    return FileChange("update", path, move_to, chunks=tuple(chunks), lines=(index, end)), end


def _parse_chunk(lines: list[str], index: int, first: bool) -> tuple[Chunk, int]:
    context: str | None = None
    if lines[index] == "@@":
        index += 1
    elif lines[index].startswith("@@ "):
        context, index = lines[index][3:], index + 1
    elif not first:
        raise PatchError(f"invalid hunk at line {index + 1}, Expected update hunk to start with a @@ context marker, got: '{lines[index]}'")
    ops: list[tuple[str, str]] = []
    parsed, end_of_file = 0, False
    while index < len(lines) - 1:
        line = lines[index]
        if line == END_OF_FILE:
            if parsed == 0:
                raise PatchError(f"invalid hunk at line {index + 1}, Update hunk does not contain any lines")
            end_of_file, index = True, index + 1
            break
        marker = line[:1]
        if marker == "":
            ops.append((" ", ""))
        elif marker in (" ", "+", "-"):
            ops.append((marker, line[1:]))
        elif parsed == 0:
            raise PatchError(
                f"invalid hunk at line {index + 1}, Unexpected line found in update hunk: '{line}'. Every line should "
                "start with ' ' (context line), '+' (added line), or '-' (removed line)"
            )
        else:
            break
        parsed, index = parsed + 1, index + 1
    if parsed == 0:
        raise PatchError(f"invalid hunk at line {index + 1}, Update hunk does not contain any lines")
    return Chunk(context, tuple(ops), end_of_file), index


def _normalise(text: str) -> str:
    return "".join(PUNCTUATION.get(char, char) for char in text.strip())


def seek(lines: list[str], pattern: tuple[str, ...], start: int, end_of_file: bool) -> int | None:
    """Where `pattern` is found at or after `start`: exact first, then ignoring trailing
    whitespace, then surrounding whitespace, then Unicode punctuation (Codex's seek_sequence)."""
    if not pattern:
        return start
    if len(pattern) > len(lines):
        return None
    first = len(lines) - len(pattern) if end_of_file else start
    candidates = range(first, len(lines) - len(pattern) + 1)
    comparisons: list[Callable[[str], str]] = [lambda s: s, str.rstrip, str.strip, _normalise]
    for compare in comparisons:
        wanted = [compare(line) for line in pattern]
        for at in candidates:
            if all(compare(lines[at + k]) == wanted[k] for k in range(len(pattern))):
                return at
    return None


def _lines(text: str) -> list[tuple[str, str]]:
    """The text's lines as (content, line end), a line end being CRLF, LF or CR."""
    parts = re.split(r"(\r\n|\n|\r)", text)
    lines = list(zip(parts[0::2], [*parts[1::2], ""]))
    return lines[:-1] if lines and lines[-1] == ("", "") else lines


def _replacements(contents: list[str], change: FileChange) -> list[tuple[int, int, tuple[tuple[str, str], ...]]]:
    found: list[tuple[int, int, tuple[tuple[str, str], ...]]] = []
    index = 0
    for chunk in change.chunks:
        if chunk.context is not None:
            at = seek(contents, (chunk.context,), index, False)
            if at is None:
                raise PatchError(f"Failed to find context '{chunk.context}' in {change.path}")
            index = at + 1
        ops, old = chunk.ops, chunk.old
        if not old:
            found.append((len(contents), 0, ops))
            continue
        at = seek(contents, old, index, chunk.end_of_file)
        if at is None and old[-1] == "":  # retried without the trailing empty line
            ops, old = _without_last_empty(ops), old[:-1]
            at = seek(contents, old, index, chunk.end_of_file)
        if at is None:
            raise PatchError(f"Failed to find expected lines in {change.path}:\n" + "\n".join(chunk.old))
        found.append((at, len(old), ops))
        index = at + len(old)
    return sorted(found, key=lambda item: item[0])


def _without_last_empty(ops: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """The chunk without the empty line that ends its old lines, and without the last of its new
    lines if that one is empty (Codex retries a chunk so when it does not match)."""
    edited = list(ops)
    last_old = max(k for k, (kind, _) in enumerate(edited) if kind != "+")
    if edited[last_old][0] == " ":
        edited[last_old] = ("+", "")  # still a new line, no longer an old one
    else:
        del edited[last_old]
    last_new = max((k for k, (kind, _) in enumerate(edited) if kind != "-"), default=None)
    if last_new is not None and edited[last_new][1] == "":
        del edited[last_new]
    return tuple(edited)


def apply_update(before: str, change: FileChange) -> str:
    """The file after `change` (an update), as Codex writes it: context lines kept byte for byte,
    added lines ending as the file's first line does, and a line end after the last line."""
    lines = _lines(before)
    ending = next((end for _, end in lines if end), "\n")
    if lines and not lines[-1][1]:
        lines[-1] = (lines[-1][0], ending)
    for at, length, ops in reversed(_replacements([content for content, _ in lines], change)):
        kept, cursor = [], at
        for kind, text in ops:
            if kind == " ":
                kept.append(lines[cursor])
            elif kind == "+":
                kept.append((text, ending))
            cursor += kind != "+"
        lines[at : at + length] = kept
    return "".join(content + end for content, end in lines)


def _applied(change: FileChange, path: Path, before: str | None) -> str | None:
    if change.kind == "add":
        return change.content
    if before is None:
        raise PatchError(f"Failed to read file to {'delete' if change.kind == 'delete' else 'update'} {path}: No such file or directory")
    return None if change.kind == "delete" else apply_update(before, change)


def net_effects(patch: Patch, cwd: Path, read: Callable[[Path], str | None], locate: Callable[[Path], Path] | None = None) -> NetEffects:
    """Each path's text before the patch and after it, applied change by change as Codex applies
    them (`locate`: the file a change's path names, so that two spellings of one file are one
    path). A Move writes its destination, then removes its file: a Move onto the file itself
    deletes it. A change that fails stops the patch; the ones before it stand."""
    locate = locate or (lambda path: Path(os.path.abspath(path)))
    original: dict[Path, str | None] = {}
    current: dict[Path, str | None] = {}
    touched: dict[Path, list[int]] = {}
    moved_to: dict[Path, Path] = {}
    moved_in: set[Path] = set()

    def text_of(path: Path) -> str | None:
        if path not in original:
            original[path] = read(path)
        return current[path] if path in current else original[path]

    failure = None
    for index, change in enumerate(patch.changes):
        path = locate(cwd / change.path)
        try:
            after = _applied(change, path, text_of(path))
        except PatchError as error:
            failure = error
            break
        touched.setdefault(path, []).append(index)
        if change.move_to is None:
            current[path] = after
            continue
        destination = locate(cwd / change.move_to)
        text_of(destination)
        touched.setdefault(destination, []).append(index)
        current[destination], current[path] = after, None
        moved_to[path] = destination
        moved_in.add(destination)
    paths = tuple(
        PathEffect(path, original[path], current.get(path, original[path]), tuple(changes), moved_to.get(path) if current.get(path) is None else None,
                   path in moved_in and current.get(path) is not None)
        for path, changes in touched.items()
    )
    return NetEffects(paths, failure)


def _section(path: str, move_to: str | None, chunks: list[list[str]]) -> str:
    head = [UPDATE + path, *([MOVE + move_to] if move_to else [])]
    return "\n".join([*head, *(line for chunk in chunks for line in chunk)]) + "\n"


def _chunks(old: list[str], new: list[str], context: int) -> list[list[str]]:
    if context < 0:  # the whole file
        return [["@@", *(f"-{line}" for line in old), *(f"+{line}" for line in new)]]
    chunks = []
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(context):
        body = ["@@"]
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                body += [f" {line}" for line in old[i1:i2]]
                continue
            body += [f"-{line}" for line in old[i1:i2]] + [f"+{line}" for line in new[j1:j2]]
        chunks.append(body)
    return chunks


def update_section(path: str, before: str, after: str, move_to: str | None = None) -> str:
    """An `*** Update File:` section that Codex's applier turns from `before` into `after` byte for
    byte: minimal hunks with context, widened until they can only land where meant, else the
    whole file. PatchError when `after` cannot be written by the applier (no final newline)."""
    if after and not after.endswith(("\n", "\r")):
        raise PatchError(f"{path}: a patch always leaves a file ending with a newline, and this result has none")
    old = [content for content, _ in _lines(before)]
    new = [content for content, _ in _lines(after)]
    for context in (3, 8, 20, -1):
        section = _section(path, move_to, _chunks(old, new, context))
        try:
            [change] = parse_patch(render_patch([section])).changes
            if apply_update(before, change) == after:
                return section
        except PatchError:
            continue
    raise PatchError(f"{path}: no patch section gives the routed result")


def render_patch(sections: list[str]) -> str:
    return BEGIN + "\n" + "".join(sections) + END + "\n"


def replace_sections(patch_text: str, replacements: dict[int, str | None]) -> str:
    """The patch with the given changes' sections replaced (None: left out), every other line as
    the model wrote it."""
    if not replacements:
        return patch_text
    patch = parse_patch(patch_text)
    lines = list(patch.lines)
    out: list[str] = [lines[0]]
    cursor = 1
    for index, change in enumerate(patch.changes):
        start, end = change.lines
        out += lines[cursor:start]
        if index not in replacements:
            out += lines[start:end]
        elif (replacement := replacements[index]) is not None:
            out += replacement.rstrip("\n").split("\n")
        cursor = end
    out += lines[cursor:]
    return "\n".join(out) + "\n"


def extract_heredoc(command: str) -> tuple[str | None, str] | None:
    """(the directory it runs in, the patch) for `[cd DIR &&] apply_patch <<'EOF' ... EOF`; None for
    any other command."""
    head, newline, rest = command.strip().partition("\n")
    if not newline:
        return None
    words = head.split()
    directory = None
    if len(words) >= 3 and words[0] == "cd" and words[2] == "&&":
        directory, words = words[1].strip("'\""), words[3:]
    if len(words) not in (2, 3) or words[0] not in ("apply_patch", "applypatch"):
        return None
    marker = "".join(words[1:])
    if not marker.startswith("<<"):
        return None
    delimiter = marker[2:].lstrip("-").strip("'\"")
    body = rest.split("\n")
    if not delimiter or delimiter not in body:
        return None
    return directory, "\n".join(body[: body.index(delimiter)]) + "\n"
