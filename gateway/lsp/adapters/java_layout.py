"""The Java sources and libraries of a Maven or Gradle workspace, read as data: what jdtls's
invisible project is given in place of the build's import (which would run the build).

- Source folders: `src/<set>/java` of each folder holding a build file (pom.xml, build.gradle,
  build.gradle.kts), and the `sourceDirectory`/`testSourceDirectory` a pom names.
- Libraries: the jars already in the user's local Maven repository (~/.m2/repository) or Gradle
  cache that the build files name: a pom's `<dependency>` (version from the pom, its properties,
  or a `dependencyManagement` of the workspace's poms, else the newest version there), a Gradle
  script's "group:artifact:version" strings. Only those named directly: what they depend on is
  the build's resolution, which is not run. Nothing is downloaded.
"""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from gateway.errors import GatewayError
from gateway.reading import read_regular

MAVEN_BUILD = "pom.xml"
GRADLE_BUILDS = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")
_SKIPPED = {"target", "build", "out", "bin", "node_modules", "__pycache__"}  # build output and others' trees
_MOST_FOLDERS = 20_000  # a walk of a huge tree stops here: what was found so far is used
_BUILD_BYTES = 2 << 20
_PROPERTY = re.compile(r"\$\{([^}]+)\}")
_GRADLE_COORDINATE = re.compile(r"""["']([\w.\-]+):([\w.\-]+):([\w.\-+]+)["']""")


@dataclass(frozen=True)
class Coordinate:
    group: str
    artifact: str
    version: str | None  # None: not named; the newest in the local repository is taken


@dataclass(frozen=True)
class JavaLayout:
    builds: tuple[str, ...]  # the build files found, relative to the workspace
    source_folders: tuple[str, ...]  # relative to the workspace, "/"-separated
    libraries: tuple[Path, ...]  # jars in the local repositories
    missing: tuple[str, ...]  # "group:artifact" named by a build file and not in a local repository


def java_layout(root: Path, home: Path | None = None) -> JavaLayout | None:
    """The layout of `root`'s Maven or Gradle builds; None where it has no build file at its
    top or in a folder below (a bare folder of sources, which jdtls analyses by itself)."""
    home = Path.home() if home is None else home
    modules = _build_folders(root)
    if not modules:
        return None
    builds: list[str] = []
    sources: list[str] = []
    coordinates: list[Coordinate] = []
    poms = {folder: _pom(folder / MAVEN_BUILD) for folder in modules if (folder / MAVEN_BUILD).is_file()}
    managed, properties = _managed(list(poms.values()))
    for folder in modules:
        relative = folder.relative_to(root)
        builds += [(relative / name).as_posix() for name in (MAVEN_BUILD, *GRADLE_BUILDS) if (folder / name).is_file()]
        named = [folder / name for name in _named_source_folders(poms.get(folder), properties)]
        for source in [*sorted(folder.glob("src/*/java")), *named]:
            if source.is_dir() and source.resolve().is_relative_to(root.resolve()):  # never a folder outside it
                sources.append(Path(os.path.normpath(os.path.relpath(source, root))).as_posix())
        coordinates += _pom_dependencies(poms.get(folder), managed, properties)
        coordinates += _gradle_dependencies(folder)
    own = {(_text(pom, "groupId") or _text(pom, "parent/groupId"), _text(pom, "artifactId")) for pom in poms.values()}
    libraries, missing = _jars([c for c in coordinates if (c.group, c.artifact) not in own], home)  # the workspace's own modules: sources
    return JavaLayout(tuple(builds), tuple(dict.fromkeys(sources)), libraries, missing)


def _build_folders(root: Path) -> list[Path]:
    """The folders under `root` (itself included) that hold a Maven or Gradle build file."""
    found: list[Path] = []
    walked = 0
    for folder, children, files in os.walk(root):
        walked += 1
        children[:] = sorted(child for child in children if not child.startswith(".") and child not in _SKIPPED)
        if MAVEN_BUILD in files or any(name in files for name in GRADLE_BUILDS):
            found.append(Path(folder))
        if walked >= _MOST_FOLDERS:
            break
    return found


def _pom(path: Path) -> ElementTree.Element | None:
    """The pom's root element, its namespace dropped; None when it cannot be read or parsed."""
    try:
        data = read_regular(path, limit=_BUILD_BYTES)
        element = ElementTree.fromstring(data) if data else None
    except (OSError, GatewayError, ElementTree.ParseError):
        return None
    for node in element.iter() if element is not None else ():
        if isinstance(node.tag, str) and "}" in node.tag:
            node.tag = node.tag.split("}", 1)[1]
    return element


def _text(element: ElementTree.Element | None, path: str) -> str | None:
    found = element.find(path) if element is not None else None
    return found.text.strip() if found is not None and found.text and found.text.strip() else None


