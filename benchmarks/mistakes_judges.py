"""The mistakes benchmark's judges: does a copy of the repository still build, type-check and pass
its tests? Each is the language's own tool run on the copy, never the gateway. A verdict is the
set of what fails (test ids, or compiler errors as `path: message` without line numbers, so that
an error the baseline had is recognised wherever an edit moved it); an edit harms when its
verdict has a failure the baseline's has not.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / ".tools" / "node" / "node_modules" / ".bin"
GO_ENV = {"GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOPROXY": "off"}
# requests' tests that need no network and no httpbin fixture (the rest are errors at setup here)
REQUESTS_TESTS = ["tests/test_utils.py", "tests/test_structures.py", "tests/test_hooks.py", "tests/test_adapters.py",
                  "tests/test_help.py", "tests/test_requests.py"]
# ky's tsconfig extends @sindresorhus/tsconfig, not installed (no node_modules): its options written out
KY_TSCONFIG = """{"compilerOptions": {"strict": true, "exactOptionalPropertyTypes": true, "target": "es2022",
 "lib": ["es2023", "dom", "dom.iterable"], "module": "nodenext", "moduleResolution": "nodenext", "skipLibCheck": true,
 "noEmit": true}, "include": ["source"]}
"""
ERRORPRONE = Path("/usr/share/java/error_prone_annotations.jar")  # Debian's liberror-prone-java
COMPILER_LINE = re.compile(r"^(?P<path>[^\s:(][^:(]*?)(?::\d+(?::\d+)?:|\(\d+,\d+\):) (?:fatal )?error(?:\[\w+\])?:? (?P<message>.*)$")


@dataclass(frozen=True)
class Verdict:
    failures: frozenset[str]
    command: str

    def harms(self, baseline: Verdict) -> list[str]:
        return sorted(self.failures - baseline.failures)


@dataclass(frozen=True)
class Judge:
    """The judge of one language: `prepare` once on each fresh copy, `judge` on a copy."""

    language: str
    label: str
    judge: Callable[[Path], Verdict]
    prepare: Callable[[Path], None] = lambda root: None


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=timeout,
                          env={**os.environ, **(env or {})})


def compiler_errors(text: str, root: Path) -> set[str]:
    found = set()
    for line in text.splitlines():
        match = COMPILER_LINE.match(line.strip())
        if match:
            path = Path(match["path"])
            shown = path.relative_to(root).as_posix() if path.is_absolute() and path.is_relative_to(root) else match["path"]
            found.add(f"{shown}: {match['message'].strip()}")
    return found


def _build_failure(done: subprocess.CompletedProcess[str], root: Path, step: str) -> set[str]:
    """What a failed build step reports: its errors, or its last line when none is recognised."""
    errors = compiler_errors(done.stdout + done.stderr, root)
    last = (done.stdout + done.stderr).strip().splitlines()[-1:] or [f"exit {done.returncode}"]
    return errors or {f"{step}: {last[0][:200]}"}


def python_judge(root: Path) -> Verdict:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-n", "0", "-rfE",
               "-k", "not Timeout", *REQUESTS_TESTS]
    done = _run(command, root, {"PYTHONPATH": str(root / "src")})
    failures = {line.split(" - ")[0] for line in done.stdout.splitlines() if line.startswith(("FAILED ", "ERROR "))}
    if done.returncode not in (0, 1):  # collection failed or pytest could not run
        failures.add(f"pytest exit {done.returncode}: " + (done.stdout.strip().splitlines()[-1:] or [""])[0][:200])
    return Verdict(frozenset(failures), "pytest " + " ".join(REQUESTS_TESTS) + " -k 'not Timeout'")


def go_judge(root: Path) -> Verdict:
    label = "go build ./... && go vet . && go test -skip TestFailGenFishCompletionFile ."
    for step in (["go", "build", "./..."], ["go", "vet", "."]):
        done = _run(step, root, GO_ENV)
        if done.returncode != 0:
            return Verdict(frozenset(_build_failure(done, root, " ".join(step))), label)
    done = _run(["go", "test", "-count=1", "-skip", "TestFailGenFishCompletionFile", "."], root, GO_ENV)
    failures = {line.strip() for line in done.stdout.splitlines() if line.strip().startswith("--- FAIL:")}
    failures = {re.sub(r" \([\d.]+s\)$", "", f) for f in failures}
    if done.returncode != 0 and not failures:
        failures = _build_failure(done, root, "go test")
    return Verdict(frozenset(failures), label)


def ts_prepare(root: Path) -> None:
    (root / "tsconfig.json").write_text(KY_TSCONFIG)


def ts_judge(root: Path) -> Verdict:
    done = _run([str(BIN / "tsc"), "--noEmit", "-p", "."], root)
    return Verdict(frozenset(compiler_errors(done.stdout, root)), "tsc --noEmit -p . (ky's tsconfig options written out)")


def java_judge(root: Path) -> Verdict:
    """javac on gson's main sources and its build-time template (GsonBuildConfig), with Debian's
    errorprone annotations: without them javac stops at the missing imports and never reports a
    missing method."""
    main = root / "gson" / "src" / "main"
    sources = sorted(str(p) for folder in ("java", "java-templates") for p in (main / folder).rglob("*.java") if p.name != "module-info.java")
    classpath = ["-cp", str(ERRORPRONE)] if ERRORPRONE.exists() else []
    with tempfile.TemporaryDirectory(prefix="javac-") as out:
        done = _run(["javac", "-proc:none", "-Xmaxerrs", "10000", *classpath, "-d", out, *sources], root)
    return Verdict(frozenset(compiler_errors(done.stdout + done.stderr, root)),
                   "javac (17) on gson/src/main/java and java-templates, errorprone annotations on the classpath")


def cpp_prepare(root: Path) -> None:
    """Catch's main, compiled once per copy (it does not include cxxopts)."""
    done = _run(["g++", "-std=c++17", "-c", "test/main.cpp", "-o", "catch-main.o"], root)
    if done.returncode != 0:
        raise SystemExit(f"cxxopts: test/main.cpp does not compile: {done.stderr[-300:]}")


