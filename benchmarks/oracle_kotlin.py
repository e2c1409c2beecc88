"""Kotlin's oracle: the Kotlin compiler's own parser (its PSI) through
benchmarks/kotlinpsi/KotlinDefinitions.java, kept running (one JVM start). The compiler is
kotlin-compiler-embeddable from Maven Central, which `make setup` resolves (benchmarks/kotlinpsi/pom.xml);
its classpath is read from Maven offline here. Nothing here imports the gateway."""

from __future__ import annotations

import atexit
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from benchmarks.oracle import OracleDefinition
from benchmarks.references import char_offsets

PSI = Path(__file__).resolve().parent / "kotlinpsi"


def kotlin_classpath() -> str | None:
    """The compiler's classpath from the local Maven repository (offline), or None where it was not resolved."""
    mvn = shutil.which("mvn")
    if mvn is None:
        return None
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as output:
        done = subprocess.run([mvn, "-o", "-q", "-B", "-f", str(PSI / "pom.xml"), "dependency:build-classpath", f"-Dmdep.outputFile={output.name}"],
                              capture_output=True, timeout=300)
        return output.read().strip() or None if done.returncode == 0 else None


class KotlinOracle:
    name = "Kotlin 2.1.0 compiler PSI (kotlin-compiler-embeddable)"

    def __init__(self, javac: str, java: str, classpath: str) -> None:
        build = Path(tempfile.mkdtemp(prefix="kotlin-oracle-"))
        subprocess.run([javac, "-nowarn", "-cp", classpath, "-d", str(build), str(PSI / "KotlinDefinitions.java")], check=True,
                       capture_output=True, timeout=300)
        self.process = subprocess.Popen([java, "-cp", f"{build}:{classpath}", "KotlinDefinitions"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        atexit.register(self.process.kill)

    def definitions(self, path: Path, text: str) -> list[OracleDefinition] | None:
        """The PSI reads lines ended by LF only: a CRLF text is given with LFs, offsets mapped back."""
        assert self.process.stdin and self.process.stdout
        kept = [i for i, char in enumerate(text) if not (char == "\r" and text.startswith("\n", i + 1))] + [len(text)]
        plain = text.replace("\r\n", "\n")
        data = plain.encode()
        self.process.stdin.write(b"%d\n" % len(data) + data)
        self.process.stdin.flush()
        found = json.loads(self.process.stdout.readline() or b"null")
        if found is None:
            return None
        chars = [kept[offset] for offset in char_offsets(plain, "utf-16")]
        return sorted((OracleDefinition(chars[a], chars[b], chars[c], chars[d], *rest) for a, b, c, d, *rest in found), key=lambda d: d.start)
