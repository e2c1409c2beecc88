"""How a language server process is started: under the reaper, so that it and all it starts die
with this process, even killed -9. A cold command starts it with `subprocess` before it loads
asyncio, multilspy or the engine (`start`: ~0.1 s sooner than the session could), and the
session then talks to that process (`AdoptingHandler`) instead of starting its own.

Only the standard library and the light parts of the gateway are imported here at module level.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys

from gateway.reaper import SCRIPT as REAPER

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a cold command starts its server before typing is loaded
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from gateway.lsp.adapters.base import Adapter


# A server's command line begins so: the reaper, with no timeout and no status to write.
REAPER_PREFIX = [sys.executable, "-I", "-S", REAPER, "inf", "-1", "--"]


def leashed(command: tuple[str, ...], adapter: Adapter, root: Path, path: str) -> tuple[list[str], dict[str, str]]:
    """The command line (the server under the reaper) and the environment its adapter adds to
    ours, with no search path or environment of ours that leads into the workspace."""
    from gateway.lsp.confine import server_env

    launched, env = adapter.launch(command, root, path)
    return [*REAPER_PREFIX, *launched], {**server_env(str(root)), **env}


def _watched(env: dict[str, str]) -> dict[str, str]:
    """`env`, telling the reaper that this process, which starts it, is the one it watches."""
    return {**env, "GATEWAY_REAPER_PARENT": str(os.getpid())}


def start(line: list[str], env: dict[str, str], root: str | Path) -> subprocess.Popen[bytes]:
    """A leashed command line started now, its pipes for a session to adopt (as multilspy
    starts it); its reaper watches this process."""
    return subprocess.Popen(line, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=str(root),
                            env={**os.environ, **_watched(env)}, start_new_session=True)


def program_stamp(program: str) -> list[int] | None:
    """What tells a program's file from another at its path: mtime, size and inode."""
    try:
        info = os.stat(program)
    except OSError:
        return None
    return [info.st_mtime_ns, info.st_size, info.st_ino]


def end(process: subprocess.Popen[bytes]) -> None:
    """A started server no session talked to ended: its reaper, which ends it and all it started."""
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def handler(command: list[str], env: dict[str, str], root: Path, process: subprocess.Popen[bytes] | None) -> Any:
    """multilspy's protocol handler for the server: one that starts it, or one that talks to
    `process`, started already."""
    from multilspy.lsp_protocol_handler.server import LanguageServerHandler, ProcessLaunchInfo

    info = ProcessLaunchInfo(cmd=command, cwd=str(root), env=_watched(env))
    if process is None:
        return _in_orjson(_draining(LanguageServerHandler))(info, start_independent_lsp_process=True)
    return _adopting(_in_orjson(_draining(LanguageServerHandler)))(info, process)


@functools.cache
def _in_orjson(base: type) -> type:
    """multilspy's handler, its messages read and written by orjson (`gateway.lsp.wire`)."""
    import json

    from multilspy.lsp_protocol_handler.server import ENCODING

    from gateway.lsp import wire

    class OrjsonHandler(base):  # type: ignore[misc, valid-type]
        async def _handle_body(self, body: bytes) -> None:
            try:
                await self._receive_payload(wire.decoded(body))
            except UnicodeDecodeError as ex:  # as multilspy's own: logged, the message dropped
                self._log(f"malformed {ENCODING}: {ex}")
            except json.JSONDecodeError as ex:
                self._log(f"malformed JSON: {ex}")
            except OSError as ex:
                self._log(f"malformed {ENCODING}: {ex}")

        def _send_payload_sync(self, payload: Any) -> None:
            self._written(payload)

        async def _send_payload(self, payload: Any) -> None:
            if self._written(payload):
                await self.process.stdin.drain()

        def _written(self, payload: Any) -> bool:
            """Whether `payload` was written to the server's input (no process: not)."""
            if not self.process or not self.process.stdin:
                return False
            message = wire.framed(payload)
            if self.logger:
                self.logger("client", "server", payload)
            self.process.stdin.writelines(message)
            return True

    return OrjsonHandler


@functools.cache
def _draining(base: type) -> type:
    """multilspy's handler, reading the server's stderr to its end whatever the length of its lines."""

    class DrainingHandler(base):  # type: ignore[misc, valid-type]
        async def run_forever_stderr(self) -> None:
            # multilspy's reads stderr by lines of at most 64 KiB and stops at a longer one (zuban
            # writes lines of 100 KiB): the server then blocks on its next write to stderr and
            # answers nothing more. Nothing reads what a server says there; it is only drained.
            from multilspy.lsp_protocol_handler.server import StopLoopException

            stderr = self.process.stderr if self.process else None
            try:
                while stderr is not None and await stderr.read(1 << 16):
                    pass
            except (BrokenPipeError, ConnectionResetError, StopLoopException):
                pass

    return DrainingHandler


@functools.cache
def _adopting(base: type) -> type:
    """The subclass of multilspy's handler (imported only when a session starts) that adopts."""

    class AdoptingHandler(base):  # type: ignore[misc, valid-type]
        """multilspy's handler on a server process started before it (`start`)."""

        def __init__(self, info: Any, process: subprocess.Popen[bytes]) -> None:
            super().__init__(info, start_independent_lsp_process=True)
            self._started = process

        async def start(self) -> None:
            import asyncio

            self.process = await _Process.of(self._started)
            self.loop = asyncio.get_event_loop()
            for reading in (self.run_forever(), self.run_forever_stderr()):
                self.tasks[self.task_counter] = self.loop.create_task(reading)
                self.task_counter += 1

    return AdoptingHandler


class _Process:
    """A started `subprocess.Popen` as asyncio's subprocess object, which multilspy reads and writes."""

    def __init__(self, started: subprocess.Popen[bytes], stdin: Any, stdout: Any, stderr: Any) -> None:
        self._started, self.stdin, self.stdout, self.stderr = started, stdin, stdout, stderr

    @classmethod
    async def of(cls, started: subprocess.Popen[bytes]) -> _Process:
        import asyncio

        loop = asyncio.get_running_loop()
        readers = []
        for pipe in (started.stdout, started.stderr):
            reader = asyncio.StreamReader(limit=2**16, loop=loop)
            await loop.connect_read_pipe(lambda reader=reader: asyncio.StreamReaderProtocol(reader, loop=loop), pipe)
            readers.append(reader)
        transport, protocol = await loop.connect_write_pipe(lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader(loop=loop), loop=loop),
                                                            started.stdin)
        return cls(started, asyncio.StreamWriter(transport, protocol, None, loop), *readers)

    @property
    def pid(self) -> int:
        return self._started.pid

    @property
    def returncode(self) -> int | None:
        return self._started.poll()

    async def wait(self) -> int:
        """The exit code, once the process has exited: woken by a pidfd (no thread per waiter;
        callers cancel their waits), or by polling where there is none."""
        import asyncio

        if self._started.poll() is not None:
            return self._started.wait()
        try:
            handle = os.pidfd_open(self._started.pid)
        except (AttributeError, OSError):
            while self._started.poll() is None:
                await asyncio.sleep(0.05)
            return self._started.wait()
        loop = asyncio.get_running_loop()
        exited = loop.create_future()
        loop.add_reader(handle, lambda: exited.done() or exited.set_result(None))
        try:
            await exited
        finally:
            loop.remove_reader(handle)
            os.close(handle)
        return self._started.wait()

    def send_signal(self, number: int) -> None:
        self._started.send_signal(number)

    def terminate(self) -> None:
        self._started.terminate()

    def kill(self) -> None:
        self._started.kill()
