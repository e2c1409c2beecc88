"""A contract file: its schema, read strictly, every problem reported with its line."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import regex

TEXT_ACTIONS = ("replace", "insert_before", "insert_after", "delete", "create")
SYMBOL_ACTIONS = ("replace_symbol", "insert_code", "remove_symbol", "rename_symbol")
KEYS = {
    "contract": {"id", "summary", "fallback", "base"},
    "files": {"path", "sha256"},
    "steps": {"id", "file", "action", "anchor", "anchor_regex", "text", "symbol", "position", "new_name", "force"},
    "validate": {"run", "timeout"},
}
DEFAULT_TIMEOUT = 300


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    line: int | None = None
    step: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "line": self.line, "step": self.step}


@dataclass(frozen=True)
class FileEntry:
    path: str
    sha256: str | None
    line: int
    sha256_line: int


@dataclass(frozen=True)
class Step:
    id: str
    file: str
    action: str
    line: int
    anchor: str | None = None
    anchor_regex: str | None = None
    text: str | None = None
    symbol: str | None = None
    position: str = "after"
    new_name: str | None = None
    force: bool = False
    """remove_symbol only: remove the definition even while it is still referenced."""


@dataclass(frozen=True)
class Validation:
    run: str
    timeout: float
    line: int


@dataclass
class Contract:
    path: Path
    id: str = ""
    summary: str = ""
    fallback: str = ""
    base: str | None = None
    files: list[FileEntry] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    validations: list[Validation] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def _header_lines(text: str, table: str) -> list[int]:
    """The line of each `[[table]]` header (or of `[table]`), in order."""
    pattern = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]\]?\s*(#.*)?$")
    return [number for number, line in enumerate(text.splitlines(), 1) if pattern.match(line)]


def _key_line(text: str, start: int | None, key: str) -> int | None:
    """The line that sets `key` in the table starting at line `start`."""
    if start is None:
        return None
    lines = text.splitlines()
    for number in range(start, len(lines)):
        line = lines[number]
        if line.lstrip().startswith("["):
            break
        if re.match(rf"\s*{re.escape(key)}\s*=", line):
            return number + 1
    return start


class _Reader:
    def __init__(self, contract: Contract, text: str) -> None:
        self.contract, self.text = contract, text

    def problem(self, code: str, message: str, line: int | None, step: str | None = None) -> None:
        self.contract.problems.append(Problem(code, message, line, step))

    def string(self, table: dict[str, Any], key: str, line: int | None, where: str, required: bool) -> str | None:
        value = table.get(key)
        if value is None:
            if required:
                self.problem("schema", f"{where}: `{key}` is required", line)
            return None
        if not isinstance(value, str):
            self.problem("schema", f"{where}: `{key}` must be a string", _key_line(self.text, line, key))
            return None
        return value

    def unknown_keys(self, table: dict[str, Any], name: str, line: int | None, where: str) -> None:
        for key in sorted(set(table) - KEYS[name]):
            self.problem("schema", f"{where}: unknown key `{key}` (expected {', '.join(sorted(KEYS[name]))})", _key_line(self.text, line, key))

    def array(self, data: dict[str, Any], name: str) -> list[tuple[dict[str, Any], int | None]]:
        value = data.get(name, [])
        lines = _header_lines(self.text, name)
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            self.problem("schema", f"`{name}` must be an array of tables ([[{name}]])", lines[0] if lines else None)
            return []
        return [(item, lines[index] if index < len(lines) else None) for index, item in enumerate(value)]


MAX_CONTRACT_BYTES = 1 << 20


def load_contract(path: Path) -> Contract:
    """The contract at `path`; what is wrong with it is in `.problems` (reading errors raise OSError)."""
    from gateway.errors import FileMissing
    from gateway.reading import read_regular

    data = read_regular(path, str(path), MAX_CONTRACT_BYTES)  # a FIFO or a device is refused unread
    if data is None:
        raise FileMissing(f"{path}: no such contract file")
    text = data.decode("utf-8")
    contract = Contract(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        line = getattr(error, "lineno", None) or _line_of_message(str(error))
        contract.problems.append(Problem("schema", f"not valid TOML: {error}", line))
        return contract
    reader = _Reader(contract, text)
    for key in sorted(set(data) - set(KEYS)):
        reader.problem("schema", f"unknown table `{key}` (expected contract, files, steps, validate)", _header_lines(text, key)[:1][0] if _header_lines(text, key) else None)
    head = data.get("contract")
    head_line = (_header_lines(text, "contract") or [None])[0]
    if not isinstance(head, dict):
        reader.problem("schema", "a [contract] table with `id` and `summary` is required", None)
        head = {}
    reader.unknown_keys(head, "contract", head_line, "[contract]")
    contract.id = reader.string(head, "id", head_line, "[contract]", True) or ""
    contract.summary = reader.string(head, "summary", head_line, "[contract]", True) or ""
    contract.fallback = reader.string(head, "fallback", head_line, "[contract]", False) or ""
    contract.base = reader.string(head, "base", head_line, "[contract]", False)
    _read_files(reader, data)
    _read_steps(reader, data)
    _read_validations(reader, data)
    return contract


def _line_of_message(message: str) -> int | None:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else None


def _read_files(reader: _Reader, data: dict[str, Any]) -> None:
    for index, (table, line) in enumerate(reader.array(data, "files")):
        where = f"[[files]] #{index + 1}"
        reader.unknown_keys(table, "files", line, where)
        path = reader.string(table, "path", line, where, True)
        digest = reader.string(table, "sha256", line, where, False)
        if digest is not None and not re.fullmatch(r"[0-9a-f]{64}", digest):
            reader.problem("schema", f"{where}: `sha256` must be 64 lowercase hex digits", _key_line(reader.text, line, "sha256"))
            digest = None
        if path is not None:
            reader.contract.files.append(FileEntry(path, digest, line or 0, _key_line(reader.text, line, "sha256") or 0))


def _read_steps(reader: _Reader, data: dict[str, Any]) -> None:
    seen: set[str] = set()
    for index, (table, line) in enumerate(reader.array(data, "steps")):
        where = f"[[steps]] #{index + 1}"
        reader.unknown_keys(table, "steps", line, where)
        values = {key: reader.string(table, key, line, where, key in ("id", "file", "action")) for key in KEYS["steps"] - {"force"}}
        step_id, action = values["id"], values["action"]
        if step_id in seen:
            reader.problem("schema", f"{where}: step id {step_id!r} is used twice", _key_line(reader.text, line, "id"), step_id)
        seen.add(step_id or "")
        if action is not None and action not in TEXT_ACTIONS + SYMBOL_ACTIONS:
            reader.problem("schema", f"{where}: action must be one of {', '.join(TEXT_ACTIONS + SYMBOL_ACTIONS)}", _key_line(reader.text, line, "action"), step_id)
            continue
        force = table.get("force", False)
        if not isinstance(force, bool):
            reader.problem("schema", f"{where} ({step_id}): `force` must be true or false, not {repr(force)[:40]}", _key_line(reader.text, line, "force"), step_id)
            continue
        if step_id is None or values["file"] is None or action is None:
            continue
        missing = _missing_for(action, values) or ("only a remove_symbol step takes `force`" if force and action != "remove_symbol" else None)
        if missing:
            reader.problem("schema", f"{where} ({step_id}): {missing}", line, step_id)
            continue
        if values["anchor_regex"] is not None:
            try:
                regex.compile(values["anchor_regex"])
            except regex.error as error:
                reader.problem("schema", f"{where} ({step_id}): anchor_regex does not compile: {error}", _key_line(reader.text, line, "anchor_regex"), step_id)
                continue
        step = {k: v for k, v in values.items() if v is not None and k not in ("id", "file", "action")}
        reader.contract.steps.append(Step(step_id, values["file"], action, line or 0, force=force, **step))  # type: ignore[arg-type]


def _missing_for(action: str, values: dict[str, str | None]) -> str | None:
    """What a step of `action` lacks or must not have, in words; None when it is complete."""
    anchored = (values["anchor"] is not None) + (values["anchor_regex"] is not None)
    if action in TEXT_ACTIONS:
        if values["symbol"] is not None or values["new_name"] is not None:
            return f"{action} is a text step: it takes anchor/anchor_regex and text, not symbol or new_name"
        if action == "create":
            return "create takes `text` and no anchor" if anchored or values["text"] is None else None
        if anchored != 1:
            return f"{action} needs exactly one of `anchor` or `anchor_regex`"
        if action != "delete" and values["text"] is None:
            return f"{action} needs `text`"
        if action == "delete" and values["text"] is not None:
            return "delete takes no `text`"
        return None
    if anchored:
        return f"{action} is a symbol step: it takes `symbol`, not an anchor"
    if values["symbol"] is None:
        return f"{action} needs `symbol` (a name path such as Class/method)"
    if action in ("replace_symbol", "insert_code") and values["text"] is None:
        return f"{action} needs `text`"
    if action == "insert_code" and values["position"] not in (None, "before", "after"):
        return "insert_code `position` must be before or after"
    if action == "rename_symbol" and values["new_name"] is None:
        return "rename_symbol needs `new_name`"
    return None


def _read_validations(reader: _Reader, data: dict[str, Any]) -> None:
    for index, (table, line) in enumerate(reader.array(data, "validate")):
        where = f"[[validate]] #{index + 1}"
        reader.unknown_keys(table, "validate", line, where)
        run = reader.string(table, "run", line, where, True)
        timeout = table.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
            reader.problem("schema", f"{where}: `timeout` must be a positive number of seconds", _key_line(reader.text, line, "timeout"))
            continue
        if run is not None:
            reader.contract.validations.append(Validation(run, float(timeout), line or 0))
