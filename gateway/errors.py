"""Errors as values with a kind; every surface maps them to exit codes here and only here."""

from __future__ import annotations

TYPE_CHECKING = False  # the hook's client imports this module; typing costs it milliseconds

if TYPE_CHECKING:
    from typing import Any, Protocol

    class Suggestion(Protocol):
        """An operation to run instead (`gateway.results.SuggestedOperation`)."""

        def to_json(self) -> dict[str, Any]: ...

    class Verdict(Protocol):
        """What a refusal carries (the gate's `Classification`): a one-line message and a JSON form."""

        @property
        def message(self) -> str: ...

        @property
        def suggested(self) -> tuple[Suggestion, ...]: ...

        def to_json(self) -> dict[str, Any]: ...

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_BLOCKED = 3
EXIT_HOOK_FAILED = 2
EXIT_INCOMPLETE = 4  # done, but not everything it should cover was searched (a rename without a server)
EXIT_TAMPERED = 5  # the gateway's own state (the audit log's chain) was cut or altered


class GatewayError(Exception):
    """Base of every error the gateway reports to a caller; the message is one line."""

    kind = "error"
    exit_code = EXIT_ERROR
    hint: str | None = None  # what the caller can do about it, when the message does not say
    suggested: tuple[Suggestion, ...] = ()  # operations to run instead, named in the message

    def __init__(self, *args: object, hint: str | None = None, suggested: tuple[Suggestion, ...] = ()) -> None:
        super().__init__(*args)
        if hint is not None:
            self.hint = hint
        if suggested:
            self.suggested = suggested

    def to_json(self) -> dict[str, Any]:
        """The refusal's `error` object: {kind, message, hint?, suggested}."""
        hint = {"hint": self.hint} if self.hint else {}
        return {"kind": self.kind, "message": str(self), **hint, "suggested": [s.to_json() for s in self.suggested]}


class UsageError(GatewayError):
    kind = "usage"


class FileMissing(GatewayError):
    kind = "file_not_found"


class FileExists(GatewayError):
    """A file to be created is already there; nothing is overwritten."""

    kind = "file_exists"


class OutsideWorkspace(GatewayError):
    kind = "outside_workspace"


class BinaryFile(GatewayError):
    kind = "binary_file"


class UndecodableFile(GatewayError):
    kind = "undecodable_file"


class NotFound(GatewayError):
    """old_string (or a symbol) is not where the caller said."""

    kind = "not_found"


class Ambiguous(GatewayError):
    kind = "ambiguous"


class Collision(GatewayError):
    """A rename or replacement would give a definition a name its scope already has."""

    kind = "collision"


class StillReferenced(GatewayError):
    """A removal refused because other code still refers to the symbol; the file is untouched."""

    kind = "referenced"
    exit_code = EXIT_BLOCKED


class NewErrors(GatewayError):
    """`[verify] on_new_errors = "refuse"`: the write would add errors the language server
    reports (`new_errors`, each `path:line` in the message); nothing was written."""

    kind = "new_errors"
    exit_code = EXIT_BLOCKED

    def __init__(self, *args: object, new_errors: tuple[Any, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.new_errors = new_errors

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "new_errors": [e.to_json() for e in self.new_errors]}


class Stale(GatewayError):
    """The file changed on disk between reading and writing it."""

    kind = "stale"


class TooLarge(GatewayError):
    """A file or a write over `[gate] max_file_bytes`: refused rather than judged slowly."""

    kind = "too_large"


class NotRegularFile(GatewayError):
    """A path that is not a regular file (a FIFO, a device, a socket, a directory): never read."""

    kind = "not_regular_file"


class TimedOut(GatewayError):
    """A read or a request that ran past its deadline; nothing was written."""

    kind = "timed_out"


class Unencodable(GatewayError):
    kind = "unencodable"


class WriteFailed(GatewayError):
    """The operating system refused the write (disk full, permissions); the file is as it was."""

    kind = "write_failed"


class ServerFailed(GatewayError):
    """A language server crashed, hung or answered nonsense; the next call starts a new one."""

    kind = "server_failed"


class SyntaxBroken(GatewayError):
    """A symbol operation would leave the file with syntax errors it did not have."""

    kind = "syntax_error"


class HookFailed(GatewayError):
    """The hook could not judge its input; exit 2 makes the agent host refuse the tool call."""

    kind = "hook_failed"
    exit_code = EXIT_HOOK_FAILED


class Blocked(GatewayError):
    """The structural gate refused the edit; the classification says what to do instead."""

    kind = "blocked"
    exit_code = EXIT_BLOCKED

    def __init__(self, classification: Verdict) -> None:
        super().__init__(classification.message, suggested=classification.suggested)
        self.classification = classification

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "classification": self.classification.to_json()}


