"""Real code at the sizes issue 36 measures, made from this Python's standard library (code
nobody here wrote; nothing is downloaded or committed).

- `long_python(lines)`: one Python file of about `lines` lines: textwrap.py first (so
  `TextWrapper._split_chunks`, the method `HEADER_OLD`/`HEADER_NEW` change, is there once), then
  whole standard-library modules in a fixed order until the size is reached. Each appended module loses its `from __future__` lines (legal
  only at a file's top); the rest is kept byte for byte, so the file parses.
- `python_workspace(dest, files)`: a git workspace of `files` standard-library Python files, in
  their own directory layout; past the library's size, the layout again under `copy2/`, `copy3/`…
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sysconfig
from pathlib import Path

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FIRST = "textwrap.py"
HEADER_OLD = "    def _split_chunks(self, text):\n        text = self._munge_whitespace(text)\n"
HEADER_NEW = "    def _split_chunks(self, text, keep=None):\n        text = self._munge_whitespace(text)\n"
SKIPPED = {"site-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__", "turtledemo"}


def stdlib_files() -> list[Path]:
    """The standard library's Python files (tests and site-packages left out), in a fixed order."""
    return sorted(p for p in STDLIB.rglob("*.py") if not SKIPPED.intersection(p.relative_to(STDLIB).parts) and p.is_file())


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return False
    return True


def long_python(lines: int) -> str:
    """About `lines` lines of real Python (at least textwrap.py's 491), parsing as one module."""
    parts = [(STDLIB / FIRST).read_text("utf-8")]
    count = parts[0].count("\n")
    for path in stdlib_files():
        if count >= 0.99 * lines:
            break
        if path.relative_to(STDLIB) == Path(FIRST):
            continue
        try:
            text = path.read_text("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        text = "\n".join(line for line in text.splitlines() if not line.startswith("from __future__ import")) + "\n"
        if count + text.count("\n") > 1.05 * lines or "def _split_chunks(self, text):" in text or not _parses(text):
            continue  # one that would overshoot the size is passed over for a smaller one
        parts.append(f"\n\n# ---- {path.relative_to(STDLIB)} ----\n" + text)
        count += text.count("\n") + 3
    return "".join(parts)


def python_workspace(dest: Path, files: int) -> Path:
    """A git workspace at `dest` holding `files` standard-library Python files (committed)."""
    dest.mkdir(parents=True, exist_ok=True)
    sources = stdlib_files()
    made, copy = 0, 1
    while made < files:
        prefix = dest if copy == 1 else dest / f"copy{copy}"
        for path in sources:
            if made >= files:
                break
            target = prefix / path.relative_to(STDLIB)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            made += 1
        copy += 1
    subprocess.run(["git", "init", "-q", str(dest)], check=True)
    subprocess.run(["git", "-C", str(dest), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(dest), "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "corpus"], check=True)
    return dest.resolve()
