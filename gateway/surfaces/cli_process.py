"""`gateway serve`, `gateway mcp`, `gateway hook` and `gateway daemon`: the commands that run a
process of their own (the servers, the hooks, the daemon), each loaded only when it runs; and
`gateway enforce` and `gateway doctor` (gateway.surfaces.cli_enforce), kept out of the operations'
table so that no MCP client is ever offered them."""

from __future__ import annotations

import argparse

from gateway.errors import EXIT_OK, UsageError

TYPE_CHECKING = False  # as in gateway.surfaces.cli: a cold symbol command loads this before its server starts
if TYPE_CHECKING:
    from typing import Any

    Outcome = tuple[dict[str, Any], str, int]

PROCESS_COMMANDS = ("serve", "hook", "mcp", "daemon", "enforce", "doctor")


def _cmd_serve(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.rpc import serve

    tcp = None
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or int(port) > 65535:
            raise UsageError(f"--tcp wants HOST:PORT with a port from 0 to 65535, not {args.tcp!r}")
        tcp = (host, int(port))
    serve(args.workspace, tcp)
    return {}, "", EXIT_OK


def _cmd_mcp(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.daemon_client import start_unless_running

    start_unless_running(args.workspace)  # the first tool call finds the workspace's server started
    from gateway.surfaces.mcp import serve_mcp

    serve_mcp(args.workspace, args.host, writes=args.writes or args.host is None)
    return {}, "", EXIT_OK


HOOK_USAGE = ("gateway hook HOST [pre|post|start|stop] | gateway hook (install|uninstall) HOST [--user] [--absolute] "
              "[--allow-mcp] [--mcp-writes] [--enforce] [--workspace DIR]; HOST is claude-code, copilot, gemini, codex or opencode")
HOOK_HELP = """commands:
  gateway hook HOST [EVENT]             the hook itself, as the host runs it: reads the host's event on stdin
  gateway hook install HOST             add the hook and the MCP server to HOST's project configuration
  gateway hook uninstall HOST           remove exactly those entries (files the install changed come back byte for byte)

HOST: claude-code, copilot, gemini, codex, opencode.
install writes `gateway` (it must be on PATH, as the host will run it), or a path relative to the
project when the installation lives inside it; --absolute writes this installation's path.
--user writes the user-level configuration instead; --allow-mcp also lets the host call the
gateway's MCP tools without asking. The MCP server registered offers read tools only, unless
--mcp-writes: then its write tools refuse whatever HOST's own rules deny HOST's edit tools.
--enforce also configures the host's sandbox (Claude Code, Codex CLI) so that the agent's shell
cannot write the gateway's state. The installed command refuses every edit (the host's blocking
convention) when the gateway cannot be run."""


def _cmd_hook(args: argparse.Namespace) -> Outcome:
    from gateway.surfaces.hooks import registry

    words = tuple(args.words)
    if words and registry.host(words[0]) is not None:
        from gateway.surfaces.hooks.client import main as hook

        return {}, "", hook(list(words))
    if len(words) == 2 and words[0] in ("install", "uninstall") and registry.host(words[1]) is not None:
        from pathlib import Path

        from gateway.surfaces.hooks import install

        workspace = Path(args.workspace).resolve()
        if words[0] == "install":
            result = install.install(words[1], workspace, user=args.user, absolute=args.absolute, allow_mcp=args.allow_mcp,
                                     mcp_writes=args.mcp_writes, enforce=args.enforce)
        else:
            result = install.uninstall(words[1], workspace, user=args.user)
        return result, result["message"], EXIT_OK
    raise UsageError(f"usage: {HOOK_USAGE}")


def add_process_commands(commands: Any, common: argparse.ArgumentParser, only: str | None) -> None:
    """The commands that run a process of their own: the servers, the hooks, the daemon."""
    if only in (None, "serve"):
        _add_serve(commands)
    if only in (None, "hook"):
        _add_hook(commands, common)
    if only in (None, "mcp"):
        from gateway.surfaces.hooks.registry import names as host_names

        mcp = commands.add_parser("mcp", help="run the MCP server over stdio")
        mcp.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")
        mcp.add_argument("--host", choices=host_names(), help="the agent host that runs it: its user's denies of the host's edit tools "
                                                            "refuse the write tools, which are listed only with --writes")
        mcp.add_argument("--writes", action="store_true", help="with --host: list the write tools too")
        mcp.set_defaults(handler=_cmd_mcp, json=False)
    if only in (None, "daemon"):
        from gateway.surfaces.cli_daemon import add_daemon_commands

        add_daemon_commands(commands, common)
    if only in (None, "enforce", "doctor"):
        from gateway.surfaces.cli_enforce import add_doctor_command, add_enforce_commands

        if only in (None, "enforce"):
            add_enforce_commands(commands, common)
        if only in (None, "doctor"):
            add_doctor_command(commands, common)


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the JSON-RPC server (pygls) for middleware")
    serve.add_argument("--workspace", default=".", metavar="DIR", help="workspace root (default: .)")
    transport = serve.add_mutually_exclusive_group()
    transport.add_argument("--stdio", action="store_true", help="speak JSON-RPC on stdin/stdout (default)")
    transport.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP address")
    serve.set_defaults(handler=_cmd_serve, json=False)


def _add_hook(commands: Any, common: argparse.ArgumentParser) -> None:
    hook = commands.add_parser(
        "hook", parents=[common], help="agent-host hooks: run, install or uninstall a host's hook",
        usage=HOOK_USAGE + " [--json]",
        description=HOOK_HELP, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    hook.add_argument("words", nargs="+", metavar="WORD", help=argparse.SUPPRESS)
    hook.add_argument("--absolute", action="store_true", help="install: write this installation's absolute path, not `gateway`")
    hook.add_argument("--user", action="store_true", help="install/uninstall: the host's user-level configuration, not the project's")
    hook.add_argument("--allow-mcp", action="store_true", help="install: also add the host's permission entries for the gateway's MCP tools")
    hook.add_argument("--mcp-writes", action="store_true",
                      help="install: the MCP server also offers its write tools (refused wherever the host's user denies its edit tools)")
    hook.add_argument("--enforce", action="store_true", help="install: also configure the host's sandbox so that the agent's shell cannot write the gateway's state")
    hook.set_defaults(handler=_cmd_hook)
