"""`.gateway/config.toml` `[typed_edits]`: enforcement, protected paths, grant lifetime."""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path

from gateway.errors import UsageError
from gateway.typed.kinds import catalogue

CONFIG_PATH = Path(".gateway") / "config.toml"
STATE_DIR = Path(".gateway") / "state"


@dataclass(frozen=True)
class TypedEditsConfig:
    enforce: bool
    protected: tuple[str, ...]
    grant_ttl_seconds: int

    def protected_glob(self, display: str) -> str | None:
        """The glob that protects a workspace-relative path, if any (matched on the path and on its name)."""
        name = display.rsplit("/", 1)[-1]
        for glob in (*catalogue().rules.always_protected, *self.protected):
            if fnmatch.fnmatchcase(display, glob) or fnmatch.fnmatchcase(name, glob):
                return glob
        return None


def load_config(root: Path) -> TypedEditsConfig:
    """The workspace's typed-edit settings; defaults when the file or the table is absent."""
    path = root / CONFIG_PATH
    data: dict[str, object] = {}
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text("utf-8")).get("typed_edits", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
            raise UsageError(f"{CONFIG_PATH}: {error}") from None
    enforce, protected = data.get("enforce", False), data.get("protected", [])
    ttl = data.get("grant_ttl_seconds", catalogue().rules.grant_ttl_seconds)
    if not isinstance(enforce, bool):
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] enforce must be true or false")
    if not isinstance(protected, list) or not all(isinstance(g, str) for g in protected):
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] protected must be a list of globs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] grant_ttl_seconds must be a positive integer")
    return TypedEditsConfig(enforce=enforce, protected=tuple(protected), grant_ttl_seconds=ttl)


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds a `.gateway` directory."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".gateway").is_dir():
            return candidate
    return None
