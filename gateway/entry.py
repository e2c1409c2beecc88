"""The `gateway` command's entry point: the host's hook call goes straight to the light hook
client; everything else to the CLI."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["hook"]:
        from gateway.surfaces.hooks.client import HOSTS, main as hook

        if sys.argv[2:3] and sys.argv[2] in HOSTS:
            sys.exit(hook())
    from gateway.surfaces.cli import main as cli

    cli()
