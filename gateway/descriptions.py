"""What each tool obliges an agent to do: the one text it re-reads at every call."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gateway.typed.kinds import Kind

_NAME_PATHS = (
    "Name paths: `Class/method` matches as a suffix, `/Top/exact` is absolute, `name[1]` picks the "
    "second of several matches (overloads); an ambiguous or unknown path is answered with the candidates."
)

TOOL_DESCRIPTIONS = {
    "edit_file": (
        "Replace `old_string` with `new_string` in a file, through the structural gate. "
        "USE for edits inside a body, comments, strings, configuration and prose. "
        "A multi-line edit that adds, removes or renames a definition or changes its header is performed "
        "as verified symbol operations (decision \"routed\", with `operations` and `exact`); when that is "
        "not sound it is refused (decision \"block\") with the reason and the symbol tool to call. "
        "route=false refuses every structural edit. There is no bypass. "
        "DO NOT USE to move a definition to another file: remove_symbol and insert_code do that. "
        "`old_string` must occur exactly once (or set replace_all). "
        "TESTS: a behaviour change needs a test that fails without it, in the same change. "
        "STOP AND ASK the user before editing generated files, lock files or files outside the task."
    ),
    "replace_symbol": (
        "Replace a whole definition (function, method, class, struct, type) addressed by name path with "
        "`body`, the complete new definition; it is re-indented to the definition's column. Decorators, "
        "attributes and the doc comment are replaced when `body` brings its own and kept when it does not. "
        "USE instead of edit_file whenever a definition's header or most of its body changes. "
        "DO NOT USE for a one-line change inside a body (use edit_file) or to rename (use rename_symbol). "
        "The result is re-parsed; a result with new syntax errors is refused and nothing is written. "
        f"{_NAME_PATHS} "
        "TESTS: add or update a test that exercises the replaced definition's changed behaviour. "
        "STOP AND ASK if the change alters a public signature that callers outside the task depend on."
    ),
    "insert_code": (
        "Insert new code (usually whole definitions) as a sibling `before` or `after` the symbol at "
        "`name_path`, indented like it and spaced like its neighbours; name_path `/` is the file itself "
        "(its start or end). USE to add a function, method or class. DO NOT USE to change existing code. "
        f"{_NAME_PATHS} "
        "TESTS: new behaviour needs a new test in the same change. "
        "STOP AND ASK before adding a public API the task did not ask for."
    ),
    "remove_symbol": (
        "Remove a definition with its decorators, attributes and doc comment, and the blank lines it "
        "leaves. USE to delete a function, method or class. DO NOT USE to empty a body. "
        f"{_NAME_PATHS} "
        "TESTS: remove or update the tests of the removed code; run the suite to find remaining callers. "
        "STOP AND ASK before removing anything still referenced outside the task's files."
    ),
    "rename_symbol": (
        "Rename a symbol and every reference to it through the language server; all files are written or "
        "none. Without a language server only the one file's identifiers are renamed, and the result says "
        "so. USE for any rename. DO NOT USE edit_file with replace_all to rename. "
        f"{_NAME_PATHS} "
        "TESTS: run the tests that cover the renamed symbol. "
        "STOP AND ASK before renaming a public or exported name."
    ),
    "contract_check": (
        "Check a contract (a TOML edit plan a person reviewed) without writing: schema, every step's file "
        "listed in [[files]], stale hashes, each anchor matching exactly once after the earlier steps, each "
        "symbol resolving, and the structural gate on every text step. Returns ready, or the problems with "
        "their lines. USE before contract_apply, and after writing or regenerating a contract. Read-only. "
        "DO NOT USE as a reason to edit the files until a contract fits: regenerate the contract (its `fallback` says how). "
        "TESTS: the contract's [[validate]] commands are the tests; a contract without one proves nothing. "
        "STOP AND ASK when a reviewed contract is refused: it was approved as written."
    ),
    "contract_apply": (
        "Apply a contract exactly: check it, write every file atomically, run its [[validate]] commands with "
        "their timeouts, and on any failure restore every file to its previous bytes (keep_on_failure=true "
        "keeps the failed result for inspection). Nothing outside the contract is touched; an anchor that does "
        "not match stops the run. USE to execute a reviewed plan. DO NOT USE to improvise: change the contract "
        "and have it reviewed instead. TESTS: the validation commands run as part of the call. "
        "STOP AND ASK after a rollback instead of editing around it."
    ),
    "symbols": (
        "List a file's symbols (name path, kind, lines), from its language server where one runs. "
        "USE before a symbol operation to find the exact name path. Read-only."
    ),
    "find_symbol": (
        "Find symbols by name path in one file or in the whole workspace; with body=true, return each "
        "definition's text. USE to read a definition before replacing it. Read-only. " + _NAME_PATHS
    ),
}


def kind_tool_description(kind: Kind) -> str:
    """A typed-edit kind's MCP tool: the kind's obligations, then how the call works."""
    fields = (
        "target (prod|test) is required"
        if not kind.is_workflow
        else "no target; additional_files may list further notes it writes"
    )
    tests = " A prod edit needs test_files." if kind.requires_test_files else ""
    return (
        f"Typed edit {kind.name}: {kind.description} "
        f"CALL: declare the change (files, provenance, rationale; {fields}).{tests} Given file_path, "
        "old_string and new_string, the edit is applied through the structural gate in the same call; "
        "without them you get a single-use grant (token, short-lived, bound to each file's current hash) for "
        "your own edit or a symbol tool's `token`. A refusal (audit_error) says what the declaration lacks."
    )
