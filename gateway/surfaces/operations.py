"""THE operation table: each operation's name, parameters and descriptions, written once.

The CLI's subcommands (gateway.surfaces.cli), the MCP tools (gateway.surfaces.mcp), the JSON-RPC methods
(gateway.surfaces.rpc) and the daemon's dispatch (gateway.surfaces.daemon) are generated from `OPERATIONS`;
parameters and results are the same snake_case objects everywhere (the CLI prints them with
--json). Importing this module costs nothing heavy: the daemon client reads `writes` from it.
"""

from __future__ import annotations

import shlex

from gateway.errors import UsageError

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the CLI reads this table before a cold command's server starts
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    # What an operation runs on: the `gateway.api.Gateway` facade (typed loosely so that this
    # table, pure data, sits below everything that renders its operations, the gate's advice included).
    Gateway = Any

# A description is in the agent's context on every request: each says only what is particular
# to its tool (when to use it, when not, the test that must come with it, when to stop and ask).
DESCRIPTION_BUDGET = 420


class Param:
    """One parameter. `cli` says how the `gateway` command takes it: "positional" (optional
    ones: nargs ?), "flag" (--name VALUE; `many`: repeatable), "text" (--flag TEXT or --flag-file
    F), "switch" (--name, off unless given), "file" (a positional path made absolute) or "none".
    `flag` is the CLI's name where it differs."""

    __slots__ = ("name", "kind", "required", "default", "help", "cli", "flag", "metavar", "choices", "many")

    def __init__(self, name: str, kind: type, required: bool = True, default: Any = None, *, help: str = "",  # noqa: A002
                 cli: str = "positional", flag: str | None = None, metavar: str | None = None,
                 choices: tuple[str, ...] = (), many: bool = False) -> None:
        self.name, self.kind, self.required, self.default, self.help = name, kind, required, default, help
        self.cli, self.flag, self.metavar, self.choices, self.many = cli, flag or name.replace("_", "-"), metavar, choices, many


class Operation:
    """One operation: what it takes, what it does (`run` on the facade), how it is offered.
    `command`: the CLI command (with `word`, its second word: `audit summary`); `tool`: the MCP
    tool's name, None when agents do not get it (`group` "contracts": listed with contracts
    only); `writes`: it writes the file named by its `path`; `warm`: the CLI asks the workspace's
    daemon (and starts one for next time) rather than computing it in process; `symbolic`: it
    asks the language server of the file named by its `path` (computed in process, the CLI
    starts that server before anything else)."""

    __slots__ = ("name", "params", "run", "summary", "description", "writes", "warm", "symbolic", "command", "word", "tool", "group",
                 "epilog")

    def __init__(self, name: str, params: tuple[Param, ...], run: Callable[[Gateway, dict[str, Any]], dict[str, Any]], summary: str,
                 description: str = "", *, writes: bool = False, warm: bool = False, symbolic: bool = False, command: str | None = None,
                 word: str | None = None, tool: str | None = None, group: str = "core", epilog: str = "") -> None:
        self.name, self.params, self.run, self.summary, self.description = name, params, run, summary, description or summary
        self.writes, self.warm, self.symbolic, self.command, self.word = writes, warm, symbolic, command, word
        self.tool, self.group, self.epilog = tool, group, epilog

    @property
    def method(self) -> str:
        """The JSON-RPC method: `gateway/` and the name in camelCase."""
        first, *rest = self.name.split("_")
        return "gateway/" + first + "".join(part.title() for part in rest)


def _path(help: str = "the file, relative to the workspace", required: bool = True) -> Param:  # noqa: A002
    return Param("path", str, required, help=help, metavar="PATH")


_NAME_PATH = Param("name_path", str, metavar="NAME_PATH", help="the symbol's name path (see find-symbol)")
_TOKEN = Param("token", str, False, cli="flag", metavar="TOKEN", help="the grant from `gateway declare` (default: a live grant for the file)")
_EDIT_TEXT = (
    Param("old_string", str, cli="text", flag="old", help="the old text"),
    Param("new_string", str, cli="text", flag="new", help="the new text"),
    Param("replace_all", bool, False, False, cli="switch", help="every occurrence"),
)


