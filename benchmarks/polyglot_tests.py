"""The polyglot exercises' own tests, run on a set of solution files.

Each run copies the exercise (without its dot folders) to a folder of its own, puts the
files in, and runs the language's tests the way Aider's benchmark does: every test enabled
(Rust `--include-ignored`, Java's `@Disabled` lines dropped, JavaScript's `xtest` made
`test`, C++ built with `EXERCISM_RUN_ALL_TESTS`). Gradle cannot download its distribution
here, so Java compiles with javac against JUnit's console launcher and AssertJ (and the two
libraries two exercises use) from Maven Central. Downloads are cached in
benchmarks/results/cache/ (git ignores it): npm packages, Maven jars, cargo's registry and
build folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.polyglot_edits import Exercise

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "benchmarks" / "results" / "cache"
TIMEOUT_S = 600
JARS = {  # groupId:artifactId:version; the console launcher carries JUnit Jupiter
    "org.junit.platform:junit-platform-console-standalone:1.10.0",
    "org.assertj:assertj-core:3.25.1",
    "io.reactivex.rxjava2:rxjava:2.2.12",
    "org.json:json:20190722",
}


@dataclass(frozen=True)
class TestRun:
    passed: bool
    seconds: float
    tail: str  # the end of the output of a failing run

    def to_json(self) -> dict[str, object]:
        return {"passed": self.passed, "seconds": round(self.seconds, 1), **({"tail": self.tail} if not self.passed else {})}


class Tests:
    """Runs one language's exercise tests; identical file sets share one run."""

    def __init__(self, language: str, scratch: Path) -> None:
        self.language, self.scratch, self.runs = language, scratch, dict[str, TestRun]()
        self.env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "CARGO_HOME": str(CACHE / "cargo"),
                    "CARGO_TARGET_DIR": str(CACHE / "cargo-target"), "CARGO_TERM_COLOR": "never", "CI": "1"}
        self.prepared = False

    def prepare(self) -> None:
        """Fetch what the language's tests need, once (cached across runs)."""
        if self.prepared:
            return
        self.prepared = True
        if self.language == "javascript":
            _npm_tools(self.env)
        elif self.language == "java":
            _maven_jars(self.env)

    def run(self, exercise: Exercise, files: dict[str, str]) -> TestRun | None:
        """The exercise's tests on `files` (path → text, over the stub's); None where the
        benchmark itself skips them (`.meta/.skip_tests`)."""
        if (exercise.directory / ".meta" / ".skip_tests").exists():
            return None
        digest = hashlib.sha256(json.dumps(sorted(files.items())).encode()).hexdigest()[:16]
        if digest in self.runs:
            return self.runs[digest]
        self.prepare()
        folder = self.scratch / digest / exercise.name  # C++'s CMakeLists names the target after its folder
        shutil.rmtree(folder.parent, ignore_errors=True)
        shutil.copytree(exercise.directory, folder, ignore=shutil.ignore_patterns(".*"))
        for path, text in files.items():
            (folder / path).parent.mkdir(parents=True, exist_ok=True)
            (folder / path).write_bytes(text.encode("utf-8"))
        started = time.perf_counter()
        passed, output = self._commands(folder)
        result = TestRun(passed, time.perf_counter() - started, "" if passed else output[-1500:])
        shutil.rmtree(folder.parent, ignore_errors=True)
        self.runs[digest] = result
        return result

    def _commands(self, folder: Path) -> tuple[bool, str]:
        output = []
        for command in self._plan(folder):
            try:
                done = subprocess.run(command, cwd=folder, env=self.env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
            except subprocess.TimeoutExpired:
                return False, "".join(output) + f"\n{command[0]}: timed out after {TIMEOUT_S} s"
            output.append(done.stdout + done.stderr)
            if done.returncode != 0:
                return False, "".join(output)
        return True, "".join(output)

    def _plan(self, folder: Path) -> list[list[str]]:
        """The commands that build and test the exercise in `folder` (after enabling every test)."""
        if self.language == "python":
            return [[sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]]
        if self.language == "go":
            return [["go", "test", "./..."]]
        if self.language == "rust":
            return [["cargo", "fetch", "-q"], ["cargo", "test", "-q", "--offline", "--", "--include-ignored"]]
        if self.language == "javascript":
            (folder / "node_modules").symlink_to(CACHE / "npm" / "node_modules")
            _substitute(folder.glob("*.spec.js"), r"\bxtest\(", "test(")
            return [["node", str(CACHE / "npm" / "node_modules" / "jest" / "bin" / "jest.js"), "--ci", str(folder)]]
        if self.language == "java":
            return _java(folder)
        launcher = ["-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"] if shutil.which("ccache") else []
        return [["cmake", "-S", ".", "-B", "build", "-DEXERCISM_RUN_ALL_TESTS=1", "-G", "Unix Makefiles", *launcher],
                ["make", "-s", "-C", "build"]]


def _substitute(paths: object, pattern: str, replacement: str) -> None:
    for path in paths:  # type: ignore[attr-defined]
        path.write_text(re.sub(pattern, replacement, path.read_text()))


def _java(folder: Path) -> list[list[str]]:
    lib = CACHE / "maven" / "lib"
    _substitute((folder / "src" / "test").rglob("*.java"), r"(?m)^\s*@Disabled\([^)]*\)\s*\n", "")
    sources = [str(p.relative_to(folder)) for p in sorted((folder / "src").rglob("*.java"))]
    classpath = os.pathsep.join(str(jar) for jar in sorted(lib.glob("*.jar")))
    console = next(lib.glob("junit-platform-console-standalone-*.jar"))
    return [["javac", "-nowarn", "-encoding", "UTF-8", "-d", "classes", "-cp", classpath, *sources],
            ["java", "-jar", str(console), "execute", "--class-path", f"classes{os.pathsep}{classpath}",
             "--scan-class-path", "--disable-banner", "--details=summary", "--fail-if-no-tests"]]


def _npm_tools(env: dict[str, str]) -> None:
    """jest, babel and the Exercism preset every JavaScript exercise's package.json names."""
    folder = CACHE / "npm"
    if (folder / "node_modules" / "jest" / "bin" / "jest.js").exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    dev = {"@babel/core": "^7.25.2", "@exercism/babel-preset-javascript": "^0.2.1", "babel-jest": "^29.6.4",
           "core-js": "~3.37.1", "jest": "^29.7.0"}
    (folder / "package.json").write_text(json.dumps({"name": "polyglot-test-tools", "private": True, "devDependencies": dev}, indent=2))
    print("polyglot: installing jest and babel from npm (once)", file=sys.stderr)
    subprocess.run(["npm", "install", "--no-fund", "--no-audit", "--silent"], cwd=folder, env=env, check=True)


def _maven_jars(env: dict[str, str]) -> None:
    """The JUnit console launcher and the libraries the Java exercises' build.gradle names."""
    folder = CACHE / "maven"
    if len(list((folder / "lib").glob("*.jar"))) >= len(JARS):
        return
    folder.mkdir(parents=True, exist_ok=True)
    dependencies = "".join(
        f"<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version></dependency>"
        for g, a, v in (coordinate.split(":") for coordinate in sorted(JARS))
    )
    (folder / "pom.xml").write_text(
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>local.polyglot</groupId><artifactId>test-tools</artifactId><version>1</version>"
        f"<dependencies>{dependencies}</dependencies></project>\n"
    )
    print("polyglot: fetching JUnit and AssertJ from Maven Central (once)", file=sys.stderr)
    subprocess.run(["mvn", "-q", "-B", f"-Dmaven.repo.local={folder / 'repo'}", "dependency:copy-dependencies",
                    f"-DoutputDirectory={folder / 'lib'}"], cwd=folder, env=env, check=True)
