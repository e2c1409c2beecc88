"""How the `gateway` command shows each operation's result: its text and exit code (each
operation's entry in gateway.surfaces.operations names its `show` here). The result itself
(what --json prints) is the operation's."""

from __future__ import annotations

import sys

from gateway.errors import EXIT_BLOCKED, EXIT_ERROR, EXIT_INCOMPLETE, EXIT_OK

TYPE_CHECKING = False  # not `typing.TYPE_CHECKING`: a warm command shows its answer without loading typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    Shown = tuple[str, int]
    Result = dict[str, Any]


def message(result: Result, params: dict[str, Any]) -> Shown:
    """The default: the result's message."""
    return str(result.get("message", "")), EXIT_OK


def classify(result: Result, params: dict[str, Any]) -> Shown:
    return result["message"], EXIT_BLOCKED if result["decision"] == "block" else EXIT_OK


def new_error(error: Result) -> str:
    """One error a write added, as a compiler says it: `path:line:column: message (source)`."""
    source = f" ({error['source']})" if error.get("source") else ""
    return f"{error['path']}:{error['line']}:{error['column']}: {error['message']}{source}"


def verification(result: Result) -> list[str]:
    """What the language server said the write did to the program (the result's `verified`,
    `new_errors`, `unknown_because`, `unchecked`, `callers`): its lines; none where nothing was
    asked (a write that changed no definition: `skipped`, which `--json` still says)."""
    status = result.get("verified")
    if status in (None, "skipped"):
        return []
    by = f" ({result['verified_by']})" if result.get("verified_by") else ""
    errors = result.get("new_errors") or []
    lines = []
    if errors:
        lines.append(f"The language server{by} reports {len(errors)} new error(s):")
        lines += [f"  {new_error(error)}" for error in errors]
    elif status == "checked":
        lines.append(f"Verified{by}: no new errors.")
    why = result.get("unknown_because")
    if status == "unknown":
        lines.append(f"Not verified: {why or 'the language server gave no answer'}.")
    if result.get("unchecked"):  # why, when the rest was checked; an unknown said it above
        lines.append(f"Not checked{f' ({why})' if why and status == 'checked' else ''}: {', '.join(result['unchecked'])}.")
    if result.get("callers"):
        broken = {f"{error['path']}:{error['line']}" for error in errors}
        marked = [f"{place} ({'broken' if place in broken else 'may break: not checked'})" for place in result["callers"]]
        lines.append(f"Callers of the changed header: {', '.join(marked)}.")
    return lines


def _shown(text: str, result: Result) -> str:
    """`text` (what a write did), said as a preview for a dry run, with its verification after it."""
    if result.get("dry_run") and not text.startswith("Dry run"):  # a routed one's message says it already
        text = f"Dry run, nothing written: {text}"
    return "\n".join([text, *verification(result)])


def edit(result: Result, params: dict[str, Any]) -> Shown:
    if result.get("decision") == "routed":
        return _shown(f"{result['message']}\n{result['diff'].rstrip()}", result), EXIT_OK
    lines = ", ".join(map(str, result["lines"]))
    done = "Would apply" if result.get("dry_run") else "Applied"
    return _shown(f"{done}: {result['replacements']} replacement(s) in {result['path']} (line {lines}).", result), EXIT_OK


def created(result: Result, params: dict[str, Any]) -> Shown:
    return f"Created {result['path']} ({len(params['content'].splitlines())} line(s)).", EXIT_OK


def operation(result: Result, params: dict[str, Any]) -> Shown:
    text = result["message"] + ("\n" + result["diff"].rstrip() if result.get("diff") else "")
    return _shown(text, result), EXIT_INCOMPLETE if result.get("complete") is False else EXIT_OK


def symbols(result: Result, params: dict[str, Any]) -> Shown:
    lines = [f"{result['path']} ({result['language']}, {result['backend']})"]
    for symbol in result["symbols"]:
        depth = symbol["name_path"].count("/")
        lines.append(f"{'  ' * (depth + 1)}{symbol['kind']} {symbol['name_path']}  {symbol['start_line']}-{symbol['end_line']}")
    return "\n".join(lines), EXIT_OK


