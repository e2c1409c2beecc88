"""Opening a repository never runs its code: for each language server installed here, a hostile
repository whose programs, toolchains, plugins and build files write a marker if they run, opened
as a host opens it (a SessionStart hook that starts the daemon, which starts the server ahead,
then a symbol command answered by that daemon, both run in the repository). Each test asserts
that no marker was written and that the symbols were answered (by the server, where it is
installed), so that it fails either way. Real daemons, real servers, the real rustup and go."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from gateway.surfaces import daemon_client

pytestmark = pytest.mark.usefixtures("servers")

CHECKOUT = Path(__file__).resolve().parents[1]
OWN_TYPESCRIPT = CHECKOUT / ".tools" / "node" / "node_modules" / "typescript"


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """Daemons allowed, in a runtime and state directory of this test; every daemon left is killed after."""
    runtime = Path(tempfile.mkdtemp(prefix="gw-", dir="/tmp"))  # short: a socket's path has at most 107 bytes
    monkeypatch.delenv("GATEWAY_NO_DAEMON", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield dict(os.environ)
    for pid_file in (runtime / "gateway").glob("*.pid"):
        try:
            process = psutil.Process(int(pid_file.read_text()))
            family = [process, *process.children(recursive=True)]
        except (psutil.NoSuchProcess, ValueError, OSError):
            continue
        for member in family:
            with contextlib.suppress(psutil.NoSuchProcess):
                member.kill()
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture
def markers(tmp_path: Path) -> Path:
    folder = tmp_path / "markers"
    folder.mkdir()
    return folder


def _evil(path: Path, markers: Path, name: str) -> None:
    """An executable that leaves a marker named `name` and fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran >> {markers / name}\nexit 1\n")
    path.chmod(0o755)


def _evil_js(path: Path, markers: Path, name: str, then: str = "process.exit(1);") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"require('fs').appendFileSync({json.dumps(str(markers / name))}, 'ran\\n');\n{then}\n")


def _with_bin(env: dict[str, str], ws: Path, markers: Path, *programs: str) -> dict[str, str]:
    """The repository's `bin/` holding fake `programs`, first on PATH, and `.` (the repository, where
    the host runs us) after it."""
    for program in programs:
        _evil(ws / "bin" / program, markers, f"bin-{program}")
    return {**env, "PATH": os.pathsep.join([str(ws / "bin"), ".", env["PATH"]])}


def gateway(env: dict[str, str], ws: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gateway", *args], env=env, input=stdin, capture_output=True, text=True, timeout=180,
                          cwd=ws)


def _status(ws: Path) -> dict | None:
    try:
        return daemon_client.request(ws, "gateway/status", {}, timeout=10)
    except daemon_client.DaemonUnavailable:
        return None


def _opened(env: dict[str, str], ws: Path, path: str, server: bool = True) -> dict:
    """The repository opened as a host opens it: a session start (the daemon starts its leading
    language's server ahead), then the symbols of `path` through that daemon; the symbols. With
    `server`, asked again while they come from tree-sitter for a server still loading (jdtls
    on a loaded machine), for up to 120 s."""
    started = gateway(env, ws, "hook", "claude-code", stdin=json.dumps({"hook_event_name": "SessionStart", "cwd": str(ws)}))
    assert started.returncode == 0, started.stderr
    deadline = time.monotonic() + 120
    while not (_status(ws) or {}).get("prestart", {}).get("done"):
        assert time.monotonic() < deadline, f"the daemon started nothing ahead: {_status(ws)}"
        time.sleep(0.1)
    answered = gateway(env, ws, "symbols", path, "--workspace", str(ws), "--json")
    deadline = time.monotonic() + 120
    while server and '"backend": "tree-sitter"' in answered.stdout and "loading" in answered.stdout and time.monotonic() < deadline:
        time.sleep(2)
        answered = gateway(env, ws, "symbols", path, "--workspace", str(ws), "--json")
    assert (_status(ws) or {}).get("requests", 0) >= 2, "the symbols were not answered by the daemon"
    gateway(env, ws, "daemon", "stop", "--workspace", str(ws))
    return json.loads(answered.stdout)


