"""Real third-party source per language, sampled deterministically (seeded).

Where the source comes from on a machine set up by `make setup` and `make corpus`
(which adds Debian's ruby, openjdk-17-source and a Rust crate's source, and the Kotlin
standard library's sources from Maven Central). A language
with no source here is reported as such, never filled with text written for the test.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MIN_LINES, MAX_LINES = 20, 2500


@dataclass(frozen=True)
class SourceFile:
    origin: str  # where it came from, for the report
    name: str  # the name it gets in the benchmark workspace (the extension decides the language)
    text: str


def _goroot() -> str:
    """The machine's Go source tree (`go env GOROOT`), else Debian's Go 1.19's."""
    go = shutil.which("go")
    if go:
        done = subprocess.run([go, "env", "GOROOT"], capture_output=True, text=True, timeout=30)
        if done.returncode == 0 and done.stdout.strip():
            return str(Path(done.stdout.strip()) / "src")
    return "/usr/lib/go-1.19/src"


GOROOT_SRC = _goroot()
# The Kotlin standard library's sources, from Maven Central (`make corpus` fetches them with mvn).
KOTLIN_SOURCES = Path.home() / ".m2/repository/org/jetbrains/kotlin/kotlin-stdlib/2.1.0/kotlin-stdlib-2.1.0-sources.jar"

# language: (roots, accepted suffixes, suffix given in the workspace)
SOURCES: dict[str, tuple[list[str], tuple[str, ...], str]] = {
    "python": ([sysconfig.get_paths()["stdlib"]], (".py",), ".py"),
    "go": ([GOROOT_SRC], (".go",), ".go"),
    "javascript": (["/usr/lib/node_modules/npm", str(ROOT / ".tools/node/node_modules")], (".js",), ".js"),
    "typescript": ([str(ROOT / ".tools/node/node_modules")], (".ts",), ".ts"),
    "c": ([GOROOT_SRC], (".c",), ".c"),
    "cpp": (["/usr/include/c++/12/bits"], (".h", ".tcc"), ".hpp"),
    "ruby": (["/usr/lib/ruby/3.1.0"], (".rb",), ".rb"),
    "rust": (["/usr/share/cargo/registry"], (".rs",), ".rs"),
    "java": (["/usr/lib/jvm/openjdk-17/lib/src.zip"], (".java",), ".java"),
    "tsx": ([], (".tsx",), ".tsx"),
    "kotlin": ([str(KOTLIN_SOURCES)], (".kt",), ".kt"),
    "csharp": ([], (".cs",), ".cs"),
    # Shell scripts that Debian's git and dpkg ship.
    "bash": (["/usr/share/doc/git/contrib", "/usr/share/dpkg", "/usr/share/ucf"], (".sh", ".bash"), ".sh"),
}
# Within an archive of sources, the part sampled (the JDK's java.base module).
ZIP_PREFIX = {"java": "java.base/"}
SKIP_DIRS = {"testdata", "test", "tests", "__pycache__", "site-packages", "idlelib", "lib2to3"}


def _walk(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    found = []
    for directory, subdirs, files in os.walk(root, followlinks=True):
        subdirs[:] = sorted(d for d in subdirs if d not in SKIP_DIRS and not d.startswith("."))
        found += [Path(directory) / f for f in sorted(files) if f.endswith(suffixes) and not f.endswith("_test.go")]
    return found


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    return text if MIN_LINES <= text.count("\n") <= MAX_LINES and "\x00" not in text else None


def _from_zip(archive: Path, suffixes: tuple[str, ...], count: int, rng: random.Random, prefix: str) -> list[SourceFile]:
    with zipfile.ZipFile(archive) as bundle:
        names = sorted(n for n in bundle.namelist() if n.endswith(suffixes) and n.startswith(prefix))
        picked = []
        for name in rng.sample(names, min(len(names), count * 4)):
            try:
                text = bundle.read(name).decode("utf-8")
            except UnicodeDecodeError:
                continue
            if MIN_LINES <= text.count("\n") <= MAX_LINES:
                picked.append(SourceFile(f"{archive}!{name}", Path(name).name, text))
            if len(picked) == count:
                break
        return picked


def sample(language: str, count: int, seed: int, corpus: Path | None = None) -> list[SourceFile]:
    """`count` files of `language` (fewer if the machine has fewer), the same ones for the same seed."""
    roots, suffixes, workspace_suffix = SOURCES[language]
    rng = random.Random(f"{seed}:{language}")
    if corpus is not None:
        roots = [str(corpus)]
    candidates: list[Path] = []
    for root in map(Path, roots):
        if root.suffix in (".zip", ".jar") and root.exists():
            return _from_zip(root, suffixes, count, rng, ZIP_PREFIX.get(language, ""))
        if root.is_dir():
            candidates += _walk(root, suffixes)
    picked: list[SourceFile] = []
    used: set[str] = set()
    for path in rng.sample(candidates, len(candidates)):
        text = _read(path)
        name = f"f{len(picked):03d}_{path.stem.replace('.', '_')}{workspace_suffix}"
        if text is None or path.name in used:
            continue
        used.add(path.name)
        picked.append(SourceFile(str(path), name, text))
        if len(picked) == count:
            break
    return picked