def find_symbol(result: Result, params: dict[str, Any]) -> Shown:
    lines = []
    for match in result["matches"]:
        lines.append(f"{match['path']}:{match['start_line']}-{match['end_line']} {match['kind']} {match['name_path']}")
        if params["body"]:
            lines.append(match["body"])
    nearest = f"; nearest: {', '.join(result['nearest'])}" if result.get("nearest") else ""
    return "\n".join(lines) or f"no symbol matches {params['name_path']}{nearest}", EXIT_OK if result["matches"] else EXIT_ERROR


def _server_state(row: dict[str, Any]) -> str:
    """How the server did in this workspace, when it was started here."""
    if row["status"] == "working":
        return f"; working (asked about {row['probed']})"
    if row["status"] == "broken":
        return f"; BROKEN: {row['reason']}"
    if row["status"] == "cannot run":
        return f"; CANNOT RUN: {row['reason']} (put it on PATH; tree-sitter answers meanwhile)"
    if row["status"] == "loading":
        return f"; still loading the workspace ({row['reason']}): tree-sitter answers until it has"
    return "; not started (no file of the language here)" if row["status"] == "not started" else ""


def servers(result: Result, params: dict[str, Any]) -> Shown:
    lines = []
    for row in result["languages"]:
        if row["found"]:
            found = f"found {row['path']} ({row['version'] or 'version unknown'})"
        else:
            found = f"not found ({row['reason']}); {row['install']}" if row["reason"] else f"not found; {row['install']}"
        renames = f"; renames through tree-sitter: {row['rename_fallback']}" if row["rename_fallback"] else ""
        chosen = f"; {row['chosen']}" if row["chosen"] else ""
        lines.append(f"{row['language']:<11} {row['server']:<24} {found}; backend: {row['backend']}{_server_state(row)}{renames}{chosen}")
    return "\n".join(lines), EXIT_OK


def kinds(result: Result, params: dict[str, Any]) -> Shown:
    lines = []
    for kind in result["kinds"]:
        lines.append(f"{kind['kind']} ({kind['group']}): {kind['summary']}")
        for key in ("use_when", "do_not_use", "tests", "stop_and_ask"):
            lines.append(f"    {key.replace('_', ' ')}: {kind[key]}")
    return "\n".join(lines), EXIT_OK


def declare(result: Result, params: dict[str, Any]) -> Shown:
    if "issued" not in result:  # the kind alone: its obligations
        return "\n".join([f"{result['kind']} ({result['group']}): {result['summary']}",
                          *(f"    {key.replace('_', ' ')}: {result[key]}" for key in ("use_when", "do_not_use", "tests", "stop_and_ask"))]), EXIT_OK
    warnings = [f"warning {w['code']}: {w['message']}" for w in result["audit_warnings"]]
    if not result["issued"]:
        error = result["audit_error"]
        return f"Rejected ({error['code']}): {error['message']}", EXIT_BLOCKED
    text = [f"Issued {result['edit_id']} for {', '.join(f['path'] for f in result['files'])}; expires {result['expires_at']}",
            f"token: {result['token']}", *warnings]
    return "\n".join(text), EXIT_OK


def _log_warnings(result: Result) -> None:
    for warning in result["log_warnings"]:
        print(f"gateway: {warning}", file=sys.stderr)


def audit_log(result: Result, params: dict[str, Any]) -> Shown:
    lines = []
    for e in result["entries"]:
        files = ", ".join(f["path"] for f in e.get("files", []))
        error = e.get("audit_error") or {}
        why = f" [{error.get('code')}]" if error else ""
        lines.append(f"{e.get('timestamp')} {e.get('phase'):<8} {e.get('kind') or e.get('operation') or '-'} {files}{why}")
    _log_warnings(result)
    return "\n".join(lines), EXIT_OK


