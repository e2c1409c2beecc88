"""Whether a text parses, asked of each language's own parser, never of the gateway.

The polyglot benchmark asks it of the text a refused edit would have left (plain
replacement): a refusal whose text parses is a false refusal. Python: `ast`; Go: `gofmt -e`
(go/parser); Rust: rustfmt (rustc's parser); JavaScript: TypeScript's parser
(benchmarks/ts_definitions.js); Java: javac's parser (benchmarks/JavaDefinitions.java); C++:
`g++ -fsyntax-only -std=c++17`, which checks names and types too, so a C++ text it rejects may
still be valid syntax (it is marked so in `CHECKERS`).
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchmarks.oracle import JavaOracle, Oracle, TypeScriptOracle

ROOT = Path(__file__).resolve().parent.parent
CHECKERS = {
    "python": "python ast", "go": "gofmt -e", "rust": "rustfmt", "javascript": "typescript parser",
    "java": "javac parser", "cpp": "g++ -fsyntax-only (names and types too)",
}


class SyntaxCheck:
    """One language's own parser, started once (Java's and TypeScript's run as one process each)."""

    def __init__(self, language: str) -> None:
        self.language = language
        self.name = CHECKERS.get(language)
        self._oracle: Oracle | None = None

    def parses(self, path: str, text: str, include: Path) -> bool | None:
        """`text` as the file `path` parses; None where the checker is not installed. `include`:
        the folder the file's own `#include "..."` resolve in (C++)."""
        if self.language == "python":
            try:
                ast.parse(text)
            except (SyntaxError, ValueError):
                return False
            return True
        if self.language in ("java", "javascript"):
            oracle = self._started()
            return None if oracle is None else oracle.definitions(Path(path), text) is not None
        command = {"go": ["gofmt", "-e"], "rust": ["rustfmt", "--edition", "2021", "--emit", "stdout"],
                   "cpp": ["g++", "-fsyntax-only", "-std=c++17", "-x", "c++", "-I", str(include), "-"]}.get(self.language)
        if command is None or shutil.which(command[0]) is None:
            return None
        with tempfile.TemporaryDirectory(prefix="polyglot-syntax-") as scratch:
            done = subprocess.run(command, input=text, capture_output=True, text=True, timeout=120, check=False, cwd=scratch)
        return done.returncode == 0

    def _started(self) -> Oracle | None:
        if self._oracle is None:
            if self.language == "java" and shutil.which("javac") and shutil.which("java"):
                self._oracle = JavaOracle(str(shutil.which("javac")), str(shutil.which("java")))
            typescript = ROOT / ".tools" / "node" / "node_modules" / "typescript"
            if self.language == "javascript" and shutil.which("node") and typescript.is_dir():
                self._oracle = TypeScriptOracle(str(shutil.which("node")), typescript)
        return self._oracle
