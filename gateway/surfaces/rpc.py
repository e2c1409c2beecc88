"""`gateway serve`: the JSON-RPC 2.0 process (pygls) that keeps servers and trees warm.

Methods are `gateway/<operation>` in camelCase; params and results are the CLI's --json
objects. A gateway error is a JSON-RPC error whose `data` is the error object (a blocked
edit's carries the classification); codes are in gateway.errors.

Framing is checked before pygls sees a message (gateway.framing): input that is not LSP
framing closes the connection unanswered. A TCP client must first send
`gateway/authenticate` with the token the server wrote, 0600, under the user's state
directory; anything else first closes the connection. `exit` ends one TCP connection only;
`gateway/stop` or SIGTERM stops the server.

A request that carries a `workDoneToken` hears `$/progress` begin/report/end on its
connection while it waits more than 2 seconds (gateway.progress); without one, what it waits
on goes to this process's stderr (the daemon's log).
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import secrets
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any, cast

from lsprotocol.types import ProgressParams, ResponseError
from pygls.exceptions import JsonRpcException
from pygls.protocol import JsonRPCProtocol, JsonRPCRequestMessage, LanguageServerProtocol, lsp_method
from pygls.server import LanguageServer

from gateway import progress
from gateway.api import Gateway
from gateway.errors import RPC_CODES, GatewayError, UsageError
from gateway.framing import MAX_BODY_BYTES, FrameError, FrameReader
from gateway.surfaces import render
from gateway.surfaces.daemon_client import peer_uid
from gateway.surfaces.operations import OPERATIONS, call
from gateway.userstate import private_file, state_home
from gateway.workers import RequestPool

METHODS = {operation.method: name for name, operation in OPERATIONS.items()}
AUTHENTICATE, STOP = "gateway/authenticate", "gateway/stop"
# A TCP peer's first message is `gateway/authenticate` of at most PRE_AUTH_BYTES, sent within
# AUTH_SECONDS of connecting; otherwise it is closed, having cost at most that much memory.
PRE_AUTH_BYTES = 4096
AUTH_SECONDS = 5.0
WORKERS = 8
# A request's deadline: below the daemon client's own wait (daemon_client.CALL_SECONDS), so the
# caller hears TimedOut from the server rather than a connection that went silent.
REQUEST_SECONDS = 540.0
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
logger = logging.getLogger(__name__)
# The connection whose message is being handled: its request's task inherits it.
_REQUESTER: ContextVar[GatewayProtocol | None] = ContextVar("gateway_requester", default=None)


def plain(value: Any) -> Any:
    """pygls hands custom params over as namedtuples; the engine takes dicts."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def _same_user(transport: Any) -> bool:
    """Whether a Unix-socket peer runs as this user (SO_PEERCRED)."""
    try:
        return peer_uid(transport.get_extra_info("socket")) == os.getuid()
    except (OSError, AttributeError):
        return False


def token_path(host: str, port: int) -> Path:
    """Where `gateway serve --tcp HOST:PORT` keeps its token."""
    return state_home() / "serve" / f"{host.replace('/', '_')}_{port}.token"


