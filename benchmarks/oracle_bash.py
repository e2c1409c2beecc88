"""Bash's own parser as an oracle: `bash --pretty-print` (bash >= 5.1) reads a script without
running it and prints every function definition in one canonical form, comments dropped
(`bash -n` would only say whether the script parses).

The functions' names, headers and bodies (what the labels compare) are bash's. Where each
one sits in the original text (what edits are generated around) is found by searching for
its header in order and matching braces, which is approximate for bodies holding unbalanced
braces in heredocs; it never decides a label.
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

from benchmarks.oracle import OracleDefinition

_HEADER = re.compile(r"^(?P<indent>[ \t]*)(?P<name>[^\s()]+) \(\) ?$")


def _canonical(printed: str) -> list[tuple[str, str, str]]:
    """(name path, header, body) of each function in bash's canonical print, in order."""
    lines = printed.split("\n")
    found: list[list[str]] = []  # [name path, header, body]
    open_functions: list[tuple[str, int, int]] = []  # (indent, index in found, first body line)
    for number, line in enumerate(lines):
        while open_functions and line.startswith(open_functions[-1][0] + "}"):
            _, at, first = open_functions.pop()
            found[at][2] = "\n".join(lines[first : number + 1])
        match = _HEADER.match(line)
        if match:
            parent = found[open_functions[-1][1]][0] + "/" if open_functions else ""
            found.append([parent + match.group("name"), match.group("name"), ""])
            open_functions.append((match.group("indent"), len(found) - 1, number + 1))
    return [(name_path, header, body) for name_path, header, body in found]


def _closing(text: str, at: int) -> int:
    """Just past the brace or parenthesis that closes the one opening at `at` (quotes and
    comments skipped); the end of the text when none does."""
    opener = text[at]
    closer = "}" if opener == "{" else ")"
    depth, index, quote = 0, at, ""
    while index < len(text):
        char = text[index]
        if quote:
            quote = "" if char == quote and text[index - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t\n;"):
            index = text.find("\n", index)
            if index < 0:
                break
        elif char == opener:
            depth += 1
        elif char == closer:
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


class BashOracle:
    name = "bash --pretty-print"

    def __init__(self, bash: str) -> None:
        self.bash = bash

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        with tempfile.NamedTemporaryFile("w", suffix=".sh", encoding="utf-8") as script:
            script.write(text)
            script.flush()
            done = subprocess.run([self.bash, "--pretty-print", script.name], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            return None
        result, position = [], 0
        for name_path, header, body in _canonical(done.stdout):
            name = header
            pattern = re.compile(rf"^[ \t]*(?:function[ \t]+)?(?P<name>{re.escape(name)})[ \t]*(?:\([ \t]*\))?[ \t\n]*(?P<open>[{{(])", re.M)
            match = pattern.search(text, position) or pattern.search(text)
            if match is None:
                continue
            start, end = text.rfind("\n", 0, match.start("name")) + 1, _closing(text, match.start("open"))
            result.append(OracleDefinition(match.start("name"), match.end("name"), start, end, name_path, "function", header, body))
            position = match.end("name")
        return sorted(result, key=lambda d: d.start)
