"""What each tool obliges an agent to do: the one text it re-reads at every call.

Every description is loaded into the agent's context on every request, so each says only what
is particular to its tool (when to use it, when not, the test that must come with it, when to
stop and ask), under DESCRIPTION_BUDGET characters; what all tools share is said once, in
INSTRUCTIONS, or in the tool that introduces it (name paths: find_symbol).
"""

from __future__ import annotations

DESCRIPTION_BUDGET = 420

INSTRUCTIONS = (
    "Structural edit gateway. edit_file judges each write by its effect: edits inside bodies apply; "
    "edits that add, remove or rename definitions or change their headers are done as verified symbol "
    "operations or refused with the tool to use. Symbol tools address definitions by name path (see "
    "find_symbol). There is no bypass. Every write is atomic and keeps encoding and line endings."
)

TYPED_INSTRUCTIONS = (
    " Typed edits are on: declare the kind of change first (the declare tool) and get a short-lived "
    "single-use grant bound to each file's current hash; given file_path, old_string and new_string it "
    "also applies the edit through the gate. Pass the grant's token to a symbol tool for a structural "
    "change. A refusal names what the declaration lacks."
)

TOOL_DESCRIPTIONS = {
    "edit_file": (
        "Replace old_string (exactly once, or replace_all) with new_string. USE for edits inside bodies, "
        "comments, strings, config and prose. Structural edits come back \"routed\" (done as symbol "
        "operations) or \"block\" with the tool to call; route=false refuses them all. DO NOT USE to move "
        "code between files. TESTS: a behaviour change needs a test that fails without it. STOP AND ASK "
        "before editing generated or lock files."
    ),
    "replace_symbol": (
        "Replace a whole definition with body, re-indented to its column. Decorators, doc comment and "
        "modifiers (export, pub, public...) are kept unless body brings its own. Refused on new syntax "
        "errors or a name already taken beside it. USE when a header or most of a body changes. DO NOT USE "
        "to rename (rename_symbol). TESTS: cover the changed behaviour. STOP AND ASK before changing a "
        "signature used outside the task."
    ),
    "insert_code": (
        "Insert code as a sibling before or after the symbol at name_path (\"/\": the file's start or "
        "end), indented and spaced like its neighbours. USE to add a function, method or class. DO NOT USE "
        "to change existing code. TESTS: new behaviour needs a new test. STOP AND ASK before adding a "
        "public API the task did not ask for."
    ),
    "remove_symbol": (
        "Remove a definition with its decorators, doc comment and the blank lines it leaves; refused, "
        "listing the places, while other code refers to it (force=true removes anyway). USE to delete "
        "a function, method or class. DO NOT USE to empty a body. TESTS: remove or update its tests. "
        "STOP AND ASK before removing anything used outside the task."
    ),
    "rename_symbol": (
        "Rename a symbol and its references through the language server, all files or none; refused if "
        "the name is taken in its scope. Places that may still refer to the old name come back as "
        "mentioned_in (file:line) with complete=false. USE for any rename. DO NOT USE edit_file to rename. "
        "TESTS: run the tests that cover it. STOP AND ASK before renaming a public or exported name."
    ),
    "symbols": "A file's symbols (name path, kind, lines), from its language server where one runs. USE to find the name path for a symbol tool. Read-only.",
    "find_symbol": (
        "Find symbols by name path in a file or the workspace; body=true returns their text. Name paths: "
        "`Class/method` matches as a suffix, `/Top/exact` from the top, `name[1]` the second of several. "
        "USE to read a definition before replacing it. Read-only."
    ),
    "contract_check": (
        "Check a contract (a reviewed TOML edit plan) without writing: files listed, hashes, anchors, "
        "symbols, the gate on text steps. USE before contract_apply. DO NOT USE as a reason to edit around "
        "it: regenerate the contract. TESTS: its [[validate]] commands. STOP AND ASK when a reviewed "
        "contract is refused."
    ),
    "declare": (
        "Declare the kind of change before writing (kind: one of the typed-edit kinds). Call with kind "
        "alone first to read its obligations; then with provenance, rationale, files (and target, "
        "test_files as they ask) for a grant. USE before every write here. DO NOT USE to cover files the "
        "change does not touch. TESTS: as the kind's obligations say. STOP AND ASK when it is refused."
    ),
    "contract_apply": (
        "Apply a contract all or nothing: write every file, run its [[validate]] commands, restore every "
        "byte on failure (keep_on_failure keeps the result to inspect). USE to execute a reviewed plan. DO "
        "NOT USE to improvise. TESTS: the validations run in the call. STOP AND ASK after a rollback."
    ),
}

CONTRACT_TOOLS = ("contract_check", "contract_apply")

