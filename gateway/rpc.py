"""`gateway serve`: the JSON-RPC 2.0 process (pygls) that keeps servers and trees warm.

Methods are `gateway/<operation>` in camelCase; params and results are the CLI's --json
objects. A gateway error is a JSON-RPC error whose `data` is the error object (a blocked
edit's carries the classification); codes are in gateway.errors.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from lsprotocol.types import ResponseError
from pygls.protocol import LanguageServerProtocol, lsp_method
from pygls.server import LanguageServer

from gateway.api import Gateway
from gateway.errors import GatewayError, rpc_code_for
from gateway.surface import call

METHODS = {
    "gateway/classify": "classify",
    "gateway/edit": "edit",
    "gateway/symbols": "symbols",
    "gateway/findSymbol": "find_symbol",
    "gateway/replaceSymbol": "replace_symbol",
    "gateway/insertCode": "insert_code",
    "gateway/removeSymbol": "remove_symbol",
    "gateway/renameSymbol": "rename_symbol",
    "gateway/servers": "servers",
    "gateway/kinds": "kinds",
    "gateway/declare": "declare",
    "gateway/auditLog": "audit_log",
    "gateway/auditSummary": "audit_summary",
    "gateway/contractCheck": "contract_check",
    "gateway/contractApply": "contract_apply",
    "gateway/context": "context",
}
WORKERS = 8
logger = logging.getLogger(__name__)


def _plain(value: Any) -> Any:
    """pygls hands custom params over as namedtuples; the engine takes dicts."""
    if hasattr(value, "_asdict"):
        return {key: _plain(item) for key, item in value._asdict().items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class GatewayProtocol(LanguageServerProtocol):
    """pygls' protocol, with gateway errors answered as themselves and one instance per TCP client."""

    tcp = False

    def _execute_request_callback(self, msg_id: Any, future: Any) -> None:
        error = None if future.cancelled() else future.exception()
        if isinstance(error, GatewayError):
            self._request_futures.pop(msg_id, None)
            self._send_response(msg_id, error=ResponseError(rpc_code_for(error), str(error), error.to_json()))
            return
        super()._execute_request_callback(msg_id, future)

    @lsp_method("shutdown")
    def lsp_shutdown(self, *args: Any) -> None:
        super().lsp_shutdown(*args)
        self._server.gateway.close()  # type: ignore[attr-defined]

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.tcp:
            super().connection_lost(exc)


class GatewayServer(LanguageServer):
    def __init__(self, gateway: Gateway) -> None:
        super().__init__("gateway", "0.1.0", protocol_cls=GatewayProtocol, max_workers=WORKERS)
        self.gateway = gateway
        self.executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="gateway-rpc")
        for method, operation in METHODS.items():
            self.feature(method)(self._handler(operation))

    def _handler(self, operation: str) -> Callable[[Any], Awaitable[dict[str, Any]]]:
        async def handle(params: Any) -> dict[str, Any]:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self.executor, call, self.gateway, operation, _plain(params))

        return handle

    def serve_tcp(self, host: str, port: int) -> None:
        """Like pygls' start_tcp, but each client gets its own protocol (sharing the features)."""

        def connection() -> GatewayProtocol:
            protocol = GatewayProtocol(self, self.lsp._converter)  # type: ignore[attr-defined]
            protocol.fm = self.lsp.fm
            protocol.tcp = True
            return protocol

        server = self.loop.run_until_complete(self.loop.create_server(connection, host, port))
        try:
            self.loop.run_forever()
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            server.close()
            self.shutdown()


def serve(workspace: str, tcp: tuple[str, int] | None) -> None:
    """Run until `exit`, end of input or SIGTERM; language servers are shut down on the way out."""
    gateway = Gateway(workspace)
    server = GatewayServer(gateway)

    def terminate(*_: object) -> None:
        # Not through pygls' shutdown: it waits for a reader thread blocked on stdin.
        gateway.close()
        os._exit(0)

    signal.signal(signal.SIGTERM, terminate)
    try:
        if tcp:
            server.serve_tcp(*tcp)
        else:
            server.start_io()
    finally:
        gateway.close()
        server.executor.shutdown(wait=False, cancel_futures=True)
        # pygls reads stdin on a worker thread that would keep the process alive.
        os._exit(0)
