"""A warm operation's command line read without argparse: argparse, and the `re` it loads, cost a
warm symbol command more than asking the daemon for its answer.

`parse` gives the namespace argparse (gateway.surfaces.cli_parser) gives for the same words, or
None whenever the words are not a warm operation's in a form read unambiguously here: help, an
unknown or abbreviated option, an option given twice, a value that begins with "-", positionals
split by options, a missing required argument, a value argparse would refuse. argparse then reads
them, and says any usage error in its own words, so each command line has one meaning and one
message whichever reads it.
"""

from __future__ import annotations

from types import SimpleNamespace

from gateway.surfaces.operations import OPERATIONS

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: see gateway.surfaces.cli
if TYPE_CHECKING:
    from typing import Any

    from gateway.surfaces.table import Operation, Param

# The options every operation's command takes (cli_parser's `common`), with argparse's defaults.
_COMMON = {"--json": ("json", None), "--workspace": ("workspace", str)}


def _operation(command: str) -> Operation | None:
    """The warm operation that `command` runs alone (no second word picks among several)."""
    found = [spec for spec in OPERATIONS.values() if spec.command == command]
    return found[0] if len(found) == 1 and found[0].warm and found[0].word is None else None


def _options(operation: Operation) -> dict[str, tuple[str, type | None, Param | None]]:
    """Each option string: its namespace name, the type of its value (None: a switch) and its parameter."""
    options: dict[str, tuple[str, type | None, Param | None]] = {flag: (dest, kind, None) for flag, (dest, kind) in _COMMON.items()}
    for param in operation.params:
        if param.cli == "switch":
            options[f"--{param.flag}"] = (param.name, None, param)
        elif param.cli == "text":
            options[f"--{param.flag}"] = (param.flag.replace("-", "_"), str, param)
            options[f"--{param.flag}-file"] = (f"{param.flag.replace('-', '_')}_file", str, param)
        elif param.cli == "flag":
            options[f"--{param.flag}"] = (param.name, param.kind if param.kind is int else str, param)
    if operation.name == "edit":
        options["--stdin"] = ("stdin", None, None)
    return options


def _defaults(operation: Operation, options: dict[str, tuple[str, type | None, Param | None]]) -> dict[str, Any]:
    values: dict[str, Any] = {"json": False, "workspace": "."}
    for dest, kind, _ in options.values():
        values.setdefault(dest, False if kind is None else None)
    for param in operation.params:
        if param.cli in ("positional", "file"):
            values[param.name] = None
    return values


def _value(kind: type, param: Param | None, text: str) -> Any:
    """The option's value as argparse converts and checks it; ValueError where argparse refuses it."""
    value = int(text) if kind is int else text
    if param is not None and param.choices and value not in param.choices:
        raise ValueError(text)
    return value


def _read(words: list[str], options: dict[str, tuple[str, type | None, Param | None]], values: dict[str, Any]) -> list[str] | None:
    """The options' values set in `values`; the positionals, or None where argparse is to read the words."""
    positionals: list[str] = []
    seen: set[str] = set()
    after_positionals, at = False, 0
    while at < len(words):
        word = words[at]
        at += 1
        if not word.startswith("-"):
            if after_positionals:
                return None  # positionals split by options: argparse's reading of those is its own
            positionals.append(word)
            continue
        after_positionals = bool(positionals)
        name, equals, inline = word.partition("=")
        if name not in options or name in seen:
            return None
        seen.add(name)
        dest, kind, param = options[name]
        if kind is None:
            if equals:
                return None
            values[dest] = True
            continue
        if not equals:
            if at == len(words) or words[at].startswith("-"):
                return None
            inline, at = words[at], at + 1
        try:
            value = _value(kind, param, inline)
        except ValueError:
            return None
        if param is not None and param.many:
            values[dest] = [*(values[dest] or []), value]
        else:
            values[dest] = value
    return positionals


def parse(words: list[str]) -> SimpleNamespace | None:
    """The namespace of a warm operation's command line, as argparse gives it; None: argparse reads it."""
    operation = _operation(words[0]) if words else None
    if operation is None:
        return None
    options = _options(operation)
    values = _defaults(operation, options)
    positionals = _read(words[1:], options, values)
    if positionals is None:
        return None
    slots = [param for param in operation.params if param.cli in ("positional", "file")]
    grouped_path = operation.name == "edit"  # its PATH may come on stdin instead (cli_parser: not required)
    required = [param for param in slots if param.required and not (grouped_path and param.name == "path")]
    if not len(required) <= len(positionals) <= len(slots):
        return None
    for param, word in zip(slots, positionals, strict=False):
        values[param.name] = word
    texts = [param for param in operation.params if param.cli == "text"]
    if any(values[p.flag.replace("-", "_")] is not None and values[f"{p.flag.replace('-', '_')}_file"] is not None for p in texts):
        return None  # argparse: not allowed with each other
    if any(param.cli == "flag" and param.required and values[param.name] is None for param in operation.params):
        return None
    from gateway.surfaces.cli_run import run_operation

    return SimpleNamespace(command=words[0], **values, handler=run_operation, operations={None: operation})