EDIT_FILE = (
    'Replace old_string (exactly once, or replace_all) with new_string. USE for edits inside bodies, '
    'comments, strings, config and prose. Structural edits come back "routed" (done as symbol '
    'operations) or "block" with the tool to call; route=false refuses them all. DO NOT USE to move '
    'code between files. TESTS: a behaviour change needs a test that fails without it. STOP AND ASK '
    'before editing generated or lock files.'
)
CREATE_FILE = (
    'Create a new file holding content. Refused if the file exists (change it with edit_file or the symbol '
    'tools) or if content does not parse in its language. USE to add a module, test file or config. DO NOT '
    'USE to overwrite or move a file. TESTS: a new module needs its tests. STOP AND ASK before creating '
    'files outside what the task names.'
)
REPLACE_SYMBOL = (
    'Replace a whole definition with body, re-indented to its column. Decorators, doc comment and '
    'modifiers (export, pub, public...) are kept unless body brings its own. Refused on new syntax '
    'errors or a name already taken beside it. USE when a header or most of a body changes. DO NOT '
    'USE to rename (rename_symbol). TESTS: cover the changed behaviour. STOP AND ASK before changing '
    'a signature used outside the task.'
)
INSERT_CODE = (
    'Insert code as a sibling before or after the symbol at name_path ("/": the file\'s start or end), '
    'indented and spaced like its neighbours. USE to add a function, method or class. DO NOT USE to '
    'change existing code. TESTS: new behaviour needs a new test. STOP AND ASK before adding a public '
    'API the task did not ask for.'
)
REMOVE_SYMBOL = (
    'Remove a definition with its decorators, doc comment and the blank lines it leaves; refused, '
    'listing the places, while other code refers to it (force=true removes anyway). USE to delete a '
    'function, method or class. DO NOT USE to empty a body. TESTS: remove or update its tests. STOP '
    'AND ASK before removing anything used outside the task.'
)
RENAME_SYMBOL = (
    'Rename a symbol and its references through the language server, all files or none; refused if '
    'the name is taken in its scope. Places that may still refer to the old name come back as '
    'mentioned_in (file:line) with complete=false. USE for any rename. DO NOT USE edit_file to '
    'rename. TESTS: run the tests that cover it. STOP AND ASK before renaming a public or exported '
    'name.'
)
SYMBOLS = (
    "A file's symbols (name path, kind, lines), from its language server where one runs. USE to find "
    'the name path for a symbol tool. Read-only.'
)
FIND_SYMBOL = (
    'Find symbols by name path in a file or the workspace; body=true returns their text. Name paths: '
    '`Class/method` matches as a suffix, `/Top/exact` from the top, `name[1]` the second of several. '
    'USE to read a definition before replacing it. Read-only.'
)
CONTRACT_CHECK = (
    'Check a contract (a reviewed TOML edit plan) without writing: files listed, hashes, anchors, '
    'symbols, the gate on text steps. USE before contract_apply. DO NOT USE as a reason to edit '
    'around it: regenerate the contract. TESTS: its [[validate]] commands. STOP AND ASK when a '
    'reviewed contract is refused.'
)
DECLARE = (
    'Declare the kind of change before writing (kind: one of the typed-edit kinds). Call with kind '
    'alone first to read its obligations; then with provenance, rationale, files (and target, '
    'test_files as they ask) for a grant. USE before every write here. DO NOT USE to cover files the '
    "change does not touch. TESTS: as the kind's obligations say. STOP AND ASK when it is refused."
)
CONTRACT_APPLY = (
    'Apply a contract all or nothing: write every file, run its [[validate]] commands, restore every '
    'byte on failure (keep_on_failure keeps the result to inspect). USE to execute a reviewed plan. '
    'DO NOT USE to improvise. TESTS: the validations run in the call. STOP AND ASK after a rollback.'
)

def _declaration(params: dict[str, Any]) -> Any:
    from gateway.typed.declaration import Declaration

    return Declaration.from_params(params)


