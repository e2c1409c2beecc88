"""`gateway hook install|uninstall HOST`: the gateway's hook and MCP server merged into a host's
configuration, project-level by default, user-level with `--user`.

Each host's files are listed by `gateway.surfaces.hooks.host_configs`; this module does the merging
and the bookkeeping. Nothing else in a file is touched. Installing twice changes nothing.
The first install keeps each file's bytes (or its absence) in the user's state directory, and
uninstall gives them back byte for byte when what is left after removing the gateway's entries
is what was there; otherwise it writes what is left. The command written must run where the
host runs it: `gateway` must be on PATH (checked now), or `--absolute` writes this
installation's path. The command refuses every edit, in the host's blocking convention,
if the executable has gone missing by then.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shlex
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from gateway.atomic import write_new_text
from gateway.errors import UsageError
from gateway.surfaces.hooks import registry
from gateway.surfaces.hooks.host_configs import Commands, config_files
from gateway.surfaces.hooks.sandboxes import sandbox_files
from gateway.surfaces.hooks.trust import hook_trust
from gateway.userstate import private_file, state_home

MISSING = "edits are refused until it is"


def _gateway_program() -> Path:
    """The `gateway` program of this installation (the script beside this Python, or on PATH)."""
    beside = Path(sys.executable).parent / "gateway"
    found = beside if beside.exists() else shutil.which("gateway")
    return Path(found).absolute() if found else Path("gateway")


def _guarded(program: str, check: str, host: str) -> Commands:
    """The hook commands, each failing closed when `program` cannot run: exit 2 (with one line)
    if it is missing, and exit 2 whatever else it exits with when it fails (a broken
    installation exits 1, which Gemini CLI and Codex CLI would take as "run the tool"). The
    end of a turn refuses nothing, and exit 2 there makes a host go on forever (Codex CLI):
    the stop hook's own failures exit 0, and the next hook call checks the same writes."""
    guard = f'{check} || {{ echo "gateway: {program} not found; {MISSING} (gateway hook install {host} --absolute)" >&2; exit 2; }}; '
    hook = {event: f"{guard}{program} hook {host} {event} || exit 2" for event in ("pre", "post", "start")}
    hook["stop"] = f"{program} hook {host} stop || true"
    return Commands(host=host, program=program, hook=hook)


def commands(host: str, workspace: Path, absolute: bool) -> Commands:
    """`gateway` as PATH finds it at run time (refused when it is not on PATH now), a path relative
    to the project when the installation lives inside it and the host names the project to its
    hooks (`Host.program_env`: Claude Code), or, with `absolute`,
    this installation's path. Teams commit project files, so nothing machine-specific by default."""
    program = _gateway_program()
    if absolute:
        quoted = shlex.quote(str(program))
        return _guarded(quoted, f"[ -x {quoted} ]", host)
    variable = registry.host(host).program_env  # type: ignore[union-attr]  # checked by the caller
    if variable is not None and program.is_absolute() and program.is_relative_to(workspace):
        inside = f'"${variable}"/' + shlex.quote(program.relative_to(workspace).as_posix())
        found = _guarded(inside, f"[ -x {inside} ]", host)
        return Commands(host, inside, found.hook, mcp_command=f"${{{variable}:-.}}/" + program.relative_to(workspace).as_posix())
    on_path = shutil.which("gateway")
    if on_path is None:
        raise UsageError(
            f"`gateway` is not on PATH here, so {host} could not run the hook (every edit would be refused); "
            f"put {program.parent} on PATH, or rerun with --absolute to write {program}"
        )
    return _guarded("gateway", "command -v gateway >/dev/null 2>&1", host)


def _record_path(path: Path) -> Path:
    directory = state_home() / "installs"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory / (hashlib.sha256(str(path.absolute()).encode()).hexdigest()[:32] + ".json")


def _read(path: Path) -> str | None:
    try:
        return path.read_text("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: cannot be read ({error}); fix it first") from None


def _keep_original(path: Path, text: str | None) -> None:
    record = _record_path(path)
    if record.exists():
        return
    original = None if text is None else base64.b64encode(text.encode()).decode()
    private_file(record, json.dumps({"path": str(path.absolute()), "original": original}).encode())


def _original(path: Path) -> tuple[bool, str | None]:
    """(whether the first install kept this file's original, the original text or None if absent)."""
    try:
        record = json.loads(_record_path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return False, None
    if not isinstance(record, dict) or record.get("path") != str(path.absolute()):
        return False, None
    original = record.get("original")
    return True, base64.b64decode(original).decode() if isinstance(original, str) else None


def _write(path: Path, text: str | None) -> None:
    if text is None:
        path.unlink(missing_ok=True)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    write_new_text(path, text)


def install(host: str, workspace: Path, user: bool = False, absolute: bool = False, allow_mcp: bool = False,
            mcp_writes: bool = False, enforce: bool = False) -> dict[str, Any]:
    found = replace(commands(host, workspace, absolute), mcp_writes=mcp_writes)
    sandbox = sandbox_files(host, workspace, user) if enforce else []
    files = config_files(host, workspace, user, found, allow_mcp) + sandbox
    planned: dict[Path, tuple[str | None, str]] = {}
    for file in files:  # every file merged before any is written: a bad one leaves all as they were
        current = planned[file.path][1] if file.path in planned else _read(file.path)
        original = planned[file.path][0] if file.path in planned else current
        planned[file.path] = (original, file.add(current))
    for path, (current, merged) in planned.items():
        _keep_original(path, current)
        if merged != current:
            _write(path, merged)
    where = "your user configuration" if user else str(workspace)
    tools = ("its write tools too, refused wherever your rules deny the host's own edit tools" if mcp_writes
             else "read tools only (--mcp-writes adds its write tools)")
    notes = f"; the MCP server offers {tools}" + "".join(f"; {file.note}" for file in files if file.note)
    if enforce and not sandbox:
        notes += f"; {registry.host(host).no_sandbox}: enforcement there stays advisory"  # type: ignore[union-attr]
    trust = hook_trust(host, workspace, user)
    return {
        "ok": True,
        "files": [str(path) for path in planned],
        "command": found.hook["pre"],
        "hooks_run": trust.state,
        "message": f"installed the gateway hook and MCP server for {host} in {where} ({', '.join(map(str, planned))}){notes}"
                   f"\n{'the hooks run now' if trust.state == 'runs' else 'the hooks do NOT run yet'}: {trust.detail}",
    }


def uninstall(host: str, workspace: Path, user: bool = False) -> dict[str, Any]:
    files = config_files(host, workspace, user, Commands(host, "gateway", {}), False) + sandbox_files(host, workspace, user)
    changed = []
    for file in files:
        current = _read(file.path)
        if current is None:
            continue
        left = file.remove(current)
        kept, original = _original(file.path)
        restored = original if kept and file.bare(original) == file.bare(current) else left
        if restored != current:
            _write(file.path, restored)
            changed.append(str(file.path))
        _record_path(file.path).unlink(missing_ok=True)
    where = "your user configuration" if user else str(workspace)
    return {"ok": True, "files": changed, "message": f"removed the gateway hook and MCP server for {host} from {where}"}
