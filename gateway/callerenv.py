"""The settings a call is answered with: the environment of the process that asked.

In process that is this process's own environment. The workspace's daemon serves callers
whatever their environment (one daemon per workspace and user), so each request carries the
caller's settings (`snapshot`) and the daemon answers it with them (`Serving`):

- honoured per request: `PATH`, `GATEWAY_TOOLS_DIR` and the caller's interpreter (where its
  language servers are found), `GATEWAY_NO_SERVERS`, `GATEWAY_LSP_TIMEOUT`;
- matched: the per-user state directory (`$XDG_STATE_HOME/gateway`: the signing key, audit
  state, routed writes, removals), `GATEWAY_LANGS_DIR`, `GATEWAY_QUERIES_DIR` and the gateway
  installation itself. A caller whose differ is answered in process (`mismatches`).

Standard library only, and little of it: the hook's client imports this.
"""

from __future__ import annotations

import os
import sys
from _contextvars import ContextVar  # not `contextvars`, which costs the hook milliseconds more

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HONOURED = ("PATH", "GATEWAY_TOOLS_DIR", "executable", "GATEWAY_NO_SERVERS", "GATEWAY_LSP_TIMEOUT")
MATCHED = ("state", "GATEWAY_LANGS_DIR", "GATEWAY_QUERIES_DIR", "package")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_CALLER: ContextVar[dict[str, str | None] | None] = ContextVar("gateway_caller", default=None)


def state_base() -> str:
    """`$XDG_STATE_HOME`, else `~/.local/state`: where the gateway's per-user state lives."""
    return os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")


def snapshot() -> dict[str, str | None]:
    """This process's settings, as a request carries them."""
    own: dict[str, str | None] = {name: os.environ.get(name) for name in HONOURED + MATCHED}
    own.update(executable=sys.executable, state=os.path.join(state_base(), "gateway"), package=_PACKAGE)
    return own


def current() -> dict[str, str | None] | None:
    """The settings of the caller being answered, in the daemon; None elsewhere."""
    return _CALLER.get()


def get(name: str) -> str | None:
    """A setting of the call being answered: the caller's in the daemon, else this process's."""
    caller = _CALLER.get()
    if caller is not None:
        return caller.get(name)
    return sys.executable if name == "executable" else os.environ.get(name)


def valid(settings: Any) -> dict[str, str | None] | None:
    """A request's settings, if they have the shape `snapshot` gives."""
    if not isinstance(settings, dict) or set(settings) != set(HONOURED + MATCHED):
        return None
    if not all(value is None or isinstance(value, str) for value in settings.values()):
        return None
    return settings


def mismatches(settings: dict[str, str | None], own: dict[str, str | None]) -> list[str]:
    """What keeps a daemon with settings `own` from answering as the caller would in process."""
    names = {"state": "the state directory ($XDG_STATE_HOME/gateway)", "package": "the gateway installation"}
    return [f"{names.get(name, name)}: {settings[name]!r}, the daemon's {own[name]!r}" for name in MATCHED if settings[name] != own[name]]


class Serving:
    """`with Serving(settings):` the calls made in this context are answered with them."""

    def __init__(self, settings: dict[str, str | None]) -> None:
        self.settings = settings

    def __enter__(self) -> None:
        self._token = _CALLER.set(self.settings)

    def __exit__(self, *exc_info: object) -> None:
        _CALLER.reset(self._token)