_TABLE = (
    Operation(
        "classify", (_path(), *_EDIT_TEXT),
        lambda g, p: g.classify(p["path"], p["old_string"], p["new_string"], p["replace_all"]).to_json(),
        "classify a proposed edit", warm=True, command="classify",
    ),
    Operation(
        "edit",
        (_path(), *_EDIT_TEXT,
         Param("route", bool, False, True, cli="switch", help="perform a structural edit as verified symbol operations instead of refusing it"),
         _TOKEN),
        lambda g, p: g.edit(p["path"], p["old_string"], p["new_string"], p["replace_all"], p["route"], p["token"]).to_json(),
        "apply an exact-match edit through the gate",
        EDIT_FILE,
        writes=True, warm=True, command="edit", tool="edit_file",
    ),
    Operation(
        "create_file", (_path("the new file, relative to the workspace"), Param("content", str, cli="text", help="the new file's text"), _TOKEN),
        lambda g, p: g.create_file(p["path"], p["content"], p["token"]).to_json(),
        "create a new file through the gate", CREATE_FILE, writes=True, warm=True, command="create-file", tool="create_file",
    ),
    Operation(
        "symbols", (_path(), Param("depth", int, False, cli="flag", metavar="N", help="show N levels")),
        lambda g, p: g.symbols(p["path"], p["depth"]),
        "a file's symbol tree", SYMBOLS, warm=True, symbolic=True, command="symbols", tool="symbols",
    ),
    Operation(
        "find_symbol",
        (_NAME_PATH, _path("a file to search (default: the workspace)", False),
         Param("body", bool, False, False, cli="switch", help="print each symbol's text")),
        lambda g, p: g.find_symbol(p["name_path"], p["path"], p["body"]),
        "find symbols by name path", FIND_SYMBOL, warm=True, symbolic=True, command="find-symbol", tool="find_symbol",
    ),
    Operation(
        "replace_symbol", (_NAME_PATH, _path(), Param("body", str, cli="text", help="the new definition"), _TOKEN),
        lambda g, p: g.replace_symbol(p["name_path"], p["path"], p["body"], p["token"]),
        "replace a whole definition", REPLACE_SYMBOL, writes=True, warm=True, symbolic=True, command="replace-symbol", tool="replace_symbol",
    ),
    Operation(
        "insert_code",
        (Param("name_path", str, metavar="NAME_PATH", help="the sibling; '/' is the file itself"), _path(),
         Param("position", str, cli="flag", choices=("before", "after"), help="before or after the sibling"),
         Param("code", str, cli="text", help="the code to insert"), _TOKEN),
        lambda g, p: g.insert_code(p["name_path"], p["path"], p["code"], p["position"], p["token"]),
        "insert code as a sibling of a symbol", INSERT_CODE, writes=True, warm=True, symbolic=True, command="insert-code", tool="insert_code",
    ),
    Operation(
        "remove_symbol",
        (_NAME_PATH, _path(), _TOKEN,
         Param("force", bool, False, False, cli="switch", help="remove it even while other code still refers to it")),
        lambda g, p: g.remove_symbol(p["name_path"], p["path"], p["token"], p["force"]),
        "remove a definition", REMOVE_SYMBOL, writes=True, warm=True, symbolic=True, command="remove-symbol", tool="remove_symbol",
    ),
    Operation(
        "rename_symbol", (_NAME_PATH, _path(), Param("new_name", str, metavar="NEW_NAME", help="the new name"), _TOKEN),
        lambda g, p: g.rename_symbol(p["name_path"], p["path"], p["new_name"], p["token"]),
        "rename a symbol across the workspace", RENAME_SYMBOL, writes=True, warm=True, symbolic=True, command="rename-symbol", tool="rename_symbol",
        epilog="exit 4: renamed in this file only; with no language server other files were not searched, and some mention the name",
    ),
    Operation("servers", (), lambda g, p: g.servers(), "language servers and the backend each language uses", command="servers"),
    Operation("kinds", (), lambda g, p: g.kinds(), "the typed-edit kinds and their obligations", command="kinds"),
    Operation(
        "declare",
        (
            Param("kind", str, metavar="KIND", help="the kind of change (`gateway kinds`)"),
            Param("files", list, cli="flag", flag="file", many=True, metavar="PATH", help="a file the edit writes (repeatable)"),
            Param("provenance", str, cli="flag", metavar="P", help="user_confirmed, accepted_artifact, direct_observation, inference or speculation"),
            Param("rationale", str, cli="flag", metavar="TEXT", help="why, grounded in what"),
            Param("target", str, False, cli="flag", metavar="prod|test", help="what the files are (implementation kinds)"),
            Param("test_files", list, False, [], cli="flag", flag="test-file", many=True, metavar="T", help="a test that accompanies the edit (repeatable)"),
            Param("execution_state", str, False, "normal", cli="flag", metavar="S", help="normal, repeating_failure or recovery"),
            Param("additional_files", list, False, [], cli="flag", flag="additional-file", many=True, metavar="PATH",
                  help="another file a workflow kind writes"),
        ),
        lambda g, p: g.declare(_declaration(p)),
        "declare a typed edit; issues a single-use grant", DECLARE, command="declare", group="typed",
    ),
    Operation(
        "audit_log",
        (Param("since", str, False, cli="flag", metavar="ISO", help="entries at or after this time (UTC when no offset is given)"),
         Param("kind", str, False, cli="flag", metavar="K", help="entries of this kind")),
        lambda g, p: g.audit_log(p["since"], p["kind"]), "the typed-edit audit log", command="audit", word="log",
    ),
    Operation("audit_summary", (), lambda g, p: g.audit_summary(), "the audit log summed up", command="audit", word="summary"),
    Operation("audit_verify", (), lambda g, p: g.audit_verify(), "the audit log's hash chain checked", command="audit", word="verify"),
    Operation(
        "contract_check", (Param("path", str, cli="file", metavar="FILE", help="the contract"),),
        lambda g, p: g.contract_check(p["path"]),
        "check a contract without writing", CONTRACT_CHECK, command="contract", word="check", tool="contract_check", group="contracts",
    ),
    Operation(
        "contract_apply",
        (Param("path", str, cli="file", metavar="FILE", help="the contract"),
         Param("keep_on_failure", bool, False, False, cli="switch", help="keep the written files when validation fails")),
        lambda g, p: g.contract_apply(p["path"], p["keep_on_failure"]),
        "apply a contract all or nothing", CONTRACT_APPLY, command="contract", word="apply", tool="contract_apply", group="contracts",
    ),
    Operation(
        "contract_new",
        (Param("id", str, cli="flag", metavar="ID", help="the contract's id"),
         Param("files", list, False, [], cli="flag", flag="file", many=True, metavar="PATH", help="a file the contract may change (repeatable)"),
         Param("output", str, False, cli="flag", metavar="F", help="where to write it (default: contracts/ID.toml in the workspace)")),
        lambda g, p: g.contract_new(p["id"], p["files"], p["output"]),
        "write a new contract to fill in", command="contract", word="new",
    ),
    Operation("context", (), lambda g, p: g.context(), "the workspace snapshot a contract author starts from", command="context"),
)

