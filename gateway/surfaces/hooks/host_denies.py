"""Whether the user of the host that runs `gateway mcp --host HOST` denied that host's own edit
tools, for a path: read at each write, from where each host takes it (each host's module reads
its own: `Host.denies`; Claude Code's `permissions.deny`, OpenCode's `permission`, Gemini CLI's
excluded tools and plan mode, Copilot CLI's `--deny-tool`, Codex CLI's read-only sandbox).

Command-line flags are read from the host's process (/proc, Linux); where it cannot be found,
only the files are read."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from gateway.surfaces.hooks import registry
from gateway.surfaces.hooks.host_settings import home, host_process

@dataclass(frozen=True)
class Deny:
    """One rule of the user's that denies the host's edits: on every path (`covers` None) or on
    the paths `covers` accepts; `source` says which rule, where."""

    source: str
    covers: Callable[[Path | None], bool] | None = None

    def denies(self, paths: Iterable[Path] | None) -> bool:
        """Whether it denies a write to `paths` (None: the files are not known before the write,
        and `covers(None)` says whether the rule may deny some file)."""
        if self.covers is None:
            return True
        return self.covers(None) if paths is None else any(self.covers(path) for path in paths)


def refusal(host: str, workspace: Path, paths: list[Path] | None) -> str | None:
    """Why the user's rules refuse a gateway write to `paths`, or None: the rules of `host`, and
    those of the host found running the server where that is another (Copilot CLI runs the
    server Claude Code's install registers)."""
    known = registry.hosts()
    running = host_process({name: found.process_names for name, found in known.items()})
    hosts = {host: running[1] if running and running[0] == host else [], **({running[0]: running[1]} if running else {})}
    for name, argv in hosts.items():
        for rule in known[name].denies(workspace, argv):
            if rule.denies(paths):
                what = "this write" if rule.covers is None else "a file this write may change" if paths is None else "this file"
                return (f"{name}'s own edit tools are denied for {what} ({rule.source}), so the gateway's MCP tools do not write it "
                        "either; ask the user")
    return None


def _glob_regex(pattern: str) -> str:
    """A gitignore-style glob as a regex: `**` crosses directories, `*` and `?` do not."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append("[^/]*" if pattern[i] == "*" else "[^/]" if pattern[i] == "?" else re.escape(pattern[i]))
            i += 1
    return "".join(out)


def gitignore_covers(pattern: str, base: Path) -> Callable[[Path | None], bool]:
    """Claude Code's path rules: `//abs`, `~/from-home`, `/from-the-project`, `rel` or `./rel`
    (from the project); a pattern with no slash but a trailing one matches at any depth; a
    match on a directory covers what is under it."""
    anchored = "/" in pattern.rstrip("/")
    if pattern.startswith("//"):
        base, pattern = Path("/"), pattern[2:]
    elif pattern.startswith("~/"):
        base, pattern = home(), pattern[2:]
    pattern = pattern.removeprefix("./").lstrip("/").rstrip("/")
    regex = re.compile(_glob_regex(pattern) if anchored else "(?:.*/)?" + _glob_regex(pattern))

    def covers(path: Path | None) -> bool:
        if path is None:
            return True
        try:
            relative = Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(base)))
        except ValueError:
            return False
        parts = relative.parts
        return any(regex.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1))

    return covers


