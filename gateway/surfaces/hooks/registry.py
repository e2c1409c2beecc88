"""The hosts the hook serves. Each registers itself, in its own module of
`gateway.surfaces.hooks.hosts` (its file is all there is to adding a host): its name, the
events it sends, the environment variable naming its project, where its edit tools name their
file, how it edits, its adapter (payload to `HookCall`, `Answer` to reply), how it is
installed, what of its user's settings denies its edit tools, whether it runs the hooks
(trust), and its sandbox. The hook's thin client reads this module and one host's module, so
both hold no more than the builtins at module level (no dataclasses, no typing: see
`hooks.client`)."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from gateway.hostcalls import Answer, HookCall

    # What `host_configs` (Commands, ConfigFile), `host_denies` (Deny) and `trust` (HookTrust)
    # make: those modules read the registry, so it names their types only as these.
    Commands = Any
    ConfigFile = Any
    Deny = Any
    HookTrust = Any

PACKAGE = "gateway.surfaces.hooks.hosts"
EVENTS = ("pre", "post", "start", "stop")


class Host:
    """One agent host, as its module registers it.

    `events`: the host's event names and what each is ("pre", "post", "start", "stop").
    `project_env`: the environment variable in which it names the project to its hooks.
    `file_fields`: (object, field) where its edit tools name their file (a daemon started for
    the call starts that file's server first). `edit_style`: how its edit tool applies a
    replacement (`HookCall.style`); `edit_tools`: what its agent writes files with, which the
    shell report names. `to_call` / `reply`: its adapter. `deny_on_error`: it shows the model
    no stderr, so an error before a tool is answered with its deny. `config_files`: the files
    `gateway hook install` writes. `process_names` / `denies`: how its process is found and
    what of its user's settings denies its edit tools. `trust`: whether it runs installed
    hooks; `notices`: what a session must be told at its start where it runs the gateway's MCP
    server but not its hooks. `sandbox` / `enforcement`: the sandbox settings `install --enforce` adds and the
    enforcement mode they give; `no_sandbox` says why a host without one stays advisory.
    `program_env`: the variable its hook commands may start a program inside the project by."""

    __slots__ = ("name", "events", "project_env", "file_fields", "edit_style", "edit_tools", "to_call", "reply", "deny_on_error",
                 "config_files", "process_names", "denies", "trust", "notices", "sandbox", "enforcement", "no_sandbox", "program_env")

    def __init__(self, name: str, *, events: dict[str, str], to_call: Callable[[dict[str, Any], dict[str, str | None], str | None], HookCall | None],
                 reply: Callable[[dict[str, Any], HookCall | None, Answer], dict[str, Any] | None],
                 config_files: Callable[[Path, bool, Commands, bool], list[ConfigFile]],
                 denies: Callable[[Path, list[str]], list[Deny]], trust: Callable[[Path, bool], HookTrust],
                 edit_tools: str, process_names: tuple[str, ...], project_env: str | None = None,
                 file_fields: tuple[tuple[str, str], ...] = (), edit_style: str = "exact", deny_on_error: bool = False,
                 sandbox: Callable[[Path, bool], list[ConfigFile]] | None = None,
                 enforcement: Callable[[Path], tuple[str, str]] | None = None, no_sandbox: str = "", program_env: str | None = None,
                 notices: Callable[[Path], list[str]] | None = None) -> None:
        self.name, self.events, self.project_env, self.file_fields = name, events, project_env, file_fields
        self.edit_style, self.edit_tools, self.to_call, self.reply = edit_style, edit_tools, to_call, reply
        self.deny_on_error, self.config_files, self.process_names, self.denies = deny_on_error, config_files, process_names, denies
        self.trust, self.sandbox, self.enforcement, self.no_sandbox = trust, sandbox, enforcement, no_sandbox
        self.program_env, self.notices = program_env, notices

    def events_for(self, kind: str) -> tuple[str, ...]:
        """The host's names of the events of this kind ("pre", "post", "start", "stop")."""
        return tuple(name for name, what in self.events.items() if what == kind)


_registered: dict[str, Host] = {}
_every_imported: list[bool] = []  # [True] once each module of the hosts package is imported


def register(host: Host) -> Host:
    """Called by each host's module as it is imported."""
    _registered[host.name] = host
    return host


def _module_name(host: str) -> str | None:
    """The module a host's name lives in (`claude-code`: `hosts/claude_code.py`); None for a name no module can have."""
    module = host.replace("-", "_")
    return module if module.isidentifier() and module.islower() and not module.startswith("_") else None


def host(name: object) -> Host | None:
    """The host named `name` (its module imported, and nothing else), or None."""
    if not isinstance(name, str):
        return None
    if name not in _registered:
        module = _module_name(name)
        if module is None:
            return None
        try:
            __import__(f"{PACKAGE}.{module}")  # not importlib's import_module: `importlib` loads `warnings`, a cost to the hook
        except ModuleNotFoundError as error:
            if error.name != f"{PACKAGE}.{module}":
                raise
            return None
    return _registered.get(name)


def hosts() -> dict[str, Host]:
    """Every host, by name (in the order of their modules' names): each module of the hosts
    package is imported, and registers its host."""
    if not _every_imported:  # once: the package's modules do not change under a running process
        directory = os.path.join(os.path.dirname(__file__), "hosts")
        for file in sorted(os.listdir(directory)):
            if file.endswith(".py") and not file.startswith("_"):
                __import__(f"{PACKAGE}.{file[:-3]}")
        _every_imported.append(True)
    return {name: _registered[name] for name in sorted(_registered, key=lambda name: _module_name(name) or name)}


def names() -> tuple[str, ...]:
    return tuple(hosts())


def events_for(kind: str) -> tuple[str, ...]:
    """Every host's names of the events of this kind."""
    return tuple(dict.fromkeys(name for found in hosts().values() for name in found.events_for(kind)))


def context_of(name: str) -> dict[str, str | None]:
    """What the hook's process adds to its input: its working directory and the project
    directory the host names in the environment (`Host.project_env`)."""
    found = host(name)
    variable = found.project_env if found is not None else None
    return {"cwd": os.getcwd(), "project_dir": os.environ.get(variable) if variable else None}
