"""A minimal LSP client over stdio for measuring language servers side by side
(`benchmarks/python_servers.py`): it shares no code with the gateway's own sessions, so what it
measures is the server, not our client.

It advertises what the gateway's verification asks for: hierarchical documentSymbol, rename
with document changes, pull diagnostics (dynamic registration too) and published diagnostics
with their version.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CAPABILITIES: dict[str, Any] = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "synchronization": {"didSave": True, "dynamicRegistration": False},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True, "symbolKind": {"valueSet": list(range(1, 27))}},
        "rename": {"prepareSupport": False, "dynamicRegistration": False},
        "references": {"dynamicRegistration": False},
        "diagnostic": {"dynamicRegistration": True, "relatedDocumentSupport": False},
        "publishDiagnostics": {"versionSupport": True, "relatedInformation": False},
    },
    "workspace": {
        "workspaceEdit": {"documentChanges": True, "resourceOperations": []},
        "workspaceFolders": True,
        "configuration": True,
        "diagnostics": {"refreshSupport": True},
        "didChangeWatchedFiles": {"dynamicRegistration": False},
    },
    "window": {"workDoneProgress": True},
}


class ProbeError(RuntimeError):
    """The server answered with an error, or not in time."""


@dataclass
class Pushed:
    at: float
    version: int | None
    diagnostics: list[dict[str, Any]]


@dataclass
class Probe:
    """One server process for one workspace root."""

    command: list[str]
    root: Path
    env: dict[str, str]
    process: subprocess.Popen[bytes] | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    registered: set[str] = field(default_factory=set)
    pushed: dict[str, list[Pushed]] = field(default_factory=dict)
    versions: dict[str, int] = field(default_factory=dict)
    stderr: list[bytes] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._next = 0
        self._replies: dict[int, tuple[threading.Event, list[Any]]] = {}
        self._write_lock = threading.Lock()
        self._changed = threading.Condition()

    def start(self) -> float:
        """Start the server and initialize it; the seconds initialize took."""
        self.process = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        cwd=self.root, env=self.env, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()
        started = time.perf_counter()
        result = self.request("initialize", {
            "processId": os.getpid(), "rootUri": self.root.as_uri(), "rootPath": str(self.root),
            "workspaceFolders": [{"uri": self.root.as_uri(), "name": self.root.name}],
            "capabilities": CAPABILITIES, "initializationOptions": {}}, timeout=60)
        took = time.perf_counter() - started
        self.capabilities = result.get("capabilities", {})
        self.notify("initialized", {})
        return took

    @property
    def pulls(self) -> bool:
        return bool(self.capabilities.get("diagnosticProvider")) or "textDocument/diagnostic" in self.registered

    def _drain(self) -> None:
        assert self.process and self.process.stderr
        for line in self.process.stderr:
            if len(self.stderr) < 200:
                self.stderr.append(line)

    def _read(self) -> None:
        assert self.process and self.process.stdout
        stream = self.process.stdout
        while True:
            length = 0
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            self._dispatch(json.loads(stream.read(length)))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" not in message:
            event, box = self._replies.pop(message["id"], (None, None))
            if event is not None and box is not None:
                box.append(message)
                event.set()
            return
        method, params = message.get("method", ""), message.get("params")
        if "id" in message:
            self._send({"jsonrpc": "2.0", "id": message["id"], "result": self._answer(method, params)})
        elif method == "textDocument/publishDiagnostics" and isinstance(params, dict):
            with self._changed:
                self.pushed.setdefault(params["uri"], []).append(Pushed(time.perf_counter(), params.get("version"), params.get("diagnostics", [])))
                self._changed.notify_all()

    def _answer(self, method: str, params: Any) -> Any:
        if method == "client/registerCapability":
            self.registered.update(item.get("method", "") for item in (params or {}).get("registrations", []))
        if method == "workspace/configuration":
            return [None for _ in (params or {}).get("items", [])]
        return None

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process and self.process.stdin
        with self._write_lock:
            self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            self.process.stdin.flush()

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self._next += 1
        event, box = threading.Event(), []  # type: ignore[var-annotated]
        self._replies[self._next] = (event, box)
        self._send({"jsonrpc": "2.0", "id": self._next, "method": method, "params": params})
        if not event.wait(timeout):
            raise ProbeError(f"{method}: no answer within {timeout:g} s")
        reply = box[0]
        if "error" in reply:
            raise ProbeError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def open(self, path: Path) -> None:
        uri = path.as_uri()
        self.versions[uri] = 1
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": path.read_text()}})

    def change(self, path: Path, text: str, save: bool = False) -> int:
        """Send the whole new text of `path` (not written to disk unless `save`); its new version."""
        uri = path.as_uri()
        self.versions[uri] = self.versions.get(uri, 1) + 1
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": self.versions[uri]}, "contentChanges": [{"text": text}]})
        if save:
            path.write_text(text)
            self.notify("textDocument/didSave", {"textDocument": {"uri": uri}, "text": text})
        return self.versions[uri]

    def diagnostics(self, path: Path, timeout: float = 10) -> tuple[str, list[dict[str, Any]]]:
        """(how they were bound to the text, the diagnostics) for `path` as last sent: a pull
        where the server has one, else the first push carrying that version after a no-op
        change of the file (it makes the server check it again); ("none", []) if no push with
        a version came."""
        uri = path.as_uri()
        if self.pulls:
            reply = self.request("textDocument/diagnostic", {"textDocument": {"uri": uri}}, timeout=timeout)
            return "pull", list((reply or {}).get("items", []))
        version = self.change(path, path.read_text()) if uri in self.versions else 0
        deadline = time.perf_counter() + timeout
        with self._changed:
            while time.perf_counter() < deadline:
                for push in reversed(self.pushed.get(uri, [])):
                    if push.version == version:
                        return "push+version", push.diagnostics
                self._changed.wait(0.05)
        return "none", []

    def memory_mib(self) -> float:
        """Resident memory of the server and all it started, MiB."""
        assert self.process
        total, todo = 0, [self.process.pid]
        while todo:
            pid = todo.pop()
            try:
                with open(f"/proc/{pid}/status") as handle:
                    fields = dict(line.split(":", 1) for line in handle if ":" in line)
                total += int(fields.get("VmRSS", "0 kB").split()[0])
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as handle:
                        todo.extend(int(child) for child in handle.read().split())
            except OSError:
                continue
        return total / 1024

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self.request("shutdown", None, timeout=5)
            self.notify("exit", None)
            self.process.wait(timeout=5)
        except (ProbeError, OSError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except OSError:
            pass
        self.process.wait()
