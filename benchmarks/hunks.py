"""Real edits from git history: every hunk of `git diff -U2` between a commit and its
parent, as the (old_string, new_string) an agent would send for it.

old_string is the hunk's old side (its two lines of context and the lines it removes),
new_string its new side, both taken from the two files themselves. When old_string is not
unique in the file, context is widened a line at a time on both sides, the way an agent
makes an edit unique; a hunk that stays ambiguous is dropped.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from gateway.langs import LanguageRegistry
from gateway.syntax import language_for

SKIPPED_PARTS = {"dist", "build", "node_modules", "vendor", "third_party", "__pycache__"}
GENERATED = (".d.ts", ".min.js", ".pb.go", "_pb2.py")
# A file that says at its top that a tool wrote it (Catch2's catch_amalgamated.hpp): not an edit an agent makes.
GENERATED_MARK = re.compile(r"@generated|do not edit|^\W*Generated: |is an amalgamation of", re.IGNORECASE | re.MULTILINE)
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@", re.MULTILINE)
MAX_WIDENING = 8


@dataclass(frozen=True)
class ReplayEdit:
    repo: Path
    parent: str
    commit: str
    path: str
    line: int
    language: str
    before: str
    old: str
    new: str


def checkout(repo: Path, revision: str, target: Path) -> None:
    """The repository's tree at `revision`, written out into `target` (no .git)."""
    archive = subprocess.run(["git", "-C", str(repo), "archive", revision], capture_output=True, check=True, timeout=300)
    subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True, timeout=300)


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True, timeout=300)
    return done.stdout.decode("utf-8", "replace")


def _show(repo: Path, revision: str, path: str) -> str | None:
    done = subprocess.run(["git", "-C", str(repo), "show", f"{revision}:{path}"], capture_output=True, timeout=300)
    try:
        return done.stdout.decode("utf-8") if done.returncode == 0 and b"\x00" not in done.stdout else None
    except UnicodeDecodeError:
        return None


def commit_pairs(repo: Path, count: int) -> list[tuple[str, str]]:
    """(parent, commit) for the last `count` non-merge commits that have a parent."""
    pairs = []
    for line in _git(repo, "log", "--no-merges", "--format=%H %P", f"-n{count}").splitlines():
        parts = line.split()
        if len(parts) >= 2:
            pairs.append((parts[1], parts[0]))
    return pairs


def _lines(text: str) -> list[str]:
    """Lines as git counts them: split after each LF, endings kept."""
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return lines + [parts[-1]] if parts[-1] else lines


def edit_for(before: str, after: str, hunk: tuple[int, int, int, int]) -> tuple[str, str, int] | None:
    """(old_string, new_string, first line) of one hunk applied alone to `before`."""
    old_start, old_count, new_start, new_count = hunk
    b_lines, a_lines = _lines(before), _lines(after)
    first = old_start - 1 if old_count else old_start
    old_lines = b_lines[first : first + old_count]
    new_lines = a_lines[(new_start - 1 if new_count else new_start) :][:new_count]
    head, tail = first, first + old_count
    for _ in range(MAX_WIDENING + 1):
        old = "".join(b_lines[head:first] + old_lines + b_lines[first + old_count : tail])
        if old and before.count(old) == 1:
            new = "".join(b_lines[head:first] + new_lines + b_lines[first + old_count : tail])
            return old, new, head + 1
        if head == 0 and tail >= len(b_lines):
            return None
        head, tail = max(head - 1, 0), min(tail + 1, len(b_lines))
    return None


def _hunks(repo: Path, parent: str, commit: str, path: str) -> list[tuple[int, int, int, int]]:
    diff = _git(repo, "diff", "-U2", "--no-color", "--no-ext-diff", parent, commit, "--", path)
    return [
        (int(a), int(b) if b else 1, int(c), int(d) if d else 1)
        for a, b, c, d in HUNK.findall(diff)
    ]


def _wanted(path: str) -> bool:
    return not (set(Path(path).parts) & SKIPPED_PARTS) and not path.endswith(GENERATED)


@dataclass(frozen=True)
class ChangedFile:
    """A file of a language with a symbol backend that a commit changed: before and after it."""

    repo: Path
    parent: str
    commit: str
    path: str
    language: str
    before: str
    after: str


def changed_files(repo: Path, count: int, registry: LanguageRegistry, languages: set[str] | None) -> Iterator[ChangedFile]:
    """Every file of the last `count` commits in a language with a symbol backend (not generated, not vendored)."""
    for parent, commit in commit_pairs(repo, count):
        paths = _git(repo, "diff", "--name-only", "--diff-filter=M", "--no-renames", parent, commit).splitlines()
        for path in paths:
            if not _wanted(path) or not any(lang.symbol_backend for lang in registry.candidates(path)):
                continue
            before, after = _show(repo, parent, path), _show(repo, commit, path)
            if before is None or after is None or GENERATED_MARK.search(before, 0, 2000):
                continue
            lang = language_for(registry, path, before)
            if lang is None or (languages is not None and lang.name not in languages):
                continue
            yield ChangedFile(repo, parent, commit, path, lang.name, before, after)


def replay_edits(repo: Path, count: int, registry: LanguageRegistry, languages: set[str] | None) -> Iterator[ReplayEdit]:
    """Every hunk of the last `count` commits in files of a language with a symbol backend."""
    for changed in changed_files(repo, count, registry, languages):
        for hunk in _hunks(repo, changed.parent, changed.commit, changed.path):
            edit = edit_for(changed.before, changed.after, hunk)
            if edit is not None:
                old, new, line = edit
                yield ReplayEdit(repo, changed.parent, changed.commit, changed.path, line, changed.language, changed.before, old, new)
