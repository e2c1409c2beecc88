"""What a shell command did to the workspace's source files, judged by the gate once it ran
(`[gate] shell`): "report" says each definition it added, removed, renamed or whose header it
changed, and each syntax error it introduced; "put_back" also undoes those structural changes
(each touched definition's earlier text; the whole file only when its whole change is
structural: a file created with definitions is removed, one deleted comes back), atomically,
keeping the file's encoding, BOM, line endings and mode. A command that only brings content
from the repository or formats and generates code (`kept_as_is`) is reported, never put back.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gateway.errors import GatewayError, Stale
from gateway.gate.checker import Gate
from gateway.langs import LanguageRegistry
from gateway.gate.command_changes import CommandChange, judge_change, undone
from gateway.snapshot import FileState
from gateway.shell_record import FileChange, changes_after, kept_bytes, record_before
from gateway.shell_record_bodies import Seen
from gateway.textfile import decode, encoding_rule, round_trips

MAX_JUDGED = 200
JUDGE_SECONDS = 10.0  # well inside the hosts' hook timeout (120 s as installed)
SEPARATORS = {"&&", "||", ";", "|", "&", ";;", "\n"}
GIT_FROM_REPOSITORY = {"checkout", "switch", "restore", "reset", "stash", "pull", "merge", "rebase", "cherry-pick", "revert", "am",
                       "clone", "fetch", "mv", "rm", "submodule", "status", "diff", "log", "show", "add", "commit"}
FORMATTERS = {"black", "isort", "autopep8", "yapf", "autoflake", "ruff", "prettier", "eslint", "gofmt", "goimports", "rustfmt",
              "clang-format", "ktlint", "rubocop", "protoc", "buf", "shfmt", "biome", "dprint", "swiftformat", "google-java-format"}
TOOL_SUBCOMMANDS = {"go": {"fmt", "generate"}, "cargo": {"fmt"}}
RUNNERS = {"npx", "pnpx", "uvx", "pipx", "bunx"}


@dataclass
class Review:
    """A command's changes as judged: each file's verdict, the ones put back (and how), the
    ones that could not be, and the files past the bound left unjudged; `setting`: `[gate]
    shell` as it was before the command ran."""

    setting: str
    changes: list[CommandChange] = field(default_factory=list)
    put_back: dict[str, str] = field(default_factory=dict)
    not_put_back: dict[str, str] = field(default_factory=dict)
    unjudged: int = 0

    @property
    def structural(self) -> list[CommandChange]:
        return [c for c in self.changes if c.structural]


def _judged_by_name(gate: Gate) -> Callable[[str], bool]:
    """Whether the gate judges a file by its name (once per extension or known file name);
    an extensionless file told by its `#!` line is not read for it. The same function for the
    same language registry (it alone decides; the daemon's stays), so that the sources of an
    unchanged listing are kept (gateway.shell_record.sources)."""
    last = _judged.get("last")
    if last is not None and last[0] is gate.registry:
        return last[1]
    judged = _by_name(gate)
    _judged["last"] = (gate.registry, judged)
    return judged


_judged: dict[str, tuple[LanguageRegistry, Callable[[str], bool]]] = {}


def _by_name(gate: Gate) -> Callable[[str], bool]:
    named = {name for lang in gate.registry.languages.values() for name in lang.filenames}
    known: dict[str, bool] = {}

    def judged(path: str) -> bool:
        name = path.rsplit("/", 1)[-1]
        key = name if name in named else "." + name.rsplit(".", 1)[-1].lower() if "." in name.lstrip(".") else ""
        if key not in known:
            known[key] = bool(key) and gate.judged(name)
        return known[key]

    return judged


def before_command(gate: Gate, root: Path, key: str) -> None:
    record_before(root, key, _judged_by_name(gate), gate.config.max_file_bytes, gate.config.shell)


def _text(gate: Gate, path: str, data: bytes) -> tuple[str, str]:
    text, codec = decode(data, path, encoding_rule(path, gate.registry, data))
    if not round_trips(text, codec, data):
        raise GatewayError(f"{path}: its bytes do not come back unchanged from decoding and encoding")
    return text, codec


def _texts(gate: Gate, root: Path, change: FileChange) -> tuple[str | None, str | None, str]:
    """(before, after, the codec of after) as text; GatewayError when one is not there to read."""
    before = after = None
    codec = "utf-8"
    if change.before is not None:
        data = kept_bytes(root, change.before)
        if data is None:
            raise GatewayError("its earlier bytes were not kept (too large, or removed from the gateway's state)")
        before = _text(gate, change.path, data)[0]
    if change.after is not None:
        data = kept_bytes(root, change.after)
        if data is None:
            raise GatewayError("too large to judge")
        after, codec = _text(gate, change.path, data)
    return before, after, codec


def after_command(gate: Gate, root: Path, key: str, may_put_back: bool) -> Review | None:
    """The command's changes judged (and, where the setting before it ran was "put_back" and
    `may_put_back`, the structural ones undone); None when there is no record of the
    workspace from before it ran."""
    found = changes_after(root, key, _judged_by_name(gate), gate.config.max_file_bytes)
    if found is None:
        return None
    changes, setting = found
    put_back = may_put_back and setting == "put_back"
    review = Review(setting, unjudged=max(0, len(changes) - MAX_JUDGED))
    deadline = time.monotonic() + JUDGE_SECONDS
    for number, change in enumerate(changes[:MAX_JUDGED]):
        if time.monotonic() > deadline:
            review.unjudged += min(len(changes), MAX_JUDGED) - number
            break
        try:
            before, after, codec = _texts(gate, root, change)
        except GatewayError as error:
            review.changes.append(CommandChange(change.path, change.what, unjudged=str(error)))
            continue
        verdict = judge_change(gate, change.path, before, after)
        review.changes.append(verdict)
        if put_back and verdict.structural:
            _put_back(gate, root, change, verdict, (before, after, codec), review)
    return review


def _put_back(gate: Gate, root: Path, change: FileChange, verdict: CommandChange, texts: tuple[str | None, str | None, str],
              review: Review) -> None:
    from gateway.atomic import replace_atomically, sha256
    from gateway.snapshot import Change, restore

    before, after, codec = texts
    target = root / change.path
    partial = undone(gate, verdict, before, after) if before is not None and after is not None else None

    def unchanged_since() -> None:
        current = target.read_bytes() if target.is_file() and not target.is_symlink() else None
        expected = None if change.after is None else change.after.state.sha256
        if (sha256(current) if current is not None else None) != expected:
            raise Stale(f"{change.path}: changed again meanwhile")

    try:
        if not Path(os.path.realpath(target.parent)).is_relative_to(os.path.realpath(root)):
            raise GatewayError(f"its directory now leads out of the workspace, to {os.path.realpath(target.parent)}")
        unchanged_since()
        if partial is not None and change.after is not None:
            replace_atomically(target, partial.encode(codec), change.after.state.mode, before_rename=unchanged_since)
            review.put_back[change.path] = "the changed definitions' earlier text"
            return
        failed = restore(root, [Change(change.path, change.what, _state(change.before), _state(change.after))], _objects(root))
        if failed:
            raise GatewayError("its earlier bytes are no longer kept")
        review.put_back[change.path] = {"created": "removed: the command created it", "deleted": "restored: the command deleted it"}.get(
            change.what, "its whole earlier text (its change could not be told apart from the structural one)")
    except (GatewayError, OSError, UnicodeError) as error:
        review.not_put_back[change.path] = str(error)


def _state(seen: Seen | None) -> FileState | None:
    return seen.state if seen is not None else None


def _objects(root: Path) -> Path:
    from gateway.typed.state import objects_dir

    return objects_dir(root)


def _program(words: list[str]) -> list[str]:
    """The words from the program on: environment assignments and runners (`npx X`) skipped."""
    while words and "=" in words[0] and not words[0].startswith("="):
        words = words[1:]
    while words and (words[0] in RUNNERS or words[:2] == ["python3", "-m"] or words[:2] == ["python", "-m"]):
        words = words[2:] if words[0].startswith("python") else words[1:]
    return words


def kept_as_is(command: str) -> str | None:
    """Why a command's changes are only reported, never put back: every part of it runs git on
    the repository's own content, or a formatter or code generator; None otherwise (a write by
    redirection, or any other program, is not one)."""
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return None
    if any(w.startswith((">", "<")) or w.endswith(">") for w in words):
        return None
    parts, current, reasons = [], [], set()
    for word in [*words, ";"]:
        if word in SEPARATORS:
            parts.append(_program(current))
            current = []
        else:
            current.append(word)
    for part in parts:
        if not part or part[0] == "cd":
            continue
        name = part[0].rsplit("/", 1)[-1]
        if name == "git" and any(w in GIT_FROM_REPOSITORY for w in part[1:3]):
            reasons.add("a git operation")
        elif name in FORMATTERS or part[1:2] and part[1] in TOOL_SUBCOMMANDS.get(name, set()):
            reasons.add("a formatter or code generator")
        else:
            return None
    return " and ".join(sorted(reasons)) or None