def _managed(poms: list[ElementTree.Element | None]) -> tuple[dict[tuple[str, str], str], dict[str, str]]:
    """Every workspace pom's properties (and project.version) and managed dependency versions."""
    properties: dict[str, str] = {}
    for pom in poms:
        for node in pom.iterfind("properties/*") if pom is not None else ():
            if isinstance(node.tag, str) and node.text:
                properties.setdefault(node.tag, node.text.strip())
        version = _text(pom, "version") or _text(pom, "parent/version")
        if version:
            properties.setdefault("project.version", version)
    managed: dict[tuple[str, str], str] = {}
    for pom in poms:
        for dependency in pom.iterfind("dependencyManagement/dependencies/dependency") if pom is not None else ():
            group, artifact, version = (_text(dependency, key) for key in ("groupId", "artifactId", "version"))
            if group and artifact and version:
                managed.setdefault((group, artifact), _expand(version, properties))
    return managed, properties


def _expand(value: str, properties: dict[str, str]) -> str:
    for _ in range(5):  # properties naming properties
        value = _PROPERTY.sub(lambda match: properties.get(match.group(1), match.group(0)), value)
    return value


def _named_source_folders(pom: ElementTree.Element | None, properties: dict[str, str]) -> list[str]:
    known = {**properties, "project.basedir": ".", "basedir": "."}
    named = [_expand(name, known) for key in ("sourceDirectory", "testSourceDirectory") if (name := _text(pom, f"build/{key}"))]
    return [name for name in named if "${" not in name and not os.path.isabs(name)]


def _pom_dependencies(pom: ElementTree.Element | None, managed: dict[tuple[str, str], str], properties: dict[str, str]) -> list[Coordinate]:
    found: list[Coordinate] = []
    for dependency in pom.iterfind("dependencies/dependency") if pom is not None else ():
        group, artifact = (_expand(_text(dependency, key) or "", properties) for key in ("groupId", "artifactId"))
        if not group or not artifact or (_text(dependency, "type") or "jar") != "jar" or _text(dependency, "scope") in ("system", "import"):
            continue
        version = _text(dependency, "version")
        version = _expand(version, properties) if version else managed.get((group, artifact))
        found.append(Coordinate(group, artifact, version if version and "${" not in version else None))
    return found


def _gradle_dependencies(folder: Path) -> list[Coordinate]:
    found: list[Coordinate] = []
    for name in ("build.gradle", "build.gradle.kts"):
        try:
            data = read_regular(folder / name, limit=_BUILD_BYTES)
        except (OSError, GatewayError):
            continue
        text = data.decode("utf-8", "replace") if data else ""
        found += [Coordinate(group, artifact, version) for group, artifact, version in _GRADLE_COORDINATE.findall(text)]
    return found


def _jars(coordinates: list[Coordinate], home: Path) -> tuple[tuple[Path, ...], tuple[str, ...]]:
    """The jar of each coordinate in the local Maven repository or Gradle cache, and those not there."""
    jars: dict[Path, None] = {}
    missing: dict[str, None] = {}
    for coordinate in dict.fromkeys(coordinates):
        parts = (coordinate.group, coordinate.artifact, coordinate.version or "")
        if any("/" in part or "\\" in part or ".." in part for part in parts):
            continue  # a build file's names are a repository's words: never a path out of the local repositories
        jar = _maven_jar(coordinate, home / ".m2" / "repository") or _gradle_jar(coordinate, home / ".gradle" / "caches" / "modules-2" / "files-2.1")
        if jar is None:
            missing[f"{coordinate.group}:{coordinate.artifact}"] = None
        else:
            jars[jar] = None
    return tuple(jars), tuple(missing)


def _maven_jar(coordinate: Coordinate, repository: Path) -> Path | None:
    folder = repository.joinpath(*coordinate.group.split(".")) / coordinate.artifact
    versions = [coordinate.version] if coordinate.version else _newest_first(folder)
    for version in versions:
        jar = folder / version / f"{coordinate.artifact}-{version}.jar"
        if jar.is_file():
            return jar
    return None


def _gradle_jar(coordinate: Coordinate, cache: Path) -> Path | None:
    folder = cache / coordinate.group / coordinate.artifact
    versions = [coordinate.version] if coordinate.version else _newest_first(folder)
    for version in versions:
        for jar in sorted((folder / version).glob(f"*/{coordinate.artifact}-{version}.jar")):
            return jar
    return None


def _newest_first(folder: Path) -> list[str]:
    try:
        names = [child.name for child in folder.iterdir() if child.is_dir()]
    except OSError:
        return []
    return sorted(names, key=lambda name: [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"[.\-]", name)], reverse=True)
