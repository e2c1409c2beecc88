"""THE operation table: each operation one typed function, written once.

An operation's parameters are its function's signature (names, types, defaults: its schema);
its entry (gateway.surfaces.table) says how it is offered (`Arg`: the CLI's form of a
parameter, the agent's name for it), described, and shown by the CLI (`show`, from
gateway.surfaces.cli_text). The CLI's
subcommands (gateway.surfaces.cli), the MCP tools (gateway.surfaces.mcp), the JSON-RPC methods
(gateway.surfaces.rpc) and the daemon's dispatch (gateway.surfaces.daemon) are generated from
`OPERATIONS`. A function returns the engine's typed result; `call` gives its JSON (`to_json`),
the same snake_case object on every surface (the CLI prints it with --json). Adding an
operation: its function here (and what it calls in the engine). Importing this module costs
nothing heavy: the daemon client reads `writes` from it.
"""

from __future__ import annotations

from gateway.errors import UsageError
from gateway.surfaces import cli_text
from gateway.surfaces.table import Arg, Operation, Param

__all__ = ["DESCRIPTION_BUDGET", "OPERATIONS", "Arg", "Operation", "Param", "call", "checked", "command_line"]

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: the CLI reads this table before a cold command's server starts
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, Literal

    from gateway.api import ChainCheck, Classification, ContractReport, Gateway, NewContract, WorkspaceContext
    from gateway.results import EditResult, Jsonable, Listing, OperationResult, Summary, SymbolList, SymbolMatches

# A description is in the agent's context on every request: each says only what is particular
# to its tool (when to use it, when not, the test that must come with it, when to stop and ask).
DESCRIPTION_BUDGET = 420


_TABLE: list[Operation] = []


def operation(summary: str, description: str = "", **offered: Any) -> Callable[[Callable[..., Jsonable]], Callable[..., Jsonable]]:
    """Enter the decorated function in the table (see `Operation` for `offered`)."""

    def enter(function: Callable[..., Jsonable]) -> Callable[..., Jsonable]:
        _TABLE.append(Operation(function, summary, description, **offered))
        return function

    return enter


PATH = Arg("the file, relative to the workspace", metavar="PATH")
NAME_PATH = Arg("the symbol's name path (see find-symbol)", metavar="NAME_PATH")
TOKEN = Arg("the grant from `gateway declare` (default: a live grant for the file)", "flag", metavar="TOKEN")
DRY_RUN = Arg("preview: the result and what the language server says it would do to the program, with nothing written", "switch")
EDIT_TEXT = {"old_string": Arg("the old text", "text", flag="old"), "new_string": Arg("the new text", "text", flag="new"),
             "replace_all": Arg("every occurrence", "switch")}


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


@operation("classify a proposed edit", warm=True, command="classify", args={"path": PATH, **EDIT_TEXT}, show=cli_text.classify)
def classify(g: Gateway, path: str, old_string: str, new_string: str, replace_all: bool = False) -> Classification:
    return g.classify(path, old_string, new_string, replace_all)


@operation("apply an exact-match edit through the gate", EDIT_FILE, writes=True, warm=True, command="edit", tool="edit_file",
           show=cli_text.edit, args={
               "path": Arg("the file, relative to the workspace", metavar="PATH"), **EDIT_TEXT, "token": TOKEN,
               "route": Arg("perform a structural edit as verified symbol operations instead of refusing it", "switch"),
               "dry_run": DRY_RUN})
def edit(g: Gateway, path: str, old_string: str, new_string: str, replace_all: bool = False, route: bool = True,
         token: str | None = None, dry_run: bool = False) -> EditResult:
    return g.edit(path, old_string, new_string, replace_all, route, token, dry_run=dry_run)


@operation("create a new file through the gate", CREATE_FILE, writes=True, warm=True, command="create-file", tool="create_file",
           show=cli_text.created, args={"path": Arg("the new file, relative to the workspace", metavar="PATH"),
                                        "content": Arg("the new file's text", "text"), "token": TOKEN})
def create_file(g: Gateway, path: str, content: str, token: str | None = None) -> EditResult:
    return g.create_file(path, content, token)


@operation("a file's symbol tree", SYMBOLS, warm=True, symbolic=True, command="symbols", tool="symbols", show=cli_text.symbols,
           args={"path": PATH, "depth": Arg("show N levels", "flag", metavar="N")})
def symbols(g: Gateway, path: str, depth: int | None = None) -> SymbolList:
    return g.symbols(path, depth)


@operation("find symbols by name path", FIND_SYMBOL, warm=True, symbolic=True, command="find-symbol", tool="find_symbol",
           show=cli_text.find_symbol, args={"name_path": NAME_PATH, "path": Arg("a file to search (default: the workspace)", metavar="PATH"),
                                            "body": Arg("print each symbol's text", "switch")})
