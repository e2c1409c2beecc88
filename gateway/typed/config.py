"""`.gateway/config.toml` `[typed_edits]`: enforcement, protected paths, grant lifetime."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from pathlib import Path

from gateway.config import CONFIG_PATH, config_table, refuse_unknown_keys, table_of
from gateway.errors import UsageError
from gateway.typed.kinds import catalogue


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


def load_config(root: Path, raw: bytes | None = None) -> TypedEditsConfig:
    """The workspace's typed-edit settings (or those of the config file's bytes `raw`); defaults
    when the file or the table is absent."""
    data = config_table(root, "typed_edits") if raw is None else table_of(raw, "typed_edits")
    refuse_unknown_keys("typed_edits", data, {"enforce", "protected", "grant_ttl_seconds"})
    enforce, protected = data.get("enforce", False), data.get("protected", [])
    ttl = data.get("grant_ttl_seconds", catalogue().rules.grant_ttl_seconds)
    if not isinstance(enforce, bool):
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] enforce must be true or false")
    if not isinstance(protected, list) or not all(isinstance(g, str) for g in protected):
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] protected must be a list of globs")
    if not isinstance(ttl, int) or isinstance(ttl, bool) or ttl <= 0:
        raise UsageError(f"{CONFIG_PATH}: [typed_edits] grant_ttl_seconds must be a positive integer")
    return TypedEditsConfig(enforce=enforce, protected=tuple(protected), grant_ttl_seconds=ttl)
