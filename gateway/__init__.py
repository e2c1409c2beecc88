"""gateway: an LSP-aware structural edit gateway for AI coding agents.

Names are imported lazily so that light entry points (the hook) load only what they use.
"""

from __future__ import annotations

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: importing typing would double the hook's start-up

if TYPE_CHECKING:
    from typing import Any

    from gateway.api import Gateway
    from gateway.gate.checker import classify_edit
    from gateway.gate.verdict import Classification

__all__ = ["Classification", "Gateway", "classify_edit"]

_HOMES = {"Classification": "gateway.gate.verdict", "classify_edit": "gateway.gate.checker", "Gateway": "gateway.api"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        from importlib import import_module

        return getattr(import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'gateway' has no attribute {name!r}")