def find_symbol(g: Gateway, name_path: str, path: str | None = None, body: bool = False) -> SymbolMatches:
    return g.find_symbol(name_path, path, body)


@operation("replace a whole definition", REPLACE_SYMBOL, writes=True, warm=True, symbolic=True, command="replace-symbol", tool="replace_symbol",
           show=cli_text.operation, args={"name_path": NAME_PATH, "path": PATH, "body": Arg("the new definition", "text"), "token": TOKEN,
                                          "dry_run": DRY_RUN})
def replace_symbol(g: Gateway, name_path: str, path: str, body: str, token: str | None = None, dry_run: bool = False) -> OperationResult:
    return g.replace_symbol(name_path, path, body, token, dry_run=dry_run)


@operation("insert code as a sibling of a symbol", INSERT_CODE, writes=True, warm=True, symbolic=True, command="insert-code", tool="insert_code",
           show=cli_text.operation, args={
               "name_path": Arg("the sibling; '/' is the file itself", metavar="NAME_PATH"), "path": PATH,
               "position": Arg("before or after the sibling", "flag"), "code": Arg("the code to insert", "text"), "token": TOKEN,
               "dry_run": DRY_RUN})
def insert_code(g: Gateway, name_path: str, path: str, position: Literal["before", "after"], code: str, token: str | None = None,
                dry_run: bool = False) -> OperationResult:
    return g.insert_code(name_path, path, code, position, token, dry_run=dry_run)


@operation("remove a definition", REMOVE_SYMBOL, writes=True, warm=True, symbolic=True, command="remove-symbol", tool="remove_symbol",
           show=cli_text.operation, args={"name_path": NAME_PATH, "path": PATH, "token": TOKEN,
                                          "force": Arg("remove it even while other code still refers to it", "switch"), "dry_run": DRY_RUN})
def remove_symbol(g: Gateway, name_path: str, path: str, token: str | None = None, force: bool = False, dry_run: bool = False) -> OperationResult:
    return g.remove_symbol(name_path, path, token, force, dry_run=dry_run)


@operation("rename a symbol across the workspace", RENAME_SYMBOL, writes=True, warm=True, symbolic=True, command="rename-symbol",
           tool="rename_symbol", show=cli_text.operation,
           args={"name_path": NAME_PATH, "path": PATH, "new_name": Arg("the new name", metavar="NEW_NAME"), "token": TOKEN, "dry_run": DRY_RUN},
           epilog="exit 4: renamed in this file only; with no language server other files were not searched, and some mention the name")
def rename_symbol(g: Gateway, name_path: str, path: str, new_name: str, token: str | None = None, dry_run: bool = False) -> OperationResult:
    return g.rename_symbol(name_path, path, new_name, token, dry_run=dry_run)


@operation("language servers and the backend each language uses", command="servers", show=cli_text.servers)
def servers(g: Gateway) -> Listing:
    return g.servers()


@operation("the typed-edit kinds and their obligations", command="kinds", show=cli_text.kinds)
def kinds(g: Gateway) -> Listing:
    return g.kinds()


def _kinds() -> tuple[str, ...]:
    from gateway.typed.kinds import catalogue

    return tuple(catalogue().kinds)


def _rules(name: str) -> Callable[[], tuple[str, ...]]:
    def values() -> tuple[str, ...]:
        from gateway.typed.kinds import catalogue

        return tuple(getattr(catalogue().rules, name))

    return values


@operation("declare a typed edit; issues a single-use grant", DECLARE, command="declare", tool="declare", group="typed", show=cli_text.declare,
           args={
               "kind": Arg("the kind of change (`gateway kinds`); alone: its obligations", metavar="KIND", enum=_kinds),
               "files": Arg("a file the edit writes (repeatable)", "flag", flag="file", many=True, metavar="PATH"),
               "provenance": Arg("user_confirmed, accepted_artifact, direct_observation, inference or speculation", "flag", metavar="P",
                                 enum=_rules("provenances")),
               "rationale": Arg("why, grounded in what", "flag", metavar="TEXT"),
               "target": Arg("what the files are (implementation kinds)", "flag", metavar="prod|test", enum=lambda: ("prod", "test")),
               "test_files": Arg("a test that accompanies the edit (repeatable)", "flag", flag="test-file", many=True, metavar="T"),
               "execution_state": Arg("normal, repeating_failure or recovery", "flag", metavar="S", enum=_rules("execution_states")),
               "additional_files": Arg("another file a workflow kind writes", "flag", flag="additional-file", many=True, metavar="PATH"),
               "path": Arg("the file to edit with the grant", "none"), "old_string": Arg("the old text", "none"),
               "new_string": Arg("the new text", "none"), "replace_all": Arg("every occurrence", "none"),
           })