OPERATIONS: dict[str, Operation] = {operation.name: operation for operation in _TABLE}


def _given(params: dict[str, Any]) -> dict[str, Any]:
    """Agents send `file_path`; the gateway's objects say `path`. Either is accepted."""
    if "path" not in params and "file_path" in params:
        params = {**params, "path": params["file_path"]}
    return {key: value for key, value in params.items() if key != "file_path"}


def checked(operation: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """`params` validated against the operation's table entry, defaults filled in."""
    spec = OPERATIONS[operation]
    given = _given(dict(params or {}))
    unknown = set(given) - {p.name for p in spec.params}
    if unknown:
        raise UsageError(f"{operation}: unknown parameter(s): {', '.join(sorted(unknown))}")
    result: dict[str, Any] = {}
    for param in spec.params:
        if param.name not in given or given[param.name] is None:
            if param.required:
                raise UsageError(f"{operation}: missing parameter {param.name}")
            result[param.name] = param.default
            continue
        value = given[param.name]
        if not isinstance(value, param.kind) or (param.kind is int and isinstance(value, bool)):
            raise UsageError(f"{operation}: {param.name} must be {param.kind.__name__}")
        if param.choices and value not in param.choices:
            raise UsageError(f"{operation}: {param.name} must be one of {', '.join(param.choices)}")
        result[param.name] = value
    return result


def call(gateway: Gateway, operation: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """Validate `params` against the operation's table entry and run it."""
    return OPERATIONS[operation].run(gateway, checked(operation, params))


def command_line(operation: str, values: dict[str, str]) -> str:
    """The `gateway` command that performs `operation` with `values`; a text parameter's value
    names a file holding the text (`--body-file NEW_DEFINITION_FILE`)."""
    spec = OPERATIONS[operation]
    words = ["gateway", str(spec.command), *([spec.word] if spec.word else [])]
    flags: list[str] = []
    for param in spec.params:
        value = values.get(param.name)
        if value is None:
            continue
        if param.cli in ("positional", "file"):
            words.append(shlex.quote(value))
        elif param.cli == "switch":
            flags.append(f"--{param.flag}")
        else:
            flags += [f"--{param.flag}-file" if param.cli == "text" else f"--{param.flag}", shlex.quote(value)]
    return " ".join(words + flags)
