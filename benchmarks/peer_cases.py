"""The files, symbols and text of the head-to-head with Serena (benchmarks/serena_peer.py).

Real code nobody here wrote, found on the machine at run time and never committed: this Python's
argparse.py, Go's go/ast package, node-pty's TypeScript sources (an npm dependency of the agent
hosts that `make hosts` installs). Each operation targets a symbol that both tools name the same
way: Serena lists Go methods flat, so the Go targets are functions.
"""

from __future__ import annotations

import functools
import subprocess
import sysconfig
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    language: str
    serena_server: str  # Serena's name for the language server (its project.yml)
    root: str  # the directory whose files are copied
    patterns: tuple[str, ...]  # which of them (globs), `exclude` left out
    path: str  # the file operated on, relative to the workspace
    target: str  # name path found with its body, then replaced
    anchor: str  # name path the code is inserted after
    insert: str  # the code inserted, the same text to both tools
    comment: str  # the language's line comment
    rename: str  # name path renamed (to `new_name`), then renamed again after the files are put back
    new_name: str
    exclude: str = ""
    extra_files: dict[str, str] = field(default_factory=dict)

    def source_root(self) -> Path:
        return Path(self.root)

    def sources(self) -> list[Path]:
        found = {p for pattern in self.patterns for p in self.source_root().glob(pattern) if p.is_file()}
        return sorted(p for p in found if not (self.exclude and p.match(self.exclude)))


def _goroot() -> str:
    try:
        return subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "/usr/local/go"


@functools.cache
def cases() -> dict[str, Case]:
    """Per language: the files copied, the symbols operated on and the code inserted."""
    return {
        "python": Case(
            "python", "python_jedi", sysconfig.get_paths()["stdlib"], ("argparse.py",), "argparse.py",
            "ArgumentParser/format_usage", "ArgumentParser/format_help",
            "    def extra(self):\n        return 0\n", "#", "_get_action_name", "_action_name",
        ),
        "go": Case(
            "go", "go", str(Path(_goroot()) / "src" / "go" / "ast"), ("*.go",), "ast.go",
            "stripTrailingWhitespace", "NewIdent", "func Extra() int {\n\treturn 0\n}\n", "//",
            "isDirective", "isCommentDirective",
            exclude="*_test.go", extra_files={"go.mod": "module bench\n\ngo 1.21\n"},
        ),
        "typescript": Case(
            "typescript", "typescript", str(ROOT / ".tools" / "hosts" / "node_modules" / "node-pty" / "src"),
            ("*.ts", "*/*.ts", "tsconfig.json"), "unixTerminal.ts", "UnixTerminal/resize", "UnixTerminal/clear",
            "  public extra(): number {\n    return 0;\n  }\n", "//",
            "UnixTerminal/_sanitizeEnv", "_cleanEnv", exclude="*.test.ts",
        ),
    }



def marked(definition: str, marker: str, comment: str) -> str:
    """`definition` with a comment line `marker` after its first line, indented like the first
    non-blank line after it."""
    first, _, rest = definition.partition("\n")
    following = next((line for line in rest.split("\n") if line.strip()), None)
    if following is None:
        raise ValueError(f"a definition of one line: {first!r}")
    indent = following[: len(following) - len(following.lstrip())]
    return f"{first}\n{indent}{comment} {marker}\n{rest}"