def declare(g: Gateway, kind: str, provenance: str | None = None, rationale: str | None = None, files: list[str] | None = None,
            target: str | None = None, test_files: list[str] | None = None, execution_state: str = "normal",
            additional_files: list[str] | None = None, path: str | None = None, old_string: str | None = None,
            new_string: str | None = None, replace_all: bool = False) -> Jsonable:
    """A kind alone: its obligations. Else the declaration, and with path, old_string and
    new_string the edit it grants, applied through the gate."""
    from gateway.results import Granted, Obligations
    from gateway.typed.declaration import Declaration
    from gateway.typed.kinds import catalogue

    if provenance is None and rationale is None and not files and path is None:
        if kind not in catalogue().kinds:
            raise UsageError(f"{kind!r} is not a kind; `gateway kinds` lists them")
        return Obligations(catalogue().kinds[kind])
    texts = (path, old_string, new_string)
    if any(part is not None for part in texts) and not all(part is not None for part in texts):
        raise UsageError("give path, old_string and new_string together (or none, to declare only)")
    if provenance is None or rationale is None:
        raise UsageError("a declaration needs provenance and rationale (give the kind alone to read what it needs)")
    declared = g.declare(Declaration.from_params({
        "kind": kind, "files": list(dict.fromkeys([*(files or []), *([path] if path else [])])), "provenance": provenance,
        "rationale": rationale, "target": target, "test_files": test_files or [], "execution_state": execution_state,
        "additional_files": additional_files or [],
    }))
    if not declared.issued or path is None or old_string is None or new_string is None:
        return declared
    return Granted.edit(declared, lambda: g.edit(path, old_string, new_string, replace_all, True, declared.token))


@operation("the typed-edit audit log", command="audit", word="log", show=cli_text.audit_log, args={
    "since": Arg("entries at or after this time (UTC when no offset is given)", "flag", metavar="ISO"),
    "kind": Arg("entries of this kind", "flag", metavar="K")})
def audit_log(g: Gateway, since: str | None = None, kind: str | None = None) -> Listing:
    return g.audit_log(since, kind)


@operation("the audit log summed up", command="audit", word="summary", show=cli_text.audit_summary)
def audit_summary(g: Gateway) -> Summary:
    return g.audit_summary()


@operation("the audit log's hash chain checked", command="audit", word="verify")
def audit_verify(g: Gateway) -> ChainCheck:
    return g.audit_verify()


CONTRACT = Arg("the contract", "file", metavar="FILE")


@operation("check a contract without writing", CONTRACT_CHECK, command="contract", word="check", tool="contract_check", group="contracts",
           show=cli_text.contract("check"), args={"path": CONTRACT})
def contract_check(g: Gateway, path: str) -> ContractReport:
    return g.contract_check(path)


@operation("apply a contract all or nothing", CONTRACT_APPLY, command="contract", word="apply", tool="contract_apply", group="contracts",
           show=cli_text.contract("apply"),
           args={"path": CONTRACT, "keep_on_failure": Arg("keep the written files when validation fails", "switch")})
def contract_apply(g: Gateway, path: str, keep_on_failure: bool = False) -> ContractReport:
    return g.contract_apply(path, keep_on_failure)


@operation("write a new contract to fill in", command="contract", word="new", show=cli_text.contract_new, args={
    "id": Arg("the contract's id", "flag", metavar="ID"),
    "files": Arg("a file the contract may change (repeatable)", "flag", flag="file", many=True, metavar="PATH"),
    "output": Arg("where to write it (default: contracts/ID.toml in the workspace)", "flag", metavar="F")})
def contract_new(g: Gateway, id: str, files: list[str] | None = None, output: str | None = None) -> NewContract:  # noqa: A002
    return g.contract_new(id, files or [], output)


@operation("the workspace snapshot a contract author starts from", command="context", show=cli_text.context)
def context(g: Gateway) -> WorkspaceContext:
    return g.context()


OPERATIONS: dict[str, Operation] = {operation.name: operation for operation in _TABLE}


def _given(spec: Operation, params: dict[str, Any]) -> dict[str, Any]:
    """Agents send `file_path`; the gateway's objects say `path`. Either is accepted."""
    names = {p.name for p in spec.params}
    if "file_path" in names or "path" not in names:
        return params
    if "path" not in params and "file_path" in params:
        params = {**params, "path": params["file_path"]}
    return {key: value for key, value in params.items() if key != "file_path"}


def checked(operation: str, params: dict[str, Any] | None) -> dict[str, Any]:
    """`params` validated against the operation's table entry, defaults filled in."""
    spec = OPERATIONS[operation]
    given = _given(spec, dict(params or {}))
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
    """Validate `params` against the operation's table entry, run it, and give its result's JSON."""
    return OPERATIONS[operation].run(gateway, checked(operation, params)).to_json()


def command_line(operation: str, values: dict[str, str]) -> str:
    """The `gateway` command that performs `operation` with `values`; a text parameter's value
    names a file holding the text (`--body-file NEW_DEFINITION_FILE`)."""
    import shlex  # not at the top: it loads `re`, which a warm command does without

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
