"""Oracles that are programs of their own, one process per question, sharing nothing with the
gateway: Go's parser and type checker (benchmarks/gooracle, standard library only, built with
the machine's Go, offline) and TypeScript's checker (benchmarks/ts_references.js on the
`typescript` package `make setup` installs)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from benchmarks.oracle import OracleDefinition
from benchmarks.references import Resolution, char_offsets

BENCHMARKS = Path(__file__).resolve().parent
TYPESCRIPT = BENCHMARKS.parent / ".tools" / "node" / "node_modules" / "typescript"
GO_ENV = {"GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOPROXY": "off", "GO111MODULE": "off"}


@lru_cache(maxsize=1)
def go_oracle() -> Path | None:
    """benchmarks/gooracle built once per process (Go's build cache makes it quick), or None without Go."""
    go = shutil.which("go")
    if go is None:
        return None
    binary = Path(tempfile.mkdtemp(prefix="gooracle-")) / "gooracle"
    subprocess.run([go, "build", "-o", str(binary), "."], cwd=BENCHMARKS / "gooracle", check=True, capture_output=True, timeout=300,
                   env={**os.environ, **GO_ENV})
    return binary


def _answer(command: list[str], text: str) -> Any:
    done = subprocess.run(command, input=text.encode(), capture_output=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.decode(errors='replace').strip()}")
    return json.loads(done.stdout or b"null")


def _resolution(found: Any, text: str, unit: str) -> Resolution | None:
    if found is None:
        return None
    chars = char_offsets(text, unit)
    return Resolution({chars[offset]: key for offset, key in found["names"]}, found["errors"])


class GoOracle:
    name = "go/parser + go/printer (benchmarks/gooracle)"

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        found = _answer([str(self.binary), "defs"], text)
        if found is None:
            return None
        chars = char_offsets(text, "utf-8")
        return sorted((OracleDefinition(chars[a], chars[b], chars[c], chars[d], *rest) for a, b, c, d, *rest in found), key=lambda d: d.start)


class GoReferences:
    name = "go/types Defs+Uses (benchmarks/gooracle)"

    def __init__(self, binary: Path) -> None:
        self.binary = binary

    def resolve(self, path: Path, text: str) -> Resolution | None:
        return _resolution(_answer([str(self.binary), "refs"], text), text, "utf-8")


def typescript_kind(path: Path) -> str:
    suffix = path.suffix.lstrip(".").lower()
    return {"mts": "ts", "cts": "ts", "mjs": "js", "cjs": "js"}.get(suffix, suffix)


class TypeScriptReferences:
    def __init__(self, node: str, typescript: Path) -> None:
        self.node, self.typescript = node, typescript.resolve()
        version = json.loads((self.typescript / "package.json").read_text())["version"]
        self.name = f"TypeScript {version} checker (node, benchmarks/ts_references.js)"

    def resolve(self, path: Path, text: str) -> Resolution | None:
        command = [self.node, str(BENCHMARKS / "ts_references.js"), str(self.typescript), typescript_kind(path)]
        return _resolution(_answer(command, text), text, "utf-16")


class JavaReferences:
    """javac's attribution of one file compiled alone, through benchmarks/JavaReferences.java.
    Its errors are compared only where the file compiles alone without any: a class of the JDK's
    own sources, compiled alone, has errors that change with its name (under its own name it
    is read as the JDK's copy)."""

    name = "javac attribution (benchmarks/JavaReferences.java)"

    def __init__(self, javac: str, java: str) -> None:
        self.build = Path(tempfile.mkdtemp(prefix="java-references-"))
        subprocess.run([javac, "-d", str(self.build), str(BENCHMARKS / "JavaReferences.java")], check=True, capture_output=True, timeout=300)
        self.java = java

    def resolve(self, path: Path, text: str) -> Resolution | None:
        found = _resolution(_answer([self.java, "-cp", str(self.build), "JavaReferences"], text), text, "utf-16")
        return found and Resolution(found.names, found.errors, errors_comparable=found.errors == 0)