def audit_summary(result: Result, params: dict[str, Any]) -> Shown:
    lines = [f"{result['entries']} entries: " + ", ".join(f"{n} {phase}" for phase, n in result["phases"].items())]
    lines += [f"  {kind}: {c['total']} (prod {c['prod']}, test {c['test']})" for kind, c in result["by_kind"].items()]
    for title in ("by_provenance", "by_execution_state", "warnings", "rejections"):
        if result[title]:
            lines.append(f"{title.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in result[title].items()))
    lines += [f"never consumed: {e['edit_id']} {e['kind']} {', '.join(e['files'])}" for e in result["never_consumed"]]
    lines += [f"most edited: {e['path']} ({e['edits']})" for e in result["most_edited"]]
    _log_warnings(result)
    return "\n".join(lines), EXIT_OK


def contract(action: str) -> Callable[[Result, dict[str, Any]], Shown]:
    def show(result: Result, params: dict[str, Any]) -> Shown:
        done = result["ready"] and (action == "check" or result["validated"])
        return _contract_text(action, result), EXIT_OK if done else EXIT_BLOCKED

    return show


def _contract_text(action: str, result: Result) -> str:
    lines = [f"Undid an interrupted contract run first: {', '.join(result['recovered'])} put back."] if result.get("recovered") else []
    lines += [f"An interrupted run of {run['contract']} left {', '.join(run['files'])} half-written; the next `contract apply` "
              "puts them back." for run in result.get("interrupted", [])]
    for problem in result["problems"]:
        where = f"line {problem['line']}: " if problem["line"] else ""
        lines.append(f"refused ({problem['code']}): {where}{problem['message']}")
    for step in result["steps"]:
        changed = f" -{step['lines_removed']} +{step['lines_added']} from line {step['start_line']}" if step["start_line"] else ""
        lines.append(f"step {step['id']}: {step['status']} ({step['action']} {', '.join(step['files']) or step['file']}){changed}")
    for validation in result.get("validations", []):
        state = "not run" if validation.get("not_run") else "timed out" if validation["timed_out"] else f"exit {validation['exit_code']}"
        lines.append(f"validate `{validation['run']}`: {state}" + (f" in {validation['duration_s']} s" if "duration_s" in validation else ""))
        if validation.get("passed") is False:
            lines.append(validation["output_tail"].rstrip()[-1500:])
    if not result["ready"]:
        lines.append(f"Contract {result['contract']} refused." + (f" {result['fallback']}" if result.get("fallback") else ""))
    elif action == "check":
        lines.append(f"Contract {result['contract']} is ready: {len(result['steps'])} step(s).")
    elif result["validated"]:
        lines.append(f"Contract {result['contract']} applied and validated.")
    else:
        lines.append(f"Contract {result['contract']} failed validation; " + ("files kept as written." if result["kept_on_failure"] else "every file restored."))
    return "\n".join(lines + verification(result))


def context(result: Result, params: dict[str, Any]) -> Shown:
    lines = [f"workspace {result['root']}" + ("" if result["git"] else " (not a git repository)")]
    for title, rows, fmt in (
        ("git-dirty", result["dirty"], lambda r: f"{r['status']:>2} {r['path']}"),
        ("recently modified", result["recent"], lambda r: f"{r['modified']} {r['path']}"),
        ("edited through the gateway, latest first", result["audit_recent"], lambda r: f"{r['last_edit']} {r['path']}"),
        ("edited most often", result["audit_frequent"], lambda r: f"{r['edits']:>3} {r['path']}"),
    ):
        if rows:
            lines.append(f"{title}:")
            lines += [f"  {fmt(r)}" + (f" ({r['language']})" if r["language"] else "") for r in rows]
    return "\n".join(lines), EXIT_OK


def contract_new(result: Result, params: dict[str, Any]) -> Shown:
    return f"Wrote {result['path']}", EXIT_OK
