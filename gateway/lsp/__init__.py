"""Language servers: discovery, one session per (workspace, server), per-server adapters."""

from __future__ import annotations

import importlib.util
import sys


def _protocol_handler_only() -> None:
    """Enter the multilspy package without running its `__init__`, which imports its server
    downloaders (requests, urllib3, certifi: 150 ms and 7 MiB in every process that starts a
    server, the daemon included); only its protocol handler is used here."""
    if "multilspy" in sys.modules:
        return
    spec = importlib.util.find_spec("multilspy")
    if spec is not None and spec.submodule_search_locations is not None:
        sys.modules["multilspy"] = importlib.util.module_from_spec(spec)


_protocol_handler_only()