class GatewayProtocol(LanguageServerProtocol):
    """pygls' protocol behind a bounded framer, with gateway errors answered as themselves and,
    on a socket (`shared`), one instance per client; a TCP client authenticates with the
    server's token, a Unix-socket client by being the same user."""

    shared = False
    token_required = False
    _builtins: list[tuple[str, str]] | None = None  # (attribute, LSP method) of the class's builtin features

    def _register_builtin_features(self) -> None:
        """pygls' registration, with the class's builtin methods found once per class instead of
        by looking at every attribute of every new protocol (a socket client's own, per call)."""
        cls = type(self)
        if cls.__dict__.get("_builtins") is None:
            found = [(name, getattr(cls, name, None)) for name in dir(cls) if name != "workspace"]
            cls._builtins = [(name, value.method_name) for name, value in found if callable(value) and hasattr(value, "method_name")]
        for name, method in cls._builtins or []:
            self.fm.add_builtin_feature(method, getattr(self, name))

    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._authenticated = not self.token_required
        # Before the token, a peer is a stranger: one small message, within a few seconds.
        self._frames = FrameReader(MAX_BODY_BYTES if self._authenticated else PRE_AUTH_BYTES)
        self._deadline = None if self._authenticated else self._server.loop.call_later(AUTH_SECONDS, self._close)
        if self.shared and not self.token_required and not _same_user(transport):
            self._close()

    def data_received(self, data: bytes) -> None:
        self._frames.push(data)
        while self.transport is not None and not cast(asyncio.BaseTransport, self.transport).is_closing():
            try:
                body = self._frames.next()
            except FrameError:
                self._close()
                return
            if body is None or not self._receive(body):
                return

    def _receive(self, body: bytes) -> bool:
        """Handle one message body; False when the connection was closed."""
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            if not self._authenticated:
                return self._authenticate({})
            self._error(None, PARSE_ERROR, "Parse error: the body is not JSON")
            return True
        if not self._authenticated:
            return self._authenticate(message if isinstance(message, dict) else {})
        valid_id = isinstance(message, dict) and isinstance(message.get("id", 0), int | str) and not isinstance(message.get("id"), bool)
        if not valid_id or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method", ""), str):
            self._error(message.get("id") if valid_id else None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
            return True
        method = message.get("method")
        if not self._authenticated or method == AUTHENTICATE:
            return self._authenticate(message)
        if method == STOP:
            self._reply(message, {"ok": True})
            self._server.loop.call_soon(self._server.loop.stop)
            return True
        if method is not None and "params" not in message:
            message["params"] = {} if method.startswith("gateway/") else None
        requester = _REQUESTER.set(self)
        try:
            if isinstance(method, str) and method.startswith("gateway/") and "id" in message:
                # The gateway's own methods take plain JSON: pygls would make a namedtuple class
                # for each object in the params (most of the loop's time per call) for `plain`
                # to turn back into dicts.
                self._procedure_handler(JsonRPCRequestMessage(id=message["id"], method=method, jsonrpc="2.0", params=message["params"]))
            else:
                self._procedure_handler(self._deserialize_message(message))
        except JsonRpcException as error:
            self._error(message.get("id"), error.code, error.message or "invalid message")
        finally:
            _REQUESTER.reset(requester)
        return True

    def _authenticate(self, message: dict[str, Any]) -> bool:
        params = message.get("params")
        token = params.get("token") if isinstance(params, dict) else None
        expected = getattr(self._server, "token", None)
        if not self.token_required or (message.get("method") == AUTHENTICATE and isinstance(token, str) and expected is not None
                            and hmac.compare_digest(token.encode("utf-8", "replace"), expected.encode())):
            self._authenticated = True
            self._frames.max_body = MAX_BODY_BYTES
            self._cancel_deadline()
            self._reply(message, {"ok": True})
            return True
        msg_id = message.get("id")
        self._error(msg_id if isinstance(msg_id, int | str) and not isinstance(msg_id, bool) else None,
                    RPC_CODES["unauthenticated"], f"unauthenticated: send {AUTHENTICATE} with the server's token first")
        self._close()
        return False

    def _send_response(self, msg_id: Any, result: Any = None, error: ResponseError | None = None) -> None:
        """A result of no declared type (the gateway's own methods': plain JSON) sent as it is;
        pygls' converter would walk all of it first, on the loop (18 ms for the symbols of a
        50k-line file, while no other client's request is read or answered). The same bytes:
        what is not plain JSON in it still goes through the converter."""
        if error is not None or msg_id in self._result_types:
            super()._send_response(msg_id, result, error)
            return
        self._send_data({"id": msg_id, "jsonrpc": JsonRPCProtocol.VERSION, "result": result})

    def _reply(self, message: dict[str, Any], result: Any) -> None:
        if "id" in message:
            self._send_response(message["id"], result)

    def _error(self, msg_id: Any, code: int, text: str) -> None:
        self._send_response(msg_id, error=ResponseError(code, text))

    def _close(self) -> None:
        self._cancel_deadline()
        if self.transport is not None:
            self.transport.close()

    def _cancel_deadline(self) -> None:
        deadline, self._deadline = getattr(self, "_deadline", None), None
        if deadline is not None:
            deadline.cancel()

    def _execute_request_callback(self, msg_id: Any, future: Any) -> None:
        error = None if future.cancelled() else future.exception()
        if isinstance(error, GatewayError):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=ResponseError(*render.rpc_error(error, self._server.spelling)))  # type: ignore[attr-defined]
            return
        super()._execute_request_callback(msg_id, future)

    @lsp_method("shutdown")
    def lsp_shutdown(self, *args: Any) -> None:
        super().lsp_shutdown(*args)
        if not self.shared:  # other clients still use the servers
            self._server.gateway.close()  # type: ignore[attr-defined]

    @lsp_method("exit")
    def lsp_exit(self, *args: Any) -> None:
        if self.shared:
            self._close()
        else:
            self._server.loop.stop()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_deadline()
        self._frames = FrameReader(0)  # what a closed peer had sent is not kept
        if not self.shared:
            self._server.loop.call_soon_threadsafe(self._server.loop.stop)


