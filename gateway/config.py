"""`.gateway/config.toml`: one file per workspace, one table per part of the gateway."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gateway.errors import UsageError
from gateway.reading import DEFAULT_MAX_FILE_BYTES
from gateway.roots import CONFIG_FILE, gateway_root

CONFIG_PATH = Path(CONFIG_FILE)
STATE_DIR = Path(".gateway") / "state"
MAX_CONFIG_BYTES = 1 << 20
# The file's sections; a section or key not listed is an error naming it, not silently ignored.
SECTIONS = ("daemon", "gate", "mcp", "typed_edits", "verify")


def config_table(root: Path, table: str) -> dict[str, Any]:
    """One table of the workspace's config; empty when the file or the table is absent."""
    from gateway.reading import read_regular

    raw = read_regular(root / CONFIG_PATH, str(CONFIG_PATH), MAX_CONFIG_BYTES)  # a FIFO is refused, never waited on
    return table_of(raw, table)


def table_of(raw: bytes | None, table: str) -> dict[str, Any]:
    """One table of the config file's bytes `raw` (None: no file)."""
    if raw is None:
        return {}
    try:
        whole = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{CONFIG_PATH}: {error}") from None
    unknown = sorted(set(whole) - set(SECTIONS))
    if unknown:
        raise UsageError(f"{CONFIG_PATH}: there is no section [{unknown[0]}] (the sections: {', '.join(f'[{s}]' for s in SECTIONS)})")
    data = whole.get(table, {})
    if not isinstance(data, dict):
        raise UsageError(f"{CONFIG_PATH}: [{table}] must be a table")
    return data


def _known_table(root: Path | None, table: str, keys: set[str]) -> dict[str, Any]:
    """`config_table`, refusing a key the table does not have (a typo would otherwise be ignored)."""
    data = config_table(root, table) if root is not None else {}
    refuse_unknown_keys(table, data, keys)
    return data


def refuse_unknown_keys(table: str, data: dict[str, Any], keys: set[str]) -> None:
    unknown = sorted(set(data) - keys)
    if unknown:
        raise UsageError(f"{CONFIG_PATH}: [{table}] has no key {unknown[0]!r} (its keys: {', '.join(sorted(keys))})")


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds a `.gateway` directory."""
    found = gateway_root(start)
    return Path(found) if found is not None else None


@dataclass(frozen=True)
class GateConfig:
    """`[gate]`: files (and writes) larger than `max_file_bytes` are refused, not judged slowly;
    `on_structural` says what agent-facing surfaces do with a structural write ("route" or "deny");
    `on_new_syntax_error` whether a write that adds a syntax error is refused ("refuse") or
    judged like any other ("allow"); `shell` what happens after a shell command changed source
    files: "report" (the agent is told each definition it changed, unverified), "put_back" (those
    structural changes are also undone) or "off"."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    on_structural: str = "route"
    on_new_syntax_error: str = "refuse"
    shell: str = "report"


def gate_config(root: Path | None) -> GateConfig:
    data = _known_table(root, "gate", {"max_file_bytes", "on_structural", "on_new_syntax_error", "shell"})
    limit = data.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= 0:
        raise UsageError(f"{CONFIG_PATH}: [gate] max_file_bytes must be a positive integer")
    on_structural = data.get("on_structural", "route")
    if on_structural not in ("route", "deny"):
        raise UsageError(f'{CONFIG_PATH}: [gate] on_structural must be "route" or "deny"')
    on_syntax = data.get("on_new_syntax_error", "refuse")
    if on_syntax not in ("refuse", "allow"):
        raise UsageError(f'{CONFIG_PATH}: [gate] on_new_syntax_error must be "refuse" or "allow"')
    shell = data.get("shell", "report")
    if shell not in ("report", "put_back", "off"):
        raise UsageError(f'{CONFIG_PATH}: [gate] shell must be "report", "put_back" or "off"')
    return GateConfig(max_file_bytes=limit, on_structural=on_structural, on_new_syntax_error=on_syntax, shell=shell)


