"""`gateway daemon start|stop|status [--workspace DIR]`, and `daemon run` (the daemon itself,
in the foreground; `start` runs it detached)."""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from gateway.errors import EXIT_ERROR, EXIT_OK, GatewayError, UsageError
from gateway.surfaces.daemon_client import DaemonError, DaemonUnavailable, daemon_file, request, spawn

Outcome = tuple[dict[str, Any], str, int]
START_SECONDS = 20.0


def _status(workspace: str) -> dict[str, Any] | None:
    try:
        return request(workspace, "gateway/status", {}, timeout=10)
    except DaemonUnavailable:
        return None
    except DaemonError as error:
        raise GatewayError(f"the daemon answered status with an error: {error}") from None


def _describe(status: dict[str, Any]) -> str:
    memory = status["memory"]
    servers = ", ".join(f"{s['server']} (pid {s['pid']})" for s in status["servers"]) or "none"
    total = (memory["daemon_rss_bytes"] + memory["servers_rss_bytes"]) / 2**20
    environment = status.get("environment") or {}
    lines = [
        f"gateway daemon: running for {status['workspace']} (pid {status['pid']}), up {status['uptime_seconds']:.0f} s, "
        f"{status['requests']} requests served; exits after {status['idle_minutes']:g} idle minutes",
        f"language servers: {servers}",
        *(f"{u['language']}: from tree-sitter, since {u['server']} could not be used: {u['why']}" for u in status.get("on_tree_sitter", [])),
        f"memory: {total:.0f} MiB (daemon {memory['daemon_rss_bytes'] / 2**20:.0f} MiB, servers {memory['servers_rss_bytes'] / 2**20:.0f} MiB)",
        f"serves with: state {environment.get('state')}, gateway {environment.get('package')}; each call with its caller's PATH, "
        "GATEWAY_TOOLS_DIR, GATEWAY_NO_SERVERS and GATEWAY_LSP_TIMEOUT",
    ]
    prestart = status.get("prestart") or {}
    if prestart.get("started"):
        ahead = ", ".join(f"{s['language']} (for {s['file']})" for s in prestart["started"])
        lines.append(f"started ahead: {ahead}{'' if prestart.get('done') else '; still starting'}")
    if prestart.get("error"):
        lines.append(f"starting servers ahead failed: {prestart['error']}")
    if status.get("caller_not_served_because"):
        lines.append("this shell's calls are answered in process, not by the daemon: " + "; ".join(status["caller_not_served_because"]))
    if status.get("not_served", {}).get("requests"):
        lines.append(f"calls answered in their callers' processes instead: {status['not_served']['requests']}")
    return "\n".join(lines)


def _workspace(args: argparse.Namespace) -> str:
    if not os.path.isdir(args.workspace):
        raise UsageError(f"workspace {args.workspace} is not a directory")
    return os.path.realpath(args.workspace)


def _cmd_start(args: argparse.Namespace) -> Outcome:
    workspace = _workspace(args)
    status = _status(workspace)
    if status is not None:
        return status, _describe(status).replace(": running", ": already running", 1), EXIT_OK
    try:
        daemon = spawn(workspace)
    except (OSError, DaemonUnavailable) as error:
        raise GatewayError(f"cannot start the daemon: {error}") from None
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        exited = daemon.poll()
        status = _status(workspace)
        if status is not None:
            return status, _describe(status), EXIT_OK
        if exited is not None:  # before it answered, and no other daemon answers: it failed to start
            raise GatewayError(f"the daemon exited as it started: {_last_line(daemon_file(workspace, '.log'))}")
        time.sleep(0.05)
    raise GatewayError(f"the daemon did not answer within {START_SECONDS:g} s; see {daemon_file(workspace, '.log')}")


def _last_line(log: str) -> str:
    try:
        with open(log, "rb") as handle:
            handle.seek(max(0, os.fstat(handle.fileno()).st_size - 4096))
            lines = handle.read().decode("utf-8", "replace").strip().splitlines()
    except OSError as error:
        return f"its log {log} cannot be read ({error.strerror})"
    return lines[-1].removeprefix("gateway: ") if lines else f"it wrote nothing to {log}"


def _cmd_stop(args: argparse.Namespace) -> Outcome:
    workspace = _workspace(args)
    status = _status(workspace)
    if status is None:
        return {"running": False}, f"gateway daemon: not running for {workspace}", EXIT_OK
    try:
        request(workspace, "gateway/stop", {}, timeout=10)
    except (DaemonUnavailable, DaemonError):
        pass  # it may close the connection as it stops
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline and os.path.exists(f"/proc/{status['pid']}"):
        time.sleep(0.05)
    return {"running": False, "pid": status["pid"]}, f"gateway daemon: stopped (pid {status['pid']})", EXIT_OK


def daemon_line(workspace: str) -> str:
    """The daemon in one line: running (pid, uptime) or not."""
    status = _status(workspace)
    if status is None:
        return f"gateway daemon: not running for {workspace}"
    return f"gateway daemon: running (pid {status['pid']}), up {status['uptime_seconds']:.0f} s, {status['requests']} requests served"


def _cmd_status(args: argparse.Namespace) -> Outcome:
    from pathlib import Path

    from gateway.surfaces.hooks.sandboxes import enforcement_lines

    workspace = _workspace(args)
    status = _status(workspace)
    enforcement = enforcement_lines(Path(workspace))
    if status is None:
        return ({"running": False, "workspace": workspace, "enforcement": enforcement},
                "\n".join([f"gateway daemon: not running for {workspace}", *enforcement]), EXIT_ERROR)
    return {**status, "enforcement": enforcement}, "\n".join([_describe(status), *enforcement]), EXIT_OK


def _cmd_run(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.daemon import run_daemon

    run_daemon(_workspace(args), args.for_file)
    return {}, "", EXIT_OK


def add_daemon_commands(commands: Any, common: argparse.ArgumentParser) -> None:
    daemon = commands.add_parser("daemon", help="the workspace's warm daemon: start, stop, status")
    actions = daemon.add_subparsers(dest="action", required=True, parser_class=type(daemon))
    for name, handler, text in (
        ("start", _cmd_start, "start the daemon, detached (a no-op when it runs)"),
        ("stop", _cmd_stop, "stop the daemon and its language servers"),
        ("status", _cmd_status, "uptime, language servers, memory and requests served (exit 1: not running)"),
        ("run", _cmd_run, "run the daemon in the foreground"),
    ):
        action = actions.add_parser(name, parents=[common], help=text)
        action.set_defaults(handler=handler)
        if name == "run":
            action.add_argument("--for-file", metavar="PATH", help="start this file's language server first, answering for it")
