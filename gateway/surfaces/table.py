"""How an operation of the table (gateway.surfaces.operations) is declared: a typed function,
whose signature gives its parameters (`signature`, read lazily and without `inspect`: the CLI
reads the table before a cold command's server starts), and how each parameter is offered
(`Arg`)."""

from __future__ import annotations

from gateway.surfaces import cli_text

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: see the module's docstring
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from gateway.api import Gateway
    from gateway.results import Jsonable


class Arg:
    """How a parameter is offered. `cli` says how the `gateway` command takes it: "positional"
    (optional ones: nargs ?), "flag" (--name VALUE; `many`: repeatable), "text" (--flag TEXT or
    --flag-file F), "switch" (--name, off unless given), "file" (a positional path made
    absolute) or "none" (not on the command line). `flag` is the CLI's name where it differs;
    `enum` the values an agent's schema lists (read when a schema
    is made: the typed-edit kinds come from kinds.toml)."""

    __slots__ = ("help", "cli", "flag", "metavar", "many", "enum")

    def __init__(self, help: str = "", cli: str = "positional", *, flag: str | None = None, metavar: str | None = None,  # noqa: A002
                 many: bool = False, enum: Callable[[], tuple[str, ...]] | None = None) -> None:
        self.help, self.cli, self.flag, self.metavar, self.many = help, cli, flag, metavar, many
        self.enum = enum


class Param:
    """One parameter: its name, type, whether it is required and its default (from the
    function's signature; `choices` from a `Literal`), and how it is offered (`Arg`)."""

    __slots__ = ("name", "kind", "required", "default", "choices", "help", "cli", "flag", "metavar", "many", "enum")

    def __init__(self, name: str, kind: type, required: bool, default: Any, choices: tuple[str, ...], arg: Arg) -> None:
        self.name, self.kind, self.required, self.default, self.choices = name, kind, required, default, choices
        self.help, self.cli, self.flag, self.metavar, self.many = arg.help, arg.cli, arg.flag or name.replace("_", "-"), arg.metavar, arg.many
        self.enum = arg.enum


_KINDS: dict[str, type] = {"str": str, "int": int, "bool": bool, "list": list}


def _type(annotation: str) -> tuple[type, tuple[str, ...]]:
    """A parameter's type (and a `Literal`'s values) from its annotation as written."""
    first = next(part.strip() for part in annotation.split("|") if part.strip() != "None")
    if first.startswith("Literal["):
        return str, tuple(value.strip().strip("'\"") for value in first[len("Literal["):-1].split(","))
    return _KINDS[first.partition("[")[0]], ()


def signature(function: Callable[..., Any], args: dict[str, Arg]) -> tuple[Param, ...]:
    """The parameters of `function` after the first (the gateway), from its signature."""
    code = function.__code__
    names = code.co_varnames[1 : code.co_argcount]
    defaults = function.__defaults__ or ()
    first_default = len(names) - len(defaults)
    params = []
    for index, name in enumerate(names):
        kind, choices = _type(function.__annotations__[name])
        required = index < first_default
        default = None if required else defaults[index - first_default]
        params.append(Param(name, kind, required, default, choices, args.get(name) or Arg()))
    return tuple(params)



class Operation:
    """One operation: its typed function (whose signature gives `params`), what it does, how it
    is offered and shown. `command`: the CLI command (with `word`, its second word: `audit
    summary`); `tool`: the MCP tool's name, None when agents do not get it (`group`
    "contracts": listed with contracts only, "typed": with typed edits only); `writes`: it writes
    the file named by its `path`; `warm`: the CLI asks the workspace's daemon (and starts one for
    next time) rather than computing it in process; `symbolic`: it asks the language server of
    the file named by its `path` (computed in process, the CLI starts that server before
    anything else); `show`: the CLI's text and exit code for its result."""

    __slots__ = ("name", "function", "args", "_params", "summary", "description", "writes", "warm", "symbolic", "command", "word", "tool",
                 "group", "epilog", "show")

    def __init__(self, function: Callable[..., Jsonable], summary: str, description: str = "", *, args: dict[str, Arg] | None = None,
                 show: Callable[[dict[str, Any], dict[str, Any]], tuple[str, int]] = cli_text.message, writes: bool = False,
                 warm: bool = False, symbolic: bool = False, command: str | None = None, word: str | None = None, tool: str | None = None,
                 group: str = "core", epilog: str = "") -> None:
        self.name, self.function, self.args, self._params = function.__name__, function, args or {}, None
        self.summary, self.description, self.show = summary, description or summary, show
        self.writes, self.warm, self.symbolic, self.command, self.word = writes, warm, symbolic, command, word
        self.tool, self.group, self.epilog = tool, group, epilog

    @property
    def params(self) -> tuple[Param, ...]:
        if self._params is None:
            self._params = signature(self.function, self.args)
        return self._params

    def run(self, gateway: Gateway, params: dict[str, Any]) -> Jsonable:
        return self.function(gateway, **params)

    @property
    def method(self) -> str:
        """The JSON-RPC method: `gateway/` and the name in camelCase."""
        first, *rest = self.name.split("_")
        return "gateway/" + first + "".join(part.title() for part in rest)