MOST_PRESTARTED = 16


@dataclass(frozen=True)
class DaemonConfig:
    """`[daemon]`: whether surfaces start the workspace's daemon when none runs, after how many
    idle minutes it exits (a fraction is allowed), by how many MiB a language server may grow
    past its first answer before the daemon restarts it between requests, and the servers of how
    many of the workspace's languages it starts as it starts."""

    autostart: bool = True
    idle_minutes: float = 30.0
    server_growth_mib: float = 64.0
    prestart_servers: int = 1


def _positive(data: dict[str, Any], key: str, default: float, most: float, what: str) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= most:
        raise UsageError(f"{CONFIG_PATH}: [daemon] {key} must be a number of {what}")
    return float(value)


def daemon_config(root: Path | None) -> DaemonConfig:
    data = _known_table(root, "daemon", {"autostart", "idle_minutes", "server_growth_mib", "prestart_servers"})
    autostart = data.get("autostart", True)
    if not isinstance(autostart, bool):
        raise UsageError(f"{CONFIG_PATH}: [daemon] autostart must be true or false")
    prestart = data.get("prestart_servers", 1)
    if isinstance(prestart, bool) or not isinstance(prestart, int) or not 0 <= prestart <= MOST_PRESTARTED:
        raise UsageError(f"{CONFIG_PATH}: [daemon] prestart_servers must be a whole number from 0 to {MOST_PRESTARTED}")
    return DaemonConfig(autostart=autostart, idle_minutes=_positive(data, "idle_minutes", 30.0, 7 * 24 * 60, "minutes above 0 (at most a week)"),
                        server_growth_mib=_positive(data, "server_growth_mib", 64.0, 1 << 20, "MiB above 0"),
                        prestart_servers=prestart)


@dataclass(frozen=True)
class McpConfig:
    """`[mcp]`: the optional tool groups `gateway mcp` lists. `typed_edits` defaults to
    `[typed_edits] enforce`; `contracts` to whether the workspace has contracts (contracts/*.toml)."""

    typed_edits: bool
    contracts: bool


def mcp_config(root: Path) -> McpConfig:
    data = _known_table(root, "mcp", {"typed_edits", "contracts"})
    defaults = {
        "typed_edits": config_table(root, "typed_edits").get("enforce") is True,
        "contracts": any((root / "contracts").glob("*.toml")),
    }
    for key, value in data.items():
        if not isinstance(value, bool):
            raise UsageError(f"{CONFIG_PATH}: [mcp] {key} must be true or false")
    return McpConfig(**{**defaults, **data})


@dataclass(frozen=True)
class VerifyConfig:
    """`[verify]`: what the language server's delta does after a write that adds, removes or
    renames a definition or changes a header (`gateway.verify`). `on_new_errors`: "report" (the
    errors go back with the result) or "refuse" (the write is refused, the errors its reason);
    `body`: whether body-only writes are verified too; `budget_ms`: how long the checks of one
    write may take (files that refer to what changed and were not reached are named)."""

    on_new_errors: str = "report"
    body: bool = False
    budget_ms: int = 2000


def verify_config(root: Path | None) -> VerifyConfig:
    data = _known_table(root, "verify", {"on_new_errors", "body", "budget_ms"})
    on_new_errors = data.get("on_new_errors", "report")
    if on_new_errors not in ("report", "refuse"):
        raise UsageError(f'{CONFIG_PATH}: [verify] on_new_errors must be "report" or "refuse"')
    body = data.get("body", False)
    if not isinstance(body, bool):
        raise UsageError(f"{CONFIG_PATH}: [verify] body must be true or false")
    budget = data.get("budget_ms", 2000)
    if isinstance(budget, bool) or not isinstance(budget, int) or not 0 < budget <= 600_000:
        raise UsageError(f"{CONFIG_PATH}: [verify] budget_ms must be a whole number of milliseconds from 1 to 600000")
    return VerifyConfig(on_new_errors=on_new_errors, body=body, budget_ms=budget)
