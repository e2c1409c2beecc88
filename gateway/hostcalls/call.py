"""What a host is about to do, or has done, in the gateway's terms (`HookCall`), and what it
should do about it (`Answer`): the values host adapters translate from and into their host's
own forms."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from gateway.results import SuggestedOperation

SYMBOL_HINT = (
    " Make structural changes with the gateway's symbol operations instead (MCP tools replace_symbol, "
    "insert_code, remove_symbol, rename_symbol, or the `gateway` commands named above)."
)
DECLARE_HINT = (
    " Typed edits are enforced in this workspace: declare the change first (`gateway kinds` lists the kinds; "
    "`gateway declare KIND --file PATH --target prod|test --provenance P --rationale TEXT [--test-file T]`, "
    "or the gateway MCP tool `declare`), then retry."
)
SINCE = "Since the last tool call, something outside the gate"


@dataclass(frozen=True)
class Edit:
    """One string replacement of an edit tool."""

    old: str
    new: str
    replace_all: bool = False


@dataclass(frozen=True)
class HookCall:
    """What a host is about to do (`pre`) or has done (`post`), in the gateway's terms.

    kind: "edit" (string replacements on `path`), "write" (`content` replaces `path`), "patch"
    (`text` is a `*** Begin Patch` patch), "shell" (`text` is a command) or "other".
    `style`: how the host's edit tool departs from a plain exact replacement: "claude" (an
    empty new_string also deletes the newline after the text it removes), "gemini" (the file
    keeps whether it ended with a newline), or "exact". `host`: the host it came from;
    `edit_tools`: what its agent writes files with, which a note names."""

    event: Literal["pre", "post"]
    kind: Literal["edit", "write", "patch", "shell", "other"]
    tool: str
    cwd: Path
    project_dir: str | None = None
    path: Path | None = None
    edits: tuple[Edit, ...] = ()
    content: str | None = None
    text: str | None = None
    key: str = ""
    style: Literal["exact", "claude", "gemini"] = "exact"
    host: str = ""
    edit_tools: str = ""


@dataclass(frozen=True)
class Answer:
    """What the host should do. action "pass": run the call as it is; "deny": refuse it with
    `reason`; "rewrite": run it with `edit` (an edit tool's one replacement), `content` (a whole
    file) or `text` (a patch or command) instead; "block": a PostToolUse report that a change was
    put back; "context": a note for the model (`reason`) after the call ran."""

    action: Literal["pass", "deny", "rewrite", "block", "context"]
    reason: str = ""
    edit: Edit | None = None
    content: str | None = None
    text: str | None = None
    operations: list[dict[str, object]] = field(default_factory=list)
    suggested: tuple[SuggestedOperation, ...] = ()  # the operations `reason` names, spelled by the surface
    leaves: str | None = None  # the text a rewrite's `edit` leaves, where the judge worked it out


PASS = Answer("pass")


def checked_text(value: str, field: str) -> str:
    """An agent's string for a HookCall, refused (UsageError) when it cannot be written as text."""
    from gateway.gate.effect import check_text

    return check_text(value, field)
