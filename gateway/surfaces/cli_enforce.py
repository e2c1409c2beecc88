"""`gateway enforce status|rearm` and `gateway doctor`: the typed-edit enforcement state of a
workspace, re-arming it after tampering (the user's act: a terminal's confirmation or --yes,
logged), and a short report of the servers, the hosts installed and whether enforcement is
sandboxed or advisory per host.

Not operations of the table: an agent's MCP client must never be offered `rearm`. While the
state is tampered the gateway's hooks refuse every shell command of the agent, `rearm`
included; only a sandbox stops a shell the hooks do not see (a process started earlier).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from gateway.errors import EXIT_OK, EXIT_TAMPERED, UsageError

Outcome = tuple[dict[str, Any], str, int]
CONFIRM = "rearm"


def _typed(args: argparse.Namespace) -> Any:
    from gateway.config import find_root
    from gateway.typed.service import TypedEdits
    from gateway.workspace import Workspace

    if not os.path.isdir(args.workspace):
        raise UsageError(f"workspace {args.workspace} is not a directory")
    start = Path(args.workspace).resolve()
    return TypedEdits(Workspace(find_root(start) or start))


def _modes(root: Path) -> list[dict[str, Any]]:
    from gateway.surfaces.hooks.sandboxes import enforcement

    return [{"host": e.host, "installed": e.installed, "mode": e.mode, "why": e.why} for e in enforcement(root)]


def _state(typed: Any) -> dict[str, Any]:
    from gateway.typed.arming import check
    from gateway.typed.watch import lock

    with lock(typed):
        armed = check(typed)
    return {"enforced": typed.config().enforce, "state": armed.state, "reason": armed.reason}


def _state_line(state: dict[str, Any]) -> str:
    if not state["enforced"] and state["state"] == "fresh":
        return "typed edits: not enforced ([typed_edits] enforce = true turns them on)"
    if state["state"] == "tampered":
        return f"typed edits: TAMPERED, every write refused: {state['reason']} (check, then `gateway enforce rearm`)"
    return f"typed edits: {'enforced' if state['enforced'] else 'not enforced'}, {'armed' if state['state'] == 'armed' else 'not armed yet (the first hook call arms it)'}"


def _cmd_status(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.hooks.sandboxes import enforcement_lines

    typed = _typed(args)
    state = _state(typed)
    hosts = _modes(typed.workspace.root)
    text = "\n".join([_state_line(state), *enforcement_lines(typed.workspace.root)])
    return {**state, "hosts": hosts}, text, EXIT_TAMPERED if state["state"] == "tampered" else EXIT_OK


def _confirmed(args: argparse.Namespace, typed: Any, reason: str) -> str:
    """How the user confirmed: --yes, or typing the word at a terminal."""
    if args.yes:
        return "--yes"
    if not sys.stdin.isatty():
        raise UsageError("enforce rearm: needs the user's confirmation; run it in a terminal, or pass --yes")
    print(f"Re-arm typed-edit enforcement in {typed.workspace.root}?", file=sys.stderr)
    if reason:
        print(f"What was found: {reason}", file=sys.stderr)
    print("The workspace as it is now becomes the baseline. Type rearm to confirm: ", end="", file=sys.stderr, flush=True)
    if sys.stdin.readline().strip() != CONFIRM:
        raise UsageError("enforce rearm: not confirmed; nothing changed")
    return f"terminal {os.ttyname(sys.stdin.fileno())}"


def _cmd_rearm(args: argparse.Namespace) -> Outcome:
    from gateway.typed.arming import rearm

    typed = _typed(args)
    if not typed.config().enforce:
        raise UsageError(f"enforce rearm: typed edits are not enforced in {typed.workspace.root} ([typed_edits] enforce = true)")
    before = _state(typed)
    how = _confirmed(args, typed, before["reason"])
    found = rearm(typed, by=f"user ({how}, pid {os.getpid()})")
    was = f"it was tampered: {found.reason}" if found.state == "tampered" else f"it was {found.state}"
    return ({"ok": True, "was": found.state, "reason": found.reason},
            f"enforcement re-armed in {typed.workspace.root} ({was}); the audit log records it", EXIT_OK)


def _servers() -> list[dict[str, Any]]:
    from gateway.langs import default_registry
    from gateway.lsp.discovery import find_server

    rows = []
    for lang in default_registry().languages.values():
        command = find_server(lang.server)
        rows.append({"language": lang.name, "server": command[0] if command else None})
    return rows


def _cmd_doctor(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.cli_daemon import daemon_line
    from gateway.surfaces.hooks.sandboxes import enforcement_lines

    typed = _typed(args)
    root = typed.workspace.root
    servers = _servers()
    found = ", ".join(f"{s['language']} ({os.path.basename(s['server'])})" for s in servers if s["server"]) or "none"
    missing = ", ".join(s["language"] for s in servers if not s["server"]) or "none"
    state = _state(typed)
    hosts = _modes(root)
    installed = ", ".join(h["host"] for h in hosts if h["installed"]) or "none"
    lines = [f"gateway doctor: {root}", f"language servers found: {found}", f"not found: {missing}", daemon_line(str(root)),
             f"hosts with the gateway hook: {installed}", _state_line(state), *enforcement_lines(root)]
    payload = {"workspace": str(root), "servers": servers, "typed_edits": state, "hosts": hosts}
    return payload, "\n".join(lines), EXIT_OK


def add_enforce_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    enforce = commands.add_parser("enforce", help="typed-edit enforcement: status, rearm after tampering")
    actions = enforce.add_subparsers(dest="action", required=True, parser_class=type(enforce))
    status = actions.add_parser("status", parents=[common], help="armed, tampered (and why) or not armed; sandboxed or advisory per host")
    status.set_defaults(handler=_cmd_status)
    rearm = actions.add_parser("rearm", parents=[common], help="re-arm after tampering: the workspace as it is becomes the baseline (asks to confirm)")
    rearm.add_argument("--yes", action="store_true", help="confirm without asking (logged as such)")
    rearm.set_defaults(handler=_cmd_rearm)


def add_doctor_command(commands: Any, common: argparse.ArgumentParser) -> None:
    doctor = commands.add_parser("doctor", parents=[common], help="servers, daemon, hosts installed, enforcement sandboxed or advisory per host")
    doctor.set_defaults(handler=_cmd_doctor)
