"""The replay benchmark's edits cut five ways: git's hunks, and four cuts that owe nothing to the gateway.

- `git`: every hunk of `git diff -U2`, applied alone to the file before the commit (hunks.py);
- `hunks`: difflib hunks with random context widths, one after another (polyglot_cuts.py);
- `middle`: old_strings that start and end mid-line, a long change split in two mid-definition;
- `write`: the file after the commit as one edit whose old_string is the whole file;
- `formatted`: the same, the after-file run through the language's formatter (ruff format,
  gofmt, rustfmt, TypeScript's formatDocument; the languages without one installed send none).
Each `hunks` and `middle` edit is judged on the text the cuts before it left, as an agent's
edits one after another are. Cuts are seeded by commit and path: a run is repeatable.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from benchmarks.hunks import ChangedFile, ReplayEdit, changed_files, replay_edits
from benchmarks.polyglot_cuts import formatted, hunk_cuts, middle_cuts, seeded
from gateway.langs import LanguageRegistry

CUTS = ("git", "hunks", "middle", "write", "formatted")


def cut_edits(cut: str, repo: Path, count: int, registry: LanguageRegistry, languages: set[str] | None) -> Iterator[ReplayEdit]:
    """The edits of the last `count` commits, cut as `cut` says."""
    if cut == "git":
        yield from replay_edits(repo, count, registry, languages)
        return
    for changed in changed_files(repo, count, registry, languages):
        yield from file_edits(cut, changed)


def file_edits(cut: str, changed: ChangedFile) -> Iterator[ReplayEdit]:
    def edit(before: str, old: str, new: str) -> ReplayEdit:
        line = before.count("\n", 0, before.index(old)) + 1
        return ReplayEdit(changed.repo, changed.parent, changed.commit, changed.path, line, changed.language, before, old, new)

    if cut in ("write", "formatted"):
        after = changed.after if cut == "write" else getattr(formatted(changed.language, changed.after), "text", None)
        if after is not None and after != changed.before and changed.before.strip():
            yield edit(changed.before, changed.before, after)
        return
    cutter = hunk_cuts if cut == "hunks" else middle_cuts
    text = changed.before
    for part in cutter(changed.before, changed.after, seeded(cut, changed.commit, changed.path)):
        yield edit(text, part.old, part.new)
        text = text.replace(part.old, part.new, 1)
