"""The `gateway` command: its operation commands are generated from the table in gateway.surfaces.operations
(shown as each entry's `show` says); the process commands (serve, mcp, hook, daemon) are gateway.surfaces.cli_process's.

A warm operation's words are read by gateway.surfaces.cli_words and its answer asked of the
workspace's daemon (gateway.surfaces.cli_run) with only the standard library's light modules
loaded, as the hook's client does; any other command line goes to argparse (gateway.surfaces.cli_parser),
which gives the same namespace for the words both read. Errors map to exit codes here, in one place."""

from __future__ import annotations

import os
import sys

from gateway import fastjson
from gateway.errors import EXIT_ERROR, GatewayError, exit_code_for
from gateway.surfaces import cli_words
from gateway.surfaces.operations import OPERATIONS

# Imported where used: a cold symbol command starts its server before it loads them (gateway.lsp.early).

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a cold symbol command starts its server before typing is loaded
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Sequence
    from types import SimpleNamespace
    from typing import Any

    Outcome = tuple[dict[str, Any], str, int]


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser (gateway.surfaces.cli_parser); `only`: with that command alone."""
    from gateway.surfaces.cli_parser import build_parser as parser

    return parser(only)


def _emit(args: argparse.Namespace | SimpleNamespace | None, payload: dict[str, Any], text: str) -> None:
    if args is not None and args.json:
        print(fastjson.dumps(payload))  # json.dumps(payload, ensure_ascii=False), without loading `json` and `re`
    elif text:
        print(text)


def _parsed(words: list[str]) -> argparse.Namespace | SimpleNamespace:
    """The namespace of `words`: read here when they are a warm operation's in a form read
    unambiguously, else by argparse (which says a usage error)."""
    thin = cli_words.parse(words)
    if thin is not None:
        return thin
    from gateway.surfaces.cli_process import PROCESS_COMMANDS

    only = words[0] if words and (words[0] in _OPERATION_COMMANDS or words[0] in PROCESS_COMMANDS) else None
    return build_parser(only).parse_args(words)


def run(argv: Sequence[str] | None = None) -> int:
    args: argparse.Namespace | SimpleNamespace | None = None
    try:
        args = _parsed(sys.argv[1:] if argv is None else list(argv))
        handler: Callable[[Any], Outcome] = args.handler
        payload, text, code = handler(args)
    except GatewayError as error:
        from gateway.surfaces import render

        _close(args)
        refused = render.refusal(error, render.CLI)
        print(f"gateway: {render.message(error)}", file=sys.stderr)
        _say_new_errors(refused)
        _emit(args, refused, "")
        return exit_code_for(error)
    _close(args)
    _emit(args, payload, text)
    return code


def _say_new_errors(refused: dict[str, Any]) -> None:
    """A refusal for the errors a write would add ([verify] on_new_errors = "refuse"): each one
    on its own line of stderr, as a compiler says it, under the refusal's message."""
    errors = refused["error"].get("new_errors") if isinstance(refused.get("error"), dict) else None
    if isinstance(errors, list) and errors:
        from gateway.surfaces.cli_text import new_error

        print("\n".join(f"  {new_error(e)}" for e in errors if isinstance(e, dict)), file=sys.stderr)


def _close(args: argparse.Namespace | SimpleNamespace | None) -> None:
    """The command's servers ended: this process exits next, so those that may be are killed
    rather than waited for."""
    if args is not None and getattr(args, "gateway", None) is not None:
        args.gateway.close(exiting=True)


def main() -> None:
    try:
        code = run()
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away (`gateway ... | head`): nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_ERROR
    if sys.argv[1:2] and sys.argv[1] in _OPERATION_COMMANDS:
        # An operation's command has done all it does (its servers ended in `run`, a daemon for
        # next time detached): it exits without the interpreter's teardown, which after a
        # symbol command costs more than printing the answer.
        os._exit(code)
    sys.exit(code)


_OPERATION_COMMANDS = frozenset(str(spec.command) for spec in OPERATIONS.values())


if __name__ == "__main__":
    main()
