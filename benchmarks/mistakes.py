"""The mistakes agents make with `old_string`→`new_string` on definitions, on real repositories:
plain text replacement against the same edit through the gateway (issue 37, part 3).

`python benchmarks/mistakes.py [--record] [--languages python,go] [--limit N] [--budget-ms N] CHECKOUT...`

Each checkout (requests, cobra, ky, gson, cxxopts, semver: recognised by its directory name) is
copied twice to a temporary directory (never touched itself): one copy for the gateway, one for
the judge. The cases (`mistakes_cases`: each kind of `mistakes.toml`, up to `--limit` per kind and
as many correct edits of the same kind, fixed seed) are applied two ways:

- plain: the edit as Claude Code applies it without us (old_string once, or every occurrence
  with replace_all; an empty new_string also deletes the newline after it);
- through the gateway: Claude Code's PreToolUse hook in process (`hooks.run.outcome` on one
  `Gateway` per repository, its language servers warm), refused or routed or let through; the
  host's write of what it answered; then the PostToolUse hook, whose note is what the agent reads.

The judge (`mistakes_judges`: pytest, go build/vet/test, tsc, javac, g++ with the Catch tests,
cargo test) runs on the judge's copy holding each result; an edit harms when it adds a failure
the untouched copy has not. Per mistake: harmed (the plain replacement harms); caught (of the
harmed: refused, or the PostToolUse note names new errors at a `path:line`); corrected (of the
harmed: the gateway's result is written and harms nothing); and per correct edit: a false refusal
(refused, or told of new errors, or the gateway's result harms where the plain one does not).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.mistakes_cases import LANGUAGES, Case, Edit, cases  # noqa: E402
from benchmarks.mistakes_judges import JUDGES, Judge, Verdict  # noqa: E402
from benchmarks.report import machine, record, result_path  # noqa: E402

CATALOGUE = Path(__file__).with_name("mistakes.toml")
REPOSITORIES = {"requests": "python", "cobra": "go", "ky": "typescript", "gson": "java", "cxxopts": "cpp", "semver": "rust"}
TOLD = re.compile(r"reports \d+ new errors?: \S+:\d+|\S+:\d+ \(broken\)")
SERVER_START_SECONDS = 300


@dataclass(frozen=True)
class Through:
    """What the gateway did with an edit: `decision` "refused", "routed" or "allowed" (or
    "host_error": the host could not apply what it was given), what the agent was told
    (`said`: the refusal, or PostToolUse's note) and the file's text after it."""

    decision: str
    said: str
    text: str

    @property
    def told(self) -> bool:
        return self.decision == "refused" or bool(TOLD.search(self.said))


@dataclass
class Row:
    case: Case
    harmed: list[str]
    through: Through
    gateway_harmed: list[str]
    seconds: float

    @property
    def caught(self) -> bool:
        return bool(self.harmed) and self.through.told

    @property
    def corrected(self) -> bool:
        return bool(self.harmed) and self.through.decision in ("routed", "allowed") and not self.gateway_harmed

    @property
    def counted_correct(self) -> bool:
        """A correct edit the judge agrees is correct (the plain replacement harms nothing); one it
        does not (a name used where the word count cannot see it) is left out of false refusals."""
        return self.case.correct and not self.harmed

    @property
    def false_refusal(self) -> bool:
        return self.counted_correct and (self.through.told or bool(self.gateway_harmed))


def host_apply(text: str, edit: Edit | dict[str, object]) -> str | None:
    """Claude Code's Edit: None where it fails (old_string not found, or found more than once
    without replace_all); an empty new_string also takes the newline after the text."""
    if isinstance(edit, dict):
        edit = Edit("", str(edit["old_string"]), str(edit["new_string"]), bool(edit.get("replace_all", False)))
    count = text.count(edit.old)
    if count == 0 or (count > 1 and not edit.replace_all):
        return None
    old = edit.old
    if edit.new == "" and not old.endswith("\n") and old + "\n" in text:
        old += "\n"
    return text.replace(old, edit.new) if edit.replace_all else text.replace(old, edit.new, 1)


def through_gateway(engine: object, root: Path, edit: Edit) -> Through:
    """The edit through Claude Code's hooks in process, on `engine`; the file is left as the host
    leaves it (the caller puts it back)."""
    from gateway.errors import HookFailed
    from gateway.surfaces.hooks.run import outcome

    path = root / edit.path
    before = path.read_text(encoding="utf-8")
    tool_input = {"file_path": str(path), "old_string": edit.old, "new_string": edit.new, "replace_all": edit.replace_all}
    context: dict[str, str | None] = {"cwd": str(root), "project_dir": str(root)}
    payload = {"session_id": "mistakes", "cwd": str(root), "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_input": tool_input}
    try:
        stdout, _ = outcome("claude-code", json.dumps(payload).encode(), context, None, engine)  # type: ignore[arg-type]
    except HookFailed as failed:  # exit 2: Claude Code blocks the tool and shows the model the line
        return Through("refused", str(failed), before)
    answer = json.loads(stdout)["hookSpecificOutput"] if stdout else {}
    if answer.get("permissionDecision") == "deny":
        return Through("refused", str(answer.get("permissionDecisionReason", "")), before)
    decision = "routed" if "updatedInput" in answer else "allowed"
    used = {**tool_input, **answer.get("updatedInput", {})}
    after = host_apply(before, used)
    if after is None:
        return Through("host_error", "the host could not apply the edit it was given", before)
    path.write_text(after, encoding="utf-8")
    post = {**payload, "hook_event_name": "PostToolUse", "tool_input": used, "tool_response": {"filePath": str(path)}}
    try:
        told, _ = outcome("claude-code", json.dumps(post).encode(), context, None, engine)  # type: ignore[arg-type]
    except HookFailed as failed:
        return Through(decision, str(failed), path.read_text(encoding="utf-8"))
    reply = json.loads(told) if told else {}
    said = reply.get("hookSpecificOutput", {}).get("additionalContext", "") or reply.get("reason", "")
    return Through(decision, said, path.read_text(encoding="utf-8"))


def _judged(judge: Judge, root: Path, path: str, text: str, original: str) -> Verdict:
    target = root / path
    target.write_text(text, encoding="utf-8")
    try:
        return judge.judge(root)
    finally:
        target.write_text(original, encoding="utf-8")


def run_case(case: Case, engine: object, gateway_root: Path, judge_root: Path, judge: Judge, baseline: Verdict,
             through: Callable[[object, Path, Edit], Through] = through_gateway) -> Row | None:
    """One case both ways; None where the host itself cannot apply the edit as given."""
    started = time.perf_counter()
    original = (judge_root / case.edit.path).read_text(encoding="utf-8")
    plain = host_apply(original, case.edit)
    if plain is None:
        return None
    plain_verdict = _judged(judge, judge_root, case.edit.path, plain, original)
    try:
        went = through(engine, gateway_root, case.edit)
    finally:
        (gateway_root / case.edit.path).write_text(original, encoding="utf-8")
    if went.text == original:
        gateway_verdict = baseline
    elif went.text == plain:
        gateway_verdict = plain_verdict
    else:
        gateway_verdict = _judged(judge, judge_root, case.edit.path, went.text, original)
    return Row(case, plain_verdict.harms(baseline), went, gateway_verdict.harms(baseline), time.perf_counter() - started)


def _copy(checkout: Path, target: Path, judge: Judge) -> Path:
    shutil.copytree(checkout, target, ignore=shutil.ignore_patterns(".git", "node_modules", "target"))
    judge.prepare(target)
    return target


def _warm(gateway: object, path: str) -> None:
    """The language server started and its workspace loaded before the first case."""
    gateway.symbols(path)  # type: ignore[attr-defined]
    deadline = time.monotonic() + SERVER_START_SECONDS
    while time.monotonic() < deadline:
        running = gateway.sessions.running()  # type: ignore[attr-defined]
        if running and all(session.ready or session.broken for session in running):
            return
        time.sleep(1)


def run_repository(checkout: Path, base: Path, limit: int, budget_ms: int) -> tuple[list[Row], str, float]:
    from gateway.api import Gateway

    language = REPOSITORIES[checkout.name]
    judge = JUDGES[language]
    started = time.perf_counter()
    gateway_root = _copy(checkout, base / f"{checkout.name}-gateway", judge)
    judge_root = _copy(checkout, base / f"{checkout.name}-judge", judge)
    subprocess.run(["git", "init", "-q"], cwd=gateway_root, check=True)
    (gateway_root / ".gateway").mkdir(exist_ok=True)
    (gateway_root / ".gateway" / "config.toml").write_text(f"[verify]\nbudget_ms = {budget_ms}\n")
    baseline = judge.judge(judge_root)
    chosen = cases(checkout, LANGUAGES[language], limit)
    rows: list[Row] = []
    with Gateway(gateway_root) as gateway:
        if chosen:
            _warm(gateway, chosen[0].edit.path)
        for case in chosen:
            row = run_case(case, gateway, gateway_root, judge_root, judge, baseline)
            if row is not None:
                rows.append(row)
                print(f"{language}: {case.kind}{' (correct)' if case.correct else ''} {case.name}: harmed {len(row.harmed)}, "
                      f"gateway {row.through.decision}{', told' if row.through.told else ''}, after it {len(row.gateway_harmed)} "
                      f"({row.seconds:.0f} s)", file=sys.stderr)
    label = f"{judge.label}: `{baseline.command}` ({len(baseline.failures)} failures before any edit)"
    return rows, label, time.perf_counter() - started


def catalogue() -> dict[str, dict[str, object]]:
    return tomllib.loads(CATALOGUE.read_text())["kind"]


def table(rows: list[Row], kinds: dict[str, dict[str, object]]) -> list[str]:
    out = ["| mistake | language | cases | harmed without the gateway | caught | corrected | harmed through the gateway | "
           "correct edits (left out: harmed) | false refusals |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    groups = sorted({(r.case.kind, r.case.language) for r in rows}, key=lambda k: (list(kinds).index(k[0]), k[1]))
    for kind, language in [*groups, ("all", "all")]:
        chosen = [r for r in rows if kind in ("all", r.case.kind) and language in ("all", r.case.language)]
        mistakes, correct = [r for r in chosen if not r.case.correct], [r for r in chosen if r.counted_correct]
        left_out = sum(r.case.correct and not r.counted_correct for r in chosen)
        harmed = [r for r in mistakes if r.harmed]
        title = str(kinds[kind]["title"]) if kind in kinds else "**all**"
        out.append(f"| {title} | {language} | {len(mistakes)} | {len(harmed)} | {sum(r.caught for r in harmed)} | "
                   f"{sum(r.corrected for r in harmed)} | {sum(bool(r.gateway_harmed) for r in mistakes)} | {len(correct)}{f' ({left_out})' if left_out else ''} | "
                   f"{sum(r.false_refusal for r in correct)} |")
    return out


def render(rows: list[Row], labels: dict[str, str], seconds: dict[str, float], argv: list[str]) -> str:
    kinds = catalogue()
    return "\n".join([
        f"Machine: {machine()} (load average {os.getloadavg()[0]:.1f}). No model: each case is an `old_string`→`new_string` "
        "generated from the repository's own definitions (`benchmarks/mistakes_cases.py`, fixed seed; the kinds and the reports "
        "they come from: `benchmarks/mistakes.toml`), applied as Claude Code applies it (plain) and through Claude Code's "
        "PreToolUse/PostToolUse hooks in process (the gateway). Harm is judged by the repository's compiler and tests, never by "
        "the gateway. caught: of the harmed, refused or told of new errors at a `path:line`; corrected: of the harmed, the "
        "gateway's result written and harming nothing; false refusals: correct edits of the same kinds refused, warned of new "
        f"errors, or harmed by the gateway. Command: `python benchmarks/mistakes.py {' '.join(argv)}`.",
        "",
        *table(rows, kinds),
        "",
        "Judges and time per language: " + "; ".join(f"{lang}: {labels[lang]}, {seconds[lang]:.0f} s" for lang in labels) + ".",
    ])


def _option(args: list[str], name: str, default: str) -> tuple[str, list[str]]:
    if name not in args:
        return default, args
    at = args.index(name)
    return args[at + 1], args[:at] + args[at + 2:]


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--record"]
    languages, args = _option(args, "--languages", "")
    limit, args = _option(args, "--limit", "2")
    budget_ms, args = _option(args, "--budget-ms", "20000")
    checkouts = [Path(a).resolve() for a in args]
    unknown = [c.name for c in checkouts if c.name not in REPOSITORIES]
    if not checkouts or unknown:
        raise SystemExit(f"usage: mistakes.py [--record] [--languages a,b] [--limit N] [--budget-ms N] CHECKOUT... "
                         f"(known: {', '.join(REPOSITORIES)}; not: {', '.join(unknown)})")
    wanted = set(filter(None, languages.split(",")))
    checkouts = [c for c in checkouts if not wanted or REPOSITORIES[c.name] in wanted]
    if not checkouts:
        raise SystemExit(f"mistakes.py: no checkout of {', '.join(sorted(wanted))} given (checkouts are recognised by name: "
                         f"{', '.join(f'{name} ({lang})' for name, lang in REPOSITORIES.items())})")
    base = Path(tempfile.mkdtemp(prefix="gw-mistakes-"))
    rows: list[Row] = []
    labels: dict[str, str] = {}
    seconds: dict[str, float] = {}
    try:
        for checkout in checkouts:
            found, label, took = run_repository(checkout, base, int(limit), int(budget_ms))
            rows += found
            labels[REPOSITORIES[checkout.name]], seconds[REPOSITORIES[checkout.name]] = label, took
    finally:
        shutil.rmtree(base, ignore_errors=True)
    report = render(rows, labels, seconds, sys.argv[1:])
    print(report)
    result_path("mistakes.json").write_text(json.dumps([
        {**asdict(r.case), "harmed": r.harmed, "decision": r.through.decision, "said": r.through.said, "told": r.through.told,
         "gateway_harmed": r.gateway_harmed, "caught": r.caught, "corrected": r.corrected, "false_refusal": r.false_refusal,
         "seconds": round(r.seconds, 1)} for r in rows], indent=1) + "\n")
    record(report, "mistakes", "Agents' mistakes on real repositories, plain and through the gateway")


if __name__ == "__main__":
    main()
