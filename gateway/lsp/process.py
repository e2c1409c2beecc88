"""The server's process as a session sees it: its pids, whether it still runs (read from
/proc, no round trip), and putting down one that stopped answering (a part of `LspSession`)."""

from __future__ import annotations

import os
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multilspy.lsp_protocol_handler.server import LanguageServerHandler

_KILLING = (1 << (9 - 1)) | (1 << (15 - 1))  # SIGKILL, SIGTERM in /proc's pending-signal masks


class ServerProcess:
    """The process side of `LspSession`, which provides `_handler`."""

    _handler: LanguageServerHandler

    def put_down(self) -> None:
        """A server that stopped answering: its reaper is told to kill it and all it started
        (SIGKILL, which ends a stopped process too), continued first if it was stopped itself."""
        pid = self.pid
        if pid is None:
            return
        for number in (signal.SIGTERM, signal.SIGCONT):
            try:
                os.kill(pid, number)
            except OSError:
                return  # gone already

    @property
    def pid(self) -> int | None:
        """The reaper's pid: the process the session talks through."""
        process = self._handler.process
        return process.pid if process else None

    @property
    def server_pid(self) -> int | None:
        """The language server's own pid (the reaper's child)."""
        try:
            with open(f"/proc/{self.pid}/task/{self.pid}/children") as handle:
                children = handle.read().split()
        except (OSError, TypeError):
            return None
        return int(children[0]) if children else None

    def alive(self) -> bool:
        """Whether the server process still runs, read from /proc (no round trip): a kept
        answer is given only by a live server, so a killed one fails the call as if asked. A
        server with SIGKILL or SIGTERM pending counts as gone: the kill has been sent, and the
        process may not have run to its end yet."""
        process = self._handler.process
        pid = self.server_pid if process is not None and process.returncode is None else None
        try:
            with open(f"/proc/{pid}/status") as handle:
                fields = dict(line.split(":", 1) for line in handle.read().splitlines() if ":" in line)
            pending = int(fields["SigPnd"], 16) | int(fields["ShdPnd"], 16)
            return pid is not None and fields["State"].split()[0] not in ("Z", "X") and not pending & _KILLING
        except (OSError, KeyError, ValueError, IndexError):
            return False
