"""The `gateway` command's entry point: the host's hook call goes straight to the light hook
client; everything else to the CLI."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["hook", "claude-code"]:
        from gateway.hooks.client import main as hook

        sys.exit(hook())
    from gateway.cli import main as cli

    cli()
