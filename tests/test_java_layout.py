"""The Java layout jdtls is given in place of a Maven or Gradle import, read from the build files
as data: each module's source folders, and the jars its build names that the user's local
repositories already hold (versions from the pom, its properties, the workspace's
dependencyManagement, else the newest there); the workspace's own modules are sources."""

from __future__ import annotations

from pathlib import Path

from gateway.lsp.adapters.java_layout import java_layout

PARENT = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <groupId>org.shop</groupId><artifactId>parent</artifactId><version>2.0</version>
  <modules><module>core</module><module>app</module></modules>
  <properties><guava.version>33.0-jre</guava.version></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId><version>${guava.version}</version></dependency>
  </dependencies></dependencyManagement>
</project>
"""
CORE = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>org.shop</groupId><artifactId>parent</artifactId><version>2.0</version></parent>
  <artifactId>core</artifactId>
  <dependencies>
    <dependency><groupId>com.google.guava</groupId><artifactId>guava</artifactId></dependency>
    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><scope>test</scope></dependency>
    <dependency><groupId>org.absent</groupId><artifactId>nowhere</artifactId><version>1</version></dependency>
    <dependency><groupId>org.shop</groupId><artifactId>bom</artifactId><version>1</version><type>pom</type></dependency>
  </dependencies>
</project>
"""
APP = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>org.shop</groupId><artifactId>parent</artifactId><version>2.0</version></parent>
  <artifactId>app</artifactId>
  <build><sourceDirectory>java</sourceDirectory></build>
  <dependencies><dependency><groupId>org.shop</groupId><artifactId>core</artifactId><version>${project.version}</version></dependency></dependencies>
</project>
"""


def _jar(home: Path, group: str, artifact: str, version: str) -> Path:
    folder = home / ".m2" / "repository" / Path(*group.split(".")) / artifact / version
    folder.mkdir(parents=True)
    (folder / f"{artifact}-{version}.jar").write_bytes(b"PK\x05\x06" + bytes(18))
    return folder / f"{artifact}-{version}.jar"


def test_a_maven_workspaces_source_folders_and_the_local_jars_its_poms_name(tmp_path: Path) -> None:
    root, home = tmp_path / "ws", tmp_path / "home"
    for relative, text in {"pom.xml": PARENT, "core/pom.xml": CORE, "app/pom.xml": APP}.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    for folder in ("core/src/main/java/org", "core/src/test/java/org", "core/src/main/resources", "app/java/org",
                   "core/target/generated-sources/src/main/java", ".hidden/src/main/java"):
        (root / folder).mkdir(parents=True)
    (root / ".hidden" / "pom.xml").write_text(CORE)
    guava = _jar(home, "com.google.guava", "guava", "33.0-jre")
    _jar(home, "com.google.guava", "guava", "20.0")  # another version the build does not name
    _jar(home, "junit", "junit", "3.8.1")
    junit = _jar(home, "junit", "junit", "4.13.2")  # no version named anywhere: the newest

    layout = java_layout(root, home)

    assert layout is not None
    assert layout.builds == ("pom.xml", "app/pom.xml", "core/pom.xml")
    assert layout.source_folders == ("app/java", "core/src/main/java", "core/src/test/java")
    assert layout.libraries == (guava, junit)
    assert layout.missing == ("org.absent:nowhere",)  # core, a module of the workspace, is its sources


def test_a_gradle_scripts_coordinates_from_the_gradle_cache_and_a_bare_folder_has_no_layout(tmp_path: Path) -> None:
    root, home = tmp_path / "ws", tmp_path / "home"
    (root / "lib" / "src" / "main" / "java").mkdir(parents=True)
    (root / "settings.gradle.kts").write_text('include("lib")\n')
    (root / "lib" / "build.gradle.kts").write_text('dependencies {\n    implementation("org.slf4j:slf4j-api:2.0.9")\n}\n')
    cached = home / ".gradle" / "caches" / "modules-2" / "files-2.1" / "org.slf4j" / "slf4j-api" / "2.0.9" / "abc123"
    cached.mkdir(parents=True)
    (cached / "slf4j-api-2.0.9.jar").write_bytes(b"PK")

    layout = java_layout(root, home)

    assert layout is not None and layout.source_folders == ("lib/src/main/java",)
    assert layout.libraries == (cached / "slf4j-api-2.0.9.jar",) and layout.missing == ()
    bare = tmp_path / "bare"
    (bare / "src" / "demo").mkdir(parents=True)
    assert java_layout(bare, home) is None