class GrantRefused(GatewayError):
    """Typed edits: the write has no live grant matching the file as it is now.

    `reason` is one of undeclared, stale, expired, consumed, protected, forged, tampered.
    """

    kind = "grant_refused"
    exit_code = EXIT_BLOCKED

    def __init__(self, reason: str, path: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.path = path

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "reason": self.reason, "path": self.path}


class Denied(GatewayError):
    """A write the host's user denies (the host's own edit tools are denied for the file), or
    one this server was installed without."""

    kind = "denied"
    exit_code = EXIT_BLOCKED


class Forged(GatewayError):
    """State kept in the workspace (a grant, a journal, a snapshot) that the user's key did not sign."""

    kind = "forged"


class Tampered(GatewayError):
    """The gateway's own state was cut or altered: the audit log's hash chain (`gateway audit verify`)."""

    kind = "tampered"
    exit_code = EXIT_TAMPERED


class Unauthenticated(GatewayError):
    """A server client that did not present the server's token first."""

    kind = "unauthenticated"


class NotServed(GatewayError):
    """The daemon cannot answer as the caller's own process would (another state directory, say);
    the caller answers in process instead (`gateway.surfaces.daemon_client.NOT_SERVED`)."""

    kind = "not_served"


class RemoteError(GatewayError):
    """An error the workspace's daemon reported: the refusal as it sent it (`ok` false, `error`
    {kind, message, ...}), with the exit code that kind has here."""

    def __init__(self, data: dict[str, Any]) -> None:
        error: dict[str, Any] = data["error"] if isinstance(data.get("error"), dict) else data
        super().__init__(str(error.get("message") or "the daemon failed").splitlines()[0])
        self.data = data
        self.kind = str(error.get("kind") or "error")
        self.exit_code = next((c.exit_code for c in _kinds() if c.kind == self.kind), EXIT_ERROR)

    def to_json(self) -> dict[str, Any]:
        """The refusal as the daemon sent it (`gateway.results.refusal` passes it on as it is)."""
        if self.data.get("ok") is False:
            return self.data
        return {**self.data, "message": str(self)}


def _kinds() -> list[type[GatewayError]]:
    """Every error class (subclasses of subclasses too)."""
    found, waiting = [], list(GatewayError.__subclasses__())
    while waiting:
        cls = waiting.pop()
        found.append(cls)
        waiting += cls.__subclasses__()
    return found


def exit_code_for(error: BaseException) -> int:
    return error.exit_code if isinstance(error, GatewayError) else EXIT_ERROR


# JSON-RPC error codes of `gateway serve` (the server-defined range -32000..-32099).
RPC_BLOCKED = -32001
RPC_CODES = {
    "blocked": RPC_BLOCKED,
    "stale": -32002,
    "server_failed": -32003,
    "syntax_error": -32004,
    "grant_refused": -32005,
    "forged": -32006,
    "unauthenticated": -32007,
    "collision": -32008,
    "referenced": -32009,
    "new_errors": -32012,
    "tampered": -32010,
    "not_served": -32011,
    "usage": -32602,
}
RPC_OTHER = -32000


def rpc_code_for(error: GatewayError) -> int:
    return RPC_CODES.get(error.kind, RPC_OTHER)