def cpp_judge(root: Path) -> Verdict:
    label = "g++ -std=c++17 test/options.cpp (Catch) and run it"
    done = _run(["g++", "-std=c++17", "-Iinclude", "test/options.cpp", "catch-main.o", "-o", "options-test"], root)
    if done.returncode != 0:
        return Verdict(frozenset(_build_failure(done, root, "g++")), label)
    ran = _run([str(root / "options-test")], root)
    failures = {line.strip() for line in ran.stdout.splitlines() if " FAILED:" in line or line.strip().endswith("FAILED:")}
    if ran.returncode != 0 and not failures:
        failures = {f"options-test exit {ran.returncode}"}
    return Verdict(frozenset(failures), label)


def rust_judge(root: Path) -> Verdict:
    label = "cargo test (crates.io's dev-dependencies, fetched once)"
    target = Path(tempfile.gettempdir()) / "gateway-mistakes-cargo-target"
    done = _run(["cargo", "test", "-q"], root, {"CARGO_TARGET_DIR": str(target)})
    failures = {line.strip() for line in done.stdout.splitlines() if line.strip().startswith("test ") and line.strip().endswith("FAILED")}
    if done.returncode != 0 and not failures:
        failures = _build_failure(done, root, "cargo test")
    return Verdict(frozenset(failures), label)


JUDGES = {
    "python": Judge("python", "pytest (requests' offline tests)", python_judge),
    "go": Judge("go", "go build, go vet, go test", go_judge),
    "typescript": Judge("typescript", "tsc --noEmit", ts_judge, ts_prepare),
    "java": Judge("java", "javac 17", java_judge),
    "cpp": Judge("cpp", "g++ and Catch tests", cpp_judge, cpp_prepare),
    "rust": Judge("rust", "cargo test", rust_judge),
}
