"""The `gateway` commands for typed edits and contracts: kinds, declare, audit, contract, context.

Argument parsing and rendering only, like gateway.cli; the work is in `Gateway`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from typing import Any

from gateway.errors import EXIT_BLOCKED, EXIT_OK, UsageError

Outcome = tuple[dict[str, Any], str, int]


def _cmd_kinds(args: argparse.Namespace) -> Outcome:
    result = args.gateway_of(args).kinds()
    lines = []
    for kind in result["kinds"]:
        lines.append(f"{kind['kind']} ({kind['group']}): {kind['summary']}")
        for key in ("use_when", "do_not_use", "tests", "stop_and_ask"):
            lines.append(f"    {key.replace('_', ' ')}: {kind[key]}")
    return result, "\n".join(lines), EXIT_OK


def _cmd_declare(args: argparse.Namespace) -> Outcome:
    from gateway.surface import declaration_from

    params = {
        "kind": args.kind,
        "files": args.file,
        "provenance": args.provenance,
        "rationale": args.rationale,
        "target": args.target,
        "test_files": args.test_file,
        "execution_state": args.execution_state,
        "additional_files": args.additional_file,
    }
    result = args.gateway_of(args).declare(declaration_from(params))
    warnings = [f"warning {w['code']}: {w['message']}" for w in result["audit_warnings"]]
    if not result["issued"]:
        error = result["audit_error"]
        return result, f"Rejected ({error['code']}): {error['message']}", EXIT_BLOCKED
    text = [f"Issued {result['edit_id']} for {', '.join(f['path'] for f in result['files'])}; expires {result['expires_at']}",
            f"token: {result['token']}", *warnings]
    return result, "\n".join(text), EXIT_OK


def _cmd_audit(args: argparse.Namespace) -> Outcome:
    if args.view == "verify":
        if args.since or args.kind:
            raise UsageError("audit verify takes no --since or --kind")
        result = args.gateway_of(args).audit_verify()
        return result, result["message"], EXIT_OK
    if args.view == "summary":
        if args.since or args.kind:
            raise UsageError("audit summary takes no --since or --kind")
        result = args.gateway_of(args).audit_summary()
        lines = [f"{result['entries']} entries: " + ", ".join(f"{n} {phase}" for phase, n in result["phases"].items())]
        lines += [f"  {kind}: {c['total']} (prod {c['prod']}, test {c['test']})" for kind, c in result["by_kind"].items()]
        for title in ("by_provenance", "by_execution_state", "warnings", "rejections"):
            if result[title]:
                lines.append(f"{title.replace('_', ' ')}: " + ", ".join(f"{k} {v}" for k, v in result[title].items()))
        lines += [f"never consumed: {e['edit_id']} {e['kind']} {', '.join(e['files'])}" for e in result["never_consumed"]]
        lines += [f"most edited: {e['path']} ({e['edits']})" for e in result["most_edited"]]
    else:
        result = args.gateway_of(args).audit_log(args.since, args.kind)
        lines = []
        for e in result["entries"]:
            files = ", ".join(f["path"] for f in e.get("files", []))
            error = e.get("audit_error") or {}
            why = f" [{error.get('code')}]" if error else ""
            lines.append(f"{e.get('timestamp')} {e.get('phase'):<8} {e.get('kind') or e.get('operation') or '-'} {files}{why}")
    for warning in result["log_warnings"]:
        print(f"gateway: {warning}", file=sys.stderr)
    return result, "\n".join(lines), EXIT_OK


def _cmd_contract(args: argparse.Namespace) -> Outcome:
    gateway = args.gateway_of(args)
    if args.action == "new":
        if not args.id:
            raise UsageError("contract new needs --id ID")
        result = gateway.contract_new(args.id, args.file, args.output)
        return result, f"Wrote {result['path']}", EXIT_OK
    if not args.contract or args.id or args.file or args.output:
        raise UsageError(f"usage: gateway contract {args.action} FILE")
    path = os.path.abspath(args.contract)
    if args.action == "check":
        result = gateway.contract_check(path)
        code = EXIT_OK if result["ready"] else EXIT_BLOCKED
    else:
        result = gateway.contract_apply(path, args.keep_on_failure)
        code = EXIT_OK if result["ready"] and result["validated"] else EXIT_BLOCKED
    return result, _contract_text(args.action, result), code


def _contract_text(action: str, result: dict[str, Any]) -> str:
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
    return "\n".join(lines)


def _cmd_context(args: argparse.Namespace) -> Outcome:
    result = args.gateway_of(args).context()
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
    return result, "\n".join(lines), EXIT_OK


def add_plan_commands(commands: Any, common: argparse.ArgumentParser, gateway_of: Callable[[argparse.Namespace], Any]) -> None:
    kinds = commands.add_parser("kinds", parents=[common], help="the typed-edit kinds and their obligations")
    kinds.set_defaults(handler=_cmd_kinds, gateway_of=gateway_of)

    declare = commands.add_parser("declare", parents=[common], help="declare a typed edit; issues a single-use grant")
    declare.add_argument("kind", metavar="KIND")
    declare.add_argument("--file", action="append", required=True, metavar="PATH", help="a file the edit writes (repeatable)")
    declare.add_argument("--target", metavar="prod|test", help="what the files are (implementation kinds)")
    declare.add_argument("--provenance", required=True, metavar="P", help="user_confirmed, accepted_artifact, direct_observation, inference or speculation")
    declare.add_argument("--rationale", required=True, metavar="TEXT", help="why, grounded in what")
    declare.add_argument("--test-file", action="append", default=[], metavar="T", help="a test that accompanies the edit (repeatable)")
    declare.add_argument("--execution-state", default="normal", metavar="S", help="normal, repeating_failure or recovery")
    declare.add_argument("--additional-file", action="append", default=[], metavar="PATH", help="another file a workflow kind writes")
    declare.set_defaults(handler=_cmd_declare, gateway_of=gateway_of)

    audit = commands.add_parser("audit", parents=[common], help="the typed-edit audit log: audit log | audit summary | audit verify")
    audit.add_argument("view", choices=("log", "summary", "verify"))
    audit.add_argument("--since", metavar="ISO", help="entries at or after this time (UTC when no offset is given)")
    audit.add_argument("--kind", metavar="K", help="entries of this kind")
    audit.set_defaults(handler=_cmd_audit, gateway_of=gateway_of)

    contract = commands.add_parser("contract", parents=[common], help="contracts: contract check|apply FILE, contract new --id ID")
    contract.add_argument("action", choices=("check", "apply", "new"))
    contract.add_argument("contract", metavar="FILE", nargs="?", help="the contract (check, apply)")
    contract.add_argument("--keep-on-failure", action="store_true", help="apply: keep the written files when validation fails")
    contract.add_argument("--id", metavar="ID", help="new: the contract's id")
    contract.add_argument("--file", action="append", default=[], metavar="PATH", help="new: a file the contract may change (repeatable)")
    contract.add_argument("--output", metavar="F", help="new: where to write it (default: contracts/ID.toml in the workspace)")
    contract.set_defaults(handler=_cmd_contract, gateway_of=gateway_of)

    context = commands.add_parser("context", parents=[common], help="the workspace snapshot a contract author starts from")
    context.set_defaults(handler=_cmd_context, gateway_of=gateway_of)