class _StdoutTransport:
    """What pygls writes responses to, for stdio."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def write(self, data: bytes) -> None:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()

    def close(self) -> None:
        self.loop.stop()

    def is_closing(self) -> bool:
        return False


class GatewayServer(LanguageServer):
    # How its answers name suggested operations: as JSON-RPC calls (the daemon's say them as the
    # engine does, for the surface that asked to spell).
    spelling: render.Spelling | None = render.RPC

    def __init__(self, gateway: Gateway) -> None:
        super().__init__("gateway", "0.1.0", protocol_cls=GatewayProtocol, max_workers=WORKERS)
        self.gateway = gateway
        self.token: str | None = None
        self.pool = RequestPool(WORKERS, REQUEST_SECONDS)
        for method, operation in METHODS.items():
            self.feature(method)(self._handler(operation))

    def _handler(self, operation: str) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        async def handle(params: Any) -> dict[str, Any]:
            return await self.pool.run(self.reported(operation, plain(params)))  # type: ignore[no-any-return]

        return handle

    def reported(self, operation: str, params: dict[str, Any]) -> Callable[[], dict[str, Any]]:
        """The operation, to run on a worker, saying what it waits on to the client that asked
        (called on the loop, in the request's task)."""
        sink = self.progress_sink(params.pop("workDoneToken", None))

        def work() -> dict[str, Any]:
            with progress.reporting(sink, operation):
                return render.answer(call(self.gateway, operation, params), self.spelling)  # type: ignore[no-any-return]

        return work

    def progress_sink(self, token: Any) -> progress.Sink:
        """`$/progress` with the client's token on its connection; without a token, stderr."""
        protocol = _REQUESTER.get()
        if not isinstance(token, str | int) or isinstance(token, bool) or protocol is None:
            return progress.StreamSink(sys.stderr)
        loop = self.loop

        def send(update: progress.Update) -> None:
            loop.call_soon_threadsafe(protocol.notify, "$/progress", ProgressParams(token=token, value=update.to_lsp()))

        return send

    def serve_stdio(self) -> None:
        """Read stdin on a thread, framed and bounded like TCP; stop at end of input."""
        protocol = self.lsp
        protocol.connection_made(_StdoutTransport(self.loop))  # type: ignore[arg-type]

        def read() -> None:
            while chunk := os.read(0, 65536):
                self.loop.call_soon_threadsafe(protocol.data_received, chunk)
            self.loop.call_soon_threadsafe(self.loop.stop)

        threading.Thread(target=read, daemon=True, name="gateway-stdin").start()
        self.loop.run_forever()

    def connection(self, token_required: bool) -> GatewayProtocol:
        """A socket client's own protocol: its own builtins (shutdown and exit act on this
        connection), the server's features."""
        protocol = GatewayProtocol(self, self.lsp._converter)  # type: ignore[attr-defined]
        features = self.lsp.fm
        protocol.fm._features, protocol.fm._commands = features._features, features._commands  # type: ignore[attr-defined]
        protocol.fm._feature_options = features._feature_options  # type: ignore[attr-defined]
        protocol.shared, protocol.token_required = True, token_required
        return protocol

    def serve_tcp(self, host: str, port: int) -> None:
        """Each client gets its own protocol (sharing the features) and must present the token."""
        try:
            # Not serving until the token is on disk: a client that can connect can authenticate.
            server = self.loop.run_until_complete(
                self.loop.create_server(lambda: self.connection(token_required=True), host, port, start_serving=False)
            )
        except (OSError, OverflowError) as error:
            raise UsageError(f"cannot listen on {host}:{port} ({getattr(error, 'strerror', None) or error})") from None
        bound = server.sockets[0].getsockname()[1]
        self.token = secrets.token_urlsafe(32)
        path = token_path(host, bound)
        path.parent.mkdir(mode=0o700, exist_ok=True)
        private_file(path, self.token.encode())
        self.loop.run_until_complete(server.start_serving())
        print(f"gateway serve: listening on {host}:{bound}; token in {path}", file=sys.stderr, flush=True)
        try:
            self.loop.run_forever()
        finally:
            server.close()
            path.unlink(missing_ok=True)


def run_until_stopped(server: GatewayServer, serving: Callable[[], None]) -> None:
    """Run `serving` until it ends (end of input, `gateway/stop`, SIGTERM); then shut the language
    servers down and exit the process. An error from `serving` (a port in use) is raised instead."""
    signal.signal(signal.SIGTERM, lambda *_: server.loop.call_soon_threadsafe(server.loop.stop))
    try:
        serving()
    finally:
        server.gateway.close()
    # The stdin reader thread and pygls' pools would keep the process alive.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve(workspace: str, tcp: tuple[str, int] | None) -> None:
    """`gateway serve`, over stdio or TCP."""
    server = GatewayServer(Gateway(workspace))
    run_until_stopped(server, lambda: server.serve_tcp(*tcp) if tcp else server.serve_stdio())