def _names(answer: dict) -> set[str]:
    return {symbol["name"] for symbol in answer.get("symbols", [])}


def _ran(markers: Path) -> list[str]:
    return sorted(marker.name for marker in markers.iterdir())


def test_typescript_runs_its_own_tsserver_not_the_repositorys(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.ts").write_text('export function greet(name: string): string {\n  return "hi " + name;\n}\n')
    (ws / "tsconfig.json").write_text('{"compilerOptions": {"strict": true}}\n')
    for folder in ("node_modules/typescript", ".yarn/sdks/typescript"):
        (ws / folder / "lib").mkdir(parents=True)
        (ws / folder / "package.json").write_text('{"name": "typescript", "version": "5.9.3"}\n')
        _evil_js(ws / folder / "lib" / "tsserver.js", markers, "tsserver-" + folder.split("/")[0])
    answer = _opened(_with_bin(env, ws, markers, "node"), ws, "src/a.ts")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:typescript-language-server" and _names(answer) == {"greet"}, answer


def test_typescript_loads_no_tsconfig_plugin_from_the_repository(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    """A repository that ships a genuine typescript: tsserver would look for the plugins its tsconfig
    names beside itself, in the repository's node_modules."""
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.ts").write_text("export function greet(): number {\n  return 1;\n}\n")
    (ws / "tsconfig.json").write_text('{"compilerOptions": {"plugins": [{"name": "evil-plugin"}]}}\n')
    shutil.copytree(OWN_TYPESCRIPT, ws / "node_modules" / "typescript")
    (ws / "node_modules" / "evil-plugin" / "package.json").parent.mkdir(parents=True)
    (ws / "node_modules" / "evil-plugin" / "package.json").write_text('{"name": "evil-plugin", "main": "index.js"}\n')
    _evil_js(ws / "node_modules" / "evil-plugin" / "index.js", markers, "tsserver-plugin",
             then="module.exports = () => ({create: (info) => info.languageService});")
    answer = _opened(env, ws, "src/a.ts")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:typescript-language-server" and _names(answer) == {"greet"}, answer


def _go_toolchain_proxy(root: Path, markers: Path) -> Path:
    """A module proxy (the user's GOPROXY, outside the repository) serving the toolchain go1.99.0,
    whose `go` leaves a marker: what `toolchain`/`go` lines in go.mod download and run."""
    version = "v0.0.1-go1.99.0.linux-amd64"
    at = root / "golang.org" / "toolchain" / "@v"
    at.mkdir(parents=True)
    (at / "list").write_text(version + "\n")
    (at / f"{version}.info").write_text(json.dumps({"Version": version, "Time": "2024-01-01T00:00:00Z"}))
    (at / f"{version}.mod").write_text("module golang.org/toolchain\n")
    evil = f"#!/bin/sh\necho ran >> {markers / 'go-toolchain'}\nexit 1\n"
    with zipfile.ZipFile(at / f"{version}.zip", "w") as archive:
        for name in ("bin/go", "bin/gofmt", "pkg/tool/linux_amd64/README", "lib/README"):
            archive.writestr(f"golang.org/toolchain@{version}/{name}", evil)
    return root


@pytest.mark.parametrize("fakes", [(), ("go",)], ids=["toolchain", "toolchain-and-bin-go"])
def test_go_runs_the_local_go_not_a_toolchain_or_go_the_repository_names(env: dict[str, str], tmp_path: Path, markers: Path,
                                                                         fakes: tuple[str, ...]) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "go.mod").write_text("module example.com/hostile\n\ngo 1.99.0\n\ntoolchain go1.99.0\n")
    (ws / "shapes.go").write_text("package hostile\n\nfunc Area(w, h int) int {\n\treturn w * h\n}\n")
    proxy = _go_toolchain_proxy(tmp_path / "goproxy", markers)
    # Go's own default (this machine's go.env says local): switch to what go.mod asks for.
    user = {**env, "GOTOOLCHAIN": "auto", "GOPROXY": proxy.as_uri(), "GOSUMDB": "off", "GOMODCACHE": str(tmp_path / "modcache")}
    answer = _opened(_with_bin(user, ws, markers, *fakes), ws, "shapes.go")
    subprocess.run(["chmod", "-R", "u+w", str(tmp_path / "modcache")], check=False)
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:gopls" and _names(answer) == {"Area"}, answer


def _python_repository(ws: Path, markers: Path) -> None:
    """A Python repository with a venv whose interpreters leave markers, and the module a
    Python started in it would import first (`sitecustomize`; not `json`, which `python -m
    gateway` run here, as these tests run it, would import itself)."""
    ws.mkdir()
    (ws / "shapes.py").write_text("def area(w, h):\n    return w * h\n\n\nclass Shape:\n    pass\n")
    for name in ("python", "python3"):
        _evil(ws / ".venv" / "bin" / name, markers, f"venv-{name}")
    (ws / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (ws / "sitecustomize.py").write_text(f"open({str(markers / 'sitecustomize')!r}, 'a').write('ran')\n")


def _first_python_server(env: dict[str, str], tmp_path: Path, program: str, adapter: str) -> dict[str, str]:
    """`env` with language data whose Python server is `program` (with `adapter`), alone."""
    langs = tmp_path / "langs"
    shutil.copytree(CHECKOUT / "langs", langs)
    python = langs / "python.toml"
    text = re.sub(r'(?m)^command = .*$', f'command = ["{program}"]', python.read_text(), count=1)
    text = re.sub(r'(?m)^adapter = .*$', f'adapter = "{adapter}"', text, count=1)
    python.write_text(re.sub(r'(?m)^alternatives = .*$', "alternatives = []", text, count=1))
    return {**env, "GATEWAY_LANGS_DIR": str(langs)}


def test_jedi_runs_no_interpreter_of_the_repository(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    """jedi, the Python fallback, run alone: it inspects the environment $VIRTUAL_ENV names."""
    ws = tmp_path / "ws"
    _python_repository(ws, markers)
    user = {**_with_bin(_first_python_server(env, tmp_path, "jedi-language-server", "jedi"), ws, markers, "python3", "python"),
            "VIRTUAL_ENV": str(ws / ".venv")}
    answer = _opened(user, ws, "shapes.py")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:jedi-language-server" and _names(answer) == {"area", "Shape"}, answer


def test_zuban_runs_no_interpreter_or_plugin_the_repository_names(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    """zuban reads mypy's settings, which name plugins (Python modules mypy imports) and a
    `python_executable`, and its own: neither is run, nor the venv's interpreters."""
    ws = tmp_path / "ws"
    _python_repository(ws, markers)
    _evil(ws / "tools" / "bin" / "python", markers, "python-executable")
    (ws / "evil_plugin.py").write_text(f"open({str(markers / 'plugin')!r}, 'a').write('ran')\n")
    settings = 'plugins = ["evil_plugin"]\npython_executable = "tools/bin/python"\n'
    (ws / "pyproject.toml").write_text(f"[tool.mypy]\n{settings}[tool.zuban]\n{settings}")
    (ws / "mypy.ini").write_text("[mypy]\nplugins = evil_plugin\npython_executable = tools/bin/python\n")
    user = {**_with_bin(env, ws, markers, "python3", "python"), "VIRTUAL_ENV": str(ws / ".venv")}
    answer = _opened(user, ws, "shapes.py")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:zuban" and _names(answer) == {"area", "Shape"}, answer


def test_bash_runs_no_node_or_shellcheck_of_the_repository(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "deploy.sh").write_text('#!/bin/bash\ndeploy() {\n  echo "$1"\n}\nrollback() {\n  echo back\n}\n')
    answer = _opened(_with_bin(env, ws, markers, "node", "shellcheck", "shfmt"), ws, "deploy.sh")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:bash-language-server" and _names(answer) == {"deploy", "rollback"}, answer


def test_clangd_runs_no_compiler_or_plugin_the_repository_names(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "geometry.c").write_text("int add(int a, int b) { return a + b; }\nstruct point { int x; };\n")
    _evil(ws / "evil-cc", markers, "compile-commands-compiler")
    source = tmp_path / "evil.c"
    source.write_text(f'#include <stdio.h>\n__attribute__((constructor)) static void ran(void) {{ FILE *f = fopen("{markers / "plugin"}", "a"); '
                      'if (f) { fputs("ran\\n", f); fclose(f); } }\n')
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(ws / "evil.so"), str(source)], check=True)
    command = "./evil-cc -fplugin=./evil.so -Xclang -load -Xclang ./evil.so -c geometry.c"
    (ws / "compile_commands.json").write_text(json.dumps([{"directory": str(ws), "command": command, "file": "geometry.c"}]))
    (ws / ".clangd").write_text("CompileFlags:\n  Add: [-fplugin=./evil.so]\n  Compiler: ./evil-cc\n")
    answer = _opened(_with_bin(env, ws, markers, "clang", "gcc", "cc"), ws, "geometry.c")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:clangd" and _names(answer) >= {"add", "point"}, answer


def test_jdtls_imports_no_build_and_runs_no_java_of_the_repository(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src" / "main" / "java" / "demo").mkdir(parents=True)
    (ws / "src" / "main" / "java" / "demo" / "Cart.java").write_text(
        "package demo;\n\npublic class Cart {\n    public int total() {\n        return 1;\n    }\n}\n")
    (ws / "build.gradle").write_text(f"new File('{markers / 'gradle-build-script'}').text = 'ran'\napply plugin: 'java'\n")
    (ws / "settings.gradle").write_text(f"new File('{markers / 'gradle-settings'}').text = 'ran'\n")
    _evil(ws / "gradlew", markers, "gradlew")
    (ws / "gradle" / "wrapper").mkdir(parents=True)
    (ws / "gradle" / "wrapper" / "gradle-wrapper.properties").write_text(f"distributionUrl={(ws / 'evil-gradle.zip').as_uri()}\n")
    (ws / "pom.xml").write_text("<project><modelVersion>4.0.0</modelVersion><groupId>demo</groupId><artifactId>demo</artifactId>"
                                "<version>1</version></project>\n")
    _evil(ws / "mvnw", markers, "mvnw")
    # A JDK of the repository's own, which $JAVA_HOME names.
    _evil(ws / "jdk" / "bin" / "java", markers, "jdk-java")
    (ws / "jdk" / "release").write_text('JAVA_VERSION="25"\n')
    user = {**_with_bin(env, ws, markers, "java", "gradle", "mvn"), "JAVA_HOME": str(ws / "jdk")}
    answer = _opened(user, ws, "src/main/java/demo/Cart.java")
    assert _ran(markers) == []
    assert answer.get("backend") == "lsp:jdtls" and _names(answer) >= {"Cart", "total"}, answer


def _hostile_rust(ws: Path, markers: Path) -> None:
    """A crate whose rust-toolchain.toml sends rustup's proxies to its own `evil/bin` (rustup takes
    only an absolute path: a repository that knows where it is cloned, as a CI checkout does), and
    whose .cargo/config.toml names its own rustc and wrapper."""
    (ws / "src").mkdir(parents=True)
    (ws / "Cargo.toml").write_text('[package]\nname = "hostile"\nversion = "0.1.0"\nedition = "2021"\n')
    (ws / "src" / "lib.rs").write_text("pub fn hello() -> u32 {\n    1\n}\n\npub struct Point {\n    x: i32,\n}\n")
    (ws / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{ws / "evil"}"\n')
    for program in ("rust-analyzer", "cargo", "rustc"):
        _evil(ws / "evil" / "bin" / program, markers, f"toolchain-{program}")
    _evil(ws / "evil" / "wrapper", markers, "rustc-wrapper")
    (ws / ".cargo").mkdir()
    (ws / ".cargo" / "config.toml").write_text(f'[build]\nrustc = "{ws / "evil" / "bin" / "rustc"}"\nrustc-wrapper = "{ws / "evil" / "wrapper"}"\n')


def test_rust_analyzer_through_rustup_runs_no_toolchain_of_the_repository(env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    """rust-analyzer is not a component of this machine's toolchain, so its answer is tree-sitter's
    (and says so); what is tested is that rustup's real proxy, which the gateway asks and would
    start, never follows the repository's rust-toolchain.toml. The repository is first shown to
    be effective: the same proxy run in it does run its binary."""
    assert shutil.which("rustup"), "this machine's toolchain is rustup's"
    ws = tmp_path / "ws"
    _hostile_rust(ws, markers)
    subprocess.run(["rust-analyzer", "--version"], cwd=ws, capture_output=True, env={**env, "RUST_BACKTRACE": "0"}, check=False)
    assert _ran(markers) == ["toolchain-rust-analyzer"], "the hostile repository does not reach rustup's proxy here"
    (markers / "toolchain-rust-analyzer").unlink()
    answer = _opened(env, ws, "src/lib.rs", server=False)
    assert _ran(markers) == []
    assert answer.get("backend") == "tree-sitter" and _names(answer) == {"hello", "Point"}, answer


def test_rust_analyzers_cargo_gets_no_toolchain_rustc_or_wrapper_of_the_repository(tmp_path: Path, markers: Path) -> None:
    """What rust-analyzer runs first in a workspace, `cargo metadata`, with the real cargo and the
    environment the gateway starts rust-analyzer with: the crate's own toolchain, rustc and
    wrapper never run (they do without that environment)."""
    from gateway.lsp.adapters import adapter_for
    from gateway.lsp.discovery import search_path

    ws = tmp_path / "ws"
    _hostile_rust(ws, markers)
    metadata = ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"]
    subprocess.run(metadata, cwd=ws, capture_output=True, env={**os.environ, "RUST_BACKTRACE": "0"}, check=False)
    assert _ran(markers) == ["toolchain-cargo"], "the hostile crate does not reach rustup's proxy here"
    (markers / "toolchain-cargo").unlink()
    path = search_path(ws)
    pinned = adapter_for("rust_analyzer").pins(path)
    done = subprocess.run(metadata, cwd=ws, capture_output=True, text=True, env={**os.environ, "PATH": path, **pinned}, check=False)
    assert _ran(markers) == []
    assert done.returncode == 0 and json.loads(done.stdout)["packages"][0]["name"] == "hostile", done.stderr


def test_a_launch_recorded_in_another_workspace_is_not_started_where_its_path_leads_inside(
        env: dict[str, str], tmp_path: Path, markers: Path) -> None:
    """A cold command records the launch of its server for the next one (`gateway.lsp.early`); that
    launch's PATH, clean where it was recorded, may lead into the next command's workspace: it is
    not started there (the launch planned afresh is)."""
    first, second = tmp_path / "first", tmp_path / "second"
    for ws in (first, second):
        (ws / "src").mkdir(parents=True)
        (ws / "src" / "a.ts").write_text("export function greet(): number {\n  return 1;\n}\n")
    cold = {**env, "PATH": os.pathsep.join([str(second / "bin"), env["PATH"]]), "GATEWAY_NO_DAEMON": "1"}
    recorded = gateway(cold, first, "symbols", "src/a.ts", "--workspace", str(first), "--json")
    assert json.loads(recorded.stdout)["backend"] == "lsp:typescript-language-server", recorded.stderr
    assert (tmp_path / "state" / "gateway" / "early-launches.json").is_file()
    _evil(second / "bin" / "node", markers, "bin-node")  # the second repository, cloned since, has a bin/node
    answered = gateway(cold, second, "symbols", "src/a.ts", "--workspace", str(second), "--json")
    assert _ran(markers) == []
    assert json.loads(answered.stdout)["backend"] == "lsp:typescript-language-server", answered.stderr
