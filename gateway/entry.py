"""The `gateway` command's entry point: the host's hook call goes straight to the light hook
client; everything else to the CLI."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["hook"]:
        from gateway.surfaces.hooks import registry
        from gateway.surfaces.hooks.client import main as hook

        if sys.argv[2:3] and registry.host(sys.argv[2]) is not None:
            sys.exit(hook())
    from gateway.surfaces.cli import main as cli

    cli()
