"""jdtls on a Maven-layout workspace (pom.xml, src/main/java): analysed in full as an invisible
project of its source folders, without the build's import, so that a header change's broken
caller is reported (BASE said "Not verified: jdtls reports only syntax errors for a file
outside the projects it loaded"); and the pom's plugins, extensions and wrapper never run, and
nothing is written into the workspace. One real jdtls start, its index folder fresh."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gateway.api import Gateway

pytestmark = pytest.mark.usefixtures("servers")

CART = """package demo;

public class Cart {
    public int count() {
        return 2;
    }
}
"""
SHOP = """package demo;

public class Shop {
    int items() {
        return new Cart().count();
    }
}
"""


def _evil(path: Path, marker: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!/bin/sh\necho ran >> {marker}\nexit 1\n")
    path.chmod(0o755)


def _hostile_pom(root: Path) -> str:
    """A pom whose build, if run, writes markers: a build extension and plugins from a repository
    of the workspace's own, an exec plugin at the first phase running the workspace's script."""
    return f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId><artifactId>shop</artifactId><version>1</version>
  <repositories><repository><id>own</id><url>file://{root}/repo</url></repository></repositories>
  <pluginRepositories><pluginRepository><id>own</id><url>file://{root}/repo</url></pluginRepository></pluginRepositories>
  <build>
    <extensions><extension><groupId>evil</groupId><artifactId>extension</artifactId><version>1</version></extension></extensions>
    <plugins>
      <plugin><groupId>org.codehaus.mojo</groupId><artifactId>exec-maven-plugin</artifactId><version>3.1.0</version>
        <executions><execution><phase>initialize</phase><goals><goal>exec</goal></goals>
          <configuration><executable>{root}/evil.sh</executable></configuration></execution></executions>
      </plugin>
      <plugin><groupId>evil</groupId><artifactId>evil-maven-plugin</artifactId><version>1</version><extensions>true</extensions></plugin>
    </plugins>
  </build>
</project>
"""


def _tree(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def test_a_maven_layouts_broken_caller_is_reported_and_nothing_of_its_build_runs_or_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # a cold start: no index folder of an earlier run
    markers = tmp_path / "markers"
    markers.mkdir()
    root = tmp_path / "ws"
    (root / "src" / "main" / "java" / "demo").mkdir(parents=True)
    cart = root / "src" / "main" / "java" / "demo" / "Cart.java"
    cart.write_text(CART)
    (root / "src" / "main" / "java" / "demo" / "Shop.java").write_text(SHOP)
    (root / "pom.xml").write_text(_hostile_pom(root))
    (root / ".mvn").mkdir()
    (root / ".mvn" / "extensions.xml").write_text(
        "<extensions><extension><groupId>evil</groupId><artifactId>core-extension</artifactId><version>1</version></extension></extensions>\n")
    (root / ".mvn" / "jvm.config").write_text(f"-javaagent:{root / 'evil.jar'}\n")
    _evil(root / "evil.sh", markers / "exec-plugin")
    _evil(root / "mvnw", markers / "mvnw")
    (root / ".gateway").mkdir()
    (root / ".gateway" / "config.toml").write_text("[verify]\nbudget_ms = 120000\n")
    before = _tree(root)

    with Gateway(root) as gateway:
        body = gateway.edit("src/main/java/demo/Cart.java", "public int count() {", "public int count(int extra) {").to_json()

    assert body["verified"] == "checked", body
    broken = [(error["path"], error["line"]) for error in body["new_errors"]]
    assert broken == [("src/main/java/demo/Shop.java", 5)], body
    assert "count(int)" in body["new_errors"][0]["message"], body
    assert sorted(os.listdir(markers)) == []
    after = _tree(root)
    assert after.pop("src/main/java/demo/Cart.java") == CART.replace("count()", "count(int extra)").encode()
    before.pop("src/main/java/demo/Cart.java")
    assert after == before  # nothing else written into the workspace: no .project, .classpath, .settings, target/
