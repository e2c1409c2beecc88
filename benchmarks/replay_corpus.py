"""The replay benchmark's default corpus: one git repository per package listed in
replay_corpus.toml, one commit per release, built from what a fresh machine can reach
(PyPI's simple API, `npm pack`, `apt-get download`). Archives are cached; nothing built
here is tracked by git.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPEC = HERE / "replay_corpus.toml"
CACHE = HERE / "results" / "cache"
CORPUS = HERE / "results" / "corpus"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "replay", "GIT_AUTHOR_EMAIL": "replay@localhost", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_NAME": "replay", "GIT_COMMITTER_EMAIL": "replay@localhost", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


@dataclass(frozen=True)
class Source:
    registry: str
    package: str
    versions: tuple[str, ...]
    languages: tuple[str, ...]

    @property
    def slug(self) -> str:
        return f"{self.registry}-{self.package.replace('/', '-').replace('@', '')}"


def load_sources(spec: Path = SPEC) -> list[Source]:
    raw = tomllib.loads(spec.read_text(encoding="utf-8"))
    return [Source(s["registry"], s["package"], tuple(s["versions"]), tuple(s["languages"])) for s in raw["source"]]


def _pypi(package: str, version: str, target: Path) -> Path:
    request = urllib.request.Request(
        f"https://pypi.org/simple/{package}/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    with urllib.request.urlopen(request, timeout=60) as reply:
        files = json.load(reply)["files"]
    wanted = [f for f in files if f["filename"].lower().endswith(f"-{version}.tar.gz".lower())]
    if not wanted:
        raise RuntimeError(f"pypi: no sdist of {package} {version}")
    archive = target / wanted[0]["filename"]
    with urllib.request.urlopen(wanted[0]["url"], timeout=120) as reply:
        archive.write_bytes(reply.read())
    return archive


def _npm(package: str, version: str, target: Path) -> Path:
    done = subprocess.run(
        ["npm", "pack", f"{package}@{version}", "--pack-destination", str(target), "--json", "--silent"],
        capture_output=True, text=True, timeout=300, check=True,
    )
    return target / json.loads(done.stdout)[0]["filename"]


def _debian(package: str, version: str, target: Path) -> Path:
    before = set(target.glob("*.deb"))
    done = subprocess.run(["apt-get", "download", f"{package}={version}"], cwd=target, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 and os.geteuid() == 0:
        subprocess.run(["apt-get", "update", "-qq"], capture_output=True, timeout=600)
        done = subprocess.run(["apt-get", "download", f"{package}={version}"], cwd=target, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"debian: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'download failed'}")
    return next(iter(set(target.glob("*.deb")) - before))


def fetch(source: Source, version: str) -> Path:
    """The release's archive, downloaded once into the cache."""
    folder = CACHE / source.slug / version
    archives = [p for p in folder.glob("*") if p.is_file()] if folder.is_dir() else []
    if archives:
        return archives[0]
    folder.mkdir(parents=True, exist_ok=True)
    getter = {"pypi": _pypi, "npm": _npm, "debian": _debian}[source.registry]
    return getter(source.package, version, folder)


def _unpack(archive: Path, target: Path) -> None:
    if archive.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", str(archive), str(target)], check=True, capture_output=True, timeout=300)
        return
    with tarfile.open(fileobj=io.BytesIO(archive.read_bytes())) as bundle:
        for member in bundle.getmembers():
            parts = Path(member.name).parts[1:]  # every sdist and npm tarball has one top folder
            if not member.isfile() or not parts or ".." in parts:
                continue
            extracted = bundle.extractfile(member)
            if extracted is None:
                continue
            destination = target.joinpath(*parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(extracted.read())


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env={**os.environ, **GIT_ENV}, timeout=600)


def build(source: Source) -> Path:
    """The source's repository (built once; rebuilt when its list of versions changes)."""
    repo = CORPUS / source.slug
    marker = repo / ".git" / "replay-versions"
    if marker.is_file() and marker.read_text() == "\n".join(source.versions):
        return repo
    shutil.rmtree(repo, ignore_errors=True)
    repo.mkdir(parents=True)
    _git(repo, "init", "-q")
    for version in source.versions:
        archive = fetch(source, version)
        for entry in repo.iterdir():
            if entry.name != ".git":
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        _unpack(archive, repo)
        _git(repo, "add", "-A", "-f")
        _git(repo, "commit", "-q", "--allow-empty", "-m", f"{source.package} {version}")
    marker.write_text("\n".join(source.versions))
    return repo


def build_all(languages: set[str] | None = None) -> list[tuple[Source, Path]]:
    built = []
    for source in load_sources():
        if languages is not None and not languages & set(source.languages):
            continue
        try:
            built.append((source, build(source)))
        except (RuntimeError, OSError, subprocess.SubprocessError, KeyError, ValueError) as error:
            print(f"replay corpus: {source.registry} {source.package}: skipped ({error})", file=sys.stderr)
    return built
