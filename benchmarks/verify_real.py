"""What the language server's delta catches on real repositories, and what it costs (issue 35).

`python benchmarks/verify_real.py [--record] CHECKOUT...`: each checkout (requests, cobra, ky,
gson: recognised by its directory name) is copied to a temporary directory (the checkout is
never touched) and a fixed list of realistic changes is run through `gateway.api.Gateway` with
`dry_run=True`. Per change: the delta's status, new errors, unchecked files, callers and time,
beside an independent oracle run on another copy with the change really applied, before and
after (its new errors are those it gives after and not before, as (path, message) counts):
Python: ty's CLI (not zuban) and `import requests`; Go: go/types through
`benchmarks/gotypecheck` (cobra's dependencies are not in the offline module cache, so
`go build`/`go vet` cannot run; go/types checks the root package and goes on past the missing
imports); TypeScript: `tsc --noEmit -p .`; Java: `javac` on the module's main sources.
A change agrees when the delta and the oracle name the same `path:line`s within what the oracle
checks; the run exits 1 if any change disagrees.
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
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import machine, record, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.errors import GatewayError  # noqa: E402

BIN = ROOT / ".tools" / "node" / "node_modules" / ".bin"
GO_ENV = {"GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOPROXY": "off"}


@dataclass(frozen=True)
class Case:
    """One change: `old` → `new` in `path` (what the oracle applies), run through the gateway as a
    routed text edit, or as `operation` (remove_symbol with force) on `name_path`."""

    name: str
    path: str
    old: str
    new: str
    operation: str = "edit"
    name_path: str = ""
    body: bool = False  # `[verify] body = true` in the copy's config
    budget_ms: int | None = None


@dataclass
class Row:
    repo: str
    case: Case
    said: str = ""
    delta: list[str] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)
    callers: list[str] = field(default_factory=list)
    oracle: list[str] = field(default_factory=list)
    outside: list[str] = field(default_factory=list)  # delta errors in files the oracle does not check
    agree: str = ""
    ms: float = 0.0


GET_AUTH = '''def get_auth_from_url(url: str) -> tuple[str, str]:
    """Given a url with authentication components, extract them into a tuple of
    username,password.

    :rtype: (str,str)
    """
    parsed = urlparse(url)

    try:
        # except handles parsed.username/password being None
        auth = (unquote(parsed.username), unquote(parsed.password))  # type: ignore[arg-type]
    except (AttributeError, TypeError):
        auth = ("", "")

    return auth


'''
HAS_PARENT = "func (c *Command) HasParent() bool {\n\treturn c.parent != nil\n}\n\n"
CASES: dict[str, list[Case]] = {
    "requests": [
        Case("delete get_auth_from_url (text edit)", "src/requests/utils.py", GET_AUTH, ""),
        Case("remove-symbol get_auth_from_url --force", "src/requests/utils.py", GET_AUTH, "", "remove_symbol", "get_auth_from_url"),
        Case("rename DEFAULT_REDIRECT_LIMIT (one line)", "src/requests/models.py", "DEFAULT_REDIRECT_LIMIT: int = 30",
             "REDIRECT_LIMIT: int = 30"),
        Case("get_auth_from_url: required parameter added", "src/requests/utils.py",
             "def get_auth_from_url(url: str) -> tuple[str, str]:", "def get_auth_from_url(url: str, strict: bool) -> tuple[str, str]:"),
        Case("body edit in rewind_body", "src/requests/utils.py", '    body_seek = getattr(prepared_request.body, "seek", None)\n',
             '    body = prepared_request.body\n    body_seek = getattr(body, "seek", None)\n', body=True),
    ],
    "cobra": [
        Case("remove-symbol HasParent --force", "command.go", HAS_PARENT, "", "remove_symbol", "Command/HasParent"),
        Case("CommandPath: parameter added", "command.go", "func (c *Command) CommandPath() string {",
             "func (c *Command) CommandPath(separator string) string {"),
        Case("body edit in HasParent", "command.go", "\treturn c.parent != nil\n}", "\tparent := c.parent\n\treturn parent != nil\n}",
             body=True),
        Case("Name: parameter added, 24 files, budget 300 ms", "command.go", "func (c *Command) Name() string {",
             "func (c *Command) Name(full bool) string {", budget_ms=300),
    ],
    "ky": [
        Case("rename maxSafeTimeout (one line)", "source/core/constants.ts", "export const maxSafeTimeout = 2_147_483_647;",
             "export const maxSafeTimeoutMs = 2_147_483_647;"),
        Case("hasSearchParameters: required parameter added", "source/utils/options.ts",
             "export const hasSearchParameters = (search: SearchParamsOption): boolean => {",
             "export const hasSearchParameters = (search: SearchParamsOption, strict: boolean): boolean => {"),
        Case("body edit in hasSearchParameters", "source/utils/options.ts", "\tif (search === undefined) {\n\t\treturn false;",
             "\tconst given = search;\n\tif (given === undefined) {\n\t\treturn false;", body=True),
    ],
    "cJSON": [
        Case("cJSON_GetObjectItemCaseSensitive: parameter added (cJSON.h)", "cJSON.h",
             "CJSON_PUBLIC(cJSON *) cJSON_GetObjectItemCaseSensitive(const cJSON * const object, const char * const string);",
             "CJSON_PUBLIC(cJSON *) cJSON_GetObjectItemCaseSensitive(const cJSON * const object, const char * const string, int depth);"),
        Case("body edit in cJSON_GetObjectItemCaseSensitive", "cJSON.c", "{\n    return get_object_item(object, string, true);\n}",
             "{\n    cJSON *found = get_object_item(object, string, true);\n    return found;\n}", body=True),
    ],
    "gson": [
        Case("Primitives.isPrimitive: parameter added", "gson/src/main/java/com/google/gson/internal/Primitives.java",
             "public static boolean isPrimitive(Type type) {", "public static boolean isPrimitive(Type type, boolean strict) {"),
        Case("body edit in Primitives.isPrimitive", "gson/src/main/java/com/google/gson/internal/Primitives.java",
             "    return type instanceof Class<?> && ((Class<?>) type).isPrimitive();",
             "    Type checked = type;\n    return checked instanceof Class<?> && ((Class<?>) checked).isPrimitive();", body=True),
    ],
}
# ky's tsconfig extends @sindresorhus/tsconfig, which is not installed (no node_modules): both copies
# get its options written out (v8: strict, nodenext, es2023), so the server and tsc read the same project.
PREPARED = {"cJSON": {"compile_flags.txt": "-std=c89\n-I.\n"}, "ky": {"tsconfig.json": json.dumps({"compilerOptions": {
    "strict": True, "exactOptionalPropertyTypes": True, "target": "es2022", "lib": ["es2023", "dom", "dom.iterable"],
    "module": "nodenext", "moduleResolution": "nodenext", "skipLibCheck": True, "noEmit": True}, "include": ["source"]}, indent=1)}}
LANGUAGE = {"requests": "python", "cobra": "go", "ky": "typescript", "gson": "java", "cJSON": "c"}
ERROR_LINE = re.compile(r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):(?:\d+:)? (?:error[:\[]?\S*\]? ?)?(?P<message>.*)$")
TSC_LINE = re.compile(r"^(?P<path>[^(\s]+)\((?P<line>\d+),\d+\): error (?P<message>.*)$")


def _run(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False, timeout=600,
                          env={**os.environ, **(env or {})})
    return done.stdout + done.stderr


def _errors(text: str, root: Path, pattern: re.Pattern[str] = ERROR_LINE) -> list[tuple[str, int, str]]:
    found = []
    for line in text.splitlines():
        match = pattern.match(line.strip())
        if match:
            path = os.path.relpath(Path(root, match["path"]).resolve(), root.resolve()) if match["path"] else ""
            found.append((path, int(match["line"]), match["message"].strip()))
    return found


def _python_oracle(root: Path) -> tuple[list[tuple[str, int, str]], str]:
    ty = _errors(_run([str(ROOT / ".venv" / "bin" / "ty"), "check", "--output-format", "concise", "src", "tests"], root), root)
    imported = _run([sys.executable, "-c", "import requests"], root, {"PYTHONPATH": str(root / "src")})
    last = imported.strip().splitlines()[-1:] if imported.strip() else []
    return ty + [("import requests", 0, line) for line in last], "ty check src tests (ty 0.0.104 CLI) + `python -c 'import requests'`"


def _go_oracle(root: Path, checker: Path) -> tuple[list[tuple[str, int, str]], str]:
    return _errors(_run([str(checker), str(root)], root, GO_ENV), root), "go/types (benchmarks/gotypecheck) on the root package"


def _ts_oracle(root: Path) -> tuple[list[tuple[str, int, str]], str]:
    return _errors(_run([str(BIN / "tsc"), "--noEmit", "-p", "."], root), root, TSC_LINE), "tsc --noEmit -p ."


def _java_oracle(root: Path) -> tuple[list[tuple[str, int, str]], str]:
    sources = sorted(str(p) for p in (root / "gson" / "src" / "main" / "java").rglob("*.java") if p.name != "module-info.java")
    out = tempfile.mkdtemp(prefix="javac-")
    try:
        text = _run(["javac", "-proc:none", "-Xmaxerrs", "10000", "-d", out, *sources], root)
    finally:
        shutil.rmtree(out, ignore_errors=True)
    return _errors(text, root), "javac 17 on gson/src/main/java"


def _c_oracle(root: Path) -> tuple[list[tuple[str, int, str]], str]:
    text = _run(["gcc", "-fsyntax-only", "-std=c89", "-I.", "cJSON.c", "cJSON_Utils.c", "test.c"], root)
    return _errors("\n".join(line for line in text.splitlines() if " error: " in line), root), \
        "gcc -fsyntax-only -std=c89 on cJSON.c, cJSON_Utils.c, test.c (errors only)"


def _oracle(repo: str, root: Path, checker: Path) -> tuple[list[tuple[str, int, str]], str]:
    if repo == "requests":
        return _python_oracle(root)
    if repo == "cobra":
        return _go_oracle(root, checker)
    if repo == "ky":
        return _ts_oracle(root)
    if repo == "cJSON":
        return _c_oracle(root)
    return _java_oracle(root)


def _in_scope(repo: str, path: str) -> bool:
    """The files the oracle checks."""
    if repo == "cobra":
        return "/" not in path
    if repo == "gson":
        return path.startswith("gson/src/main/java/")
    if repo == "ky":
        return path.startswith("source/")
    if repo == "cJSON":
        return path in ("cJSON.c", "cJSON_Utils.c", "test.c", "cJSON.h")
    return path.startswith(("src/", "tests/"))


def _configure(root: Path, case: Case, budget_ms: int | None) -> None:
    lines = ["[verify]", f"body = {'true' if case.body else 'false'}"]
    if case.budget_ms or budget_ms:
        lines.append(f"budget_ms = {case.budget_ms or budget_ms}")
    (root / ".gateway").mkdir(exist_ok=True)
    (root / ".gateway" / "config.toml").write_text("\n".join(lines) + "\n")


def _delta(gateway: Gateway, case: Case, row: Row) -> None:
    started = time.perf_counter()
    try:
        if case.operation == "remove_symbol":
            result = gateway.remove_symbol(case.name_path, case.path, force=True, dry_run=True)
        else:
            result = gateway.edit(case.path, case.old, case.new, route=True, dry_run=True)
    except GatewayError as error:
        row.ms = (time.perf_counter() - started) * 1000
        row.said = f"refused ({error.kind}): {str(error).splitlines()[0][:160]}"
        return
    row.ms = (time.perf_counter() - started) * 1000
    check = result.verification
    if check is None:
        row.said = "no verification"
        return
    row.said = check.status + (f" ({check.why})" if check.why else "") + (f" by {check.server}" if check.server else "")
    row.delta = [f"{e.path}:{e.line}: {e.message}" for e in check.new_errors]
    row.unchecked, row.callers = list(check.unchecked), list(check.callers)


def _compare(repo: str, case: Case, row: Row, before: list[tuple[str, int, str]], after_root: Path, checker: Path) -> None:
    target = after_root / case.path
    text = target.read_text(encoding="utf-8")
    if text.count(case.old) != 1:
        raise SystemExit(f"{repo}: {case.name}: the text to change is not found once in {case.path}")
    target.write_text(text.replace(case.old, case.new), encoding="utf-8")
    after, _ = _oracle(repo, after_root, checker)
    target.write_text(text, encoding="utf-8")
    new = Counter((p, m) for p, _, m in after) - Counter((p, m) for p, _, m in before)
    row.oracle = [f"{p}:{line}: {m}" for p, line, m in after if (p, m) in new]
    delta_places = {":".join(place.split(":")[:2]) for place in row.delta}
    row.outside = sorted(p for p in delta_places if not _in_scope(repo, p.split(":")[0]))
    delta_places -= set(row.outside)
    oracle_places = {":".join(p.split(":")[:2]) for p in row.oracle if not p.startswith("import requests")}
    unclaimed = {p for p in oracle_places if p.split(":")[0] in row.unchecked}  # in files the delta says it did not check
    oracle_places -= unclaimed
    imports_fail = any(p.startswith("import requests") for p in row.oracle)
    if row.said.startswith("refused"):
        row.agree = "yes (refused; the oracle breaks)" if row.oracle else "no: refused a change that breaks nothing"
    elif not row.said.startswith("checked"):
        row.agree = "unknown"
    elif delta_places == oracle_places:
        row.agree = "yes" + (" (import fails too)" if imports_fail else "") + \
            (f" ({len(unclaimed)} oracle errors in the {len(row.unchecked)} files named unchecked)" if unclaimed else "")
    elif not oracle_places and imports_fail and delta_places:
        row.agree = "yes (the oracle: import fails)"
    else:
        missed, extra = sorted(oracle_places - delta_places), sorted(delta_places - oracle_places)
        row.agree = "no" + (f": missed {', '.join(missed)}" if missed else "") + (f"; extra {', '.join(extra)}" if extra else "")


def _go_checker(base: Path) -> Path:
    checker = base / "gotypecheck"
    subprocess.run(["go", "build", "-o", str(checker), "main.go"], cwd=ROOT / "benchmarks" / "gotypecheck", check=True,
                   env={**os.environ, **GO_ENV, "GO111MODULE": "off"})
    return checker


def run_repo(checkout: Path, base: Path, checker: Path, budget_ms: int | None) -> tuple[list[Row], str]:
    repo = checkout.name
    ignore = shutil.ignore_patterns(".git", "node_modules", "target")
    delta_root, oracle_root = base / f"{repo}-delta", base / f"{repo}-oracle"
    shutil.copytree(checkout, delta_root, ignore=ignore)
    shutil.copytree(checkout, oracle_root, ignore=ignore)
    subprocess.run(["git", "init", "-q"], cwd=delta_root, check=True)
    for root in (delta_root, oracle_root):
        for name, text in PREPARED.get(repo, {}).items():
            (root / name).write_text(text)
    before, label = _oracle(repo, oracle_root, checker)
    rows = []
    for case in CASES[repo]:
        _configure(delta_root, case, budget_ms)
        row = Row(repo, case)
        with Gateway(delta_root) as gateway:
            if not rows:  # the first answer includes the server's start: once, untimed
                _delta(gateway, case, Row(repo, case))
            _delta(gateway, case, row)
        _compare(repo, case, row, before, oracle_root, checker)
        rows.append(row)
        print(f"{repo}: {case.name}: {row.said} ({row.ms:.0f} ms), agree: {row.agree}", file=sys.stderr)
    return rows, label


def _cell(items: list[str], limit: int = 4) -> str:
    shown = "<br>".join(item.replace("|", "\\|")[:140] for item in items[:limit])
    return (shown + (f"<br>… {len(items) - limit} more" if len(items) > limit else "")) or "none"


def render(rows: list[Row], oracles: dict[str, str]) -> str:
    out = [f"Machine: {machine()} (cores shared with other work). Each change through "
           "`Gateway.edit(..., route=True, dry_run=True)` (or `remove_symbol(force=True, dry_run=True)`) on a copy of the "
           "checkout; ms is the warm call (the server's start excluded). The oracle ran on another copy with the change "
           "really applied: its new errors are those after and not before. Command: "
           f"`python benchmarks/verify_real.py {' '.join(sys.argv[1:])}`" + (f" (load average {os.getloadavg()[0]:.1f} at the end)." )]
    for repo in dict.fromkeys(r.repo for r in rows):
        out += ["", f"### {LANGUAGE[repo]}: {repo} (oracle: {oracles[repo]})", "",
                "| case | what the delta said | delta's new errors | callers / unchecked | oracle's new errors | agree? | ms |",
                "|---|---|---|---|---|---|---:|"]
        for r in (r for r in rows if r.repo == repo):
            around = f"callers: {len(r.callers)}; unchecked: {len(r.unchecked)}" + (f" ({_cell(r.unchecked, 3)})" if r.unchecked else "")
            more = f" … {len(r.outside) - 6} more" if len(r.outside) > 6 else ""
            outside = f"<br>(outside the oracle: {', '.join(r.outside[:6])}{more})" if r.outside else ""
            said = r.said if len(r.said) < 200 else r.said[:200] + "…"
            out.append(f"| {r.case.name} | {said.replace('|', '/')} | {_cell(r.delta)}{outside} | {around} | {_cell(r.oracle)} "
                       f"| {r.agree} | {r.ms:.0f} |")
    return "\n".join(out)


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--record"]
    budget_ms = None
    if "--budget-ms" in args:
        at = args.index("--budget-ms")
        budget_ms, args = int(args[at + 1]), args[:at] + args[at + 2:]
    checkouts = [Path(a).resolve() for a in args]
    unknown = [c.name for c in checkouts if c.name not in CASES]
    if not checkouts or unknown:
        raise SystemExit(f"usage: verify_real.py [--record] [--budget-ms N] CHECKOUT... (known: {', '.join(CASES)}; not: {', '.join(unknown)})")
    base = Path(tempfile.mkdtemp(prefix="verify-real-"))
    try:
        checker = _go_checker(base)
        rows: list[Row] = []
        oracles = {}
        for checkout in checkouts:
            repo_rows, oracles[checkout.name] = run_repo(checkout, base, checker, budget_ms)
            rows += repo_rows
    finally:
        shutil.rmtree(base, ignore_errors=True)
    report = render(rows, oracles)
    print(report)
    result_path("verify_real.json").write_text(json.dumps(
        [{"repo": r.repo, "case": r.case.name, "said": r.said, "new_errors": r.delta, "unchecked": r.unchecked, "callers": r.callers,
          "oracle": r.oracle, "agree": r.agree, "ms": round(r.ms, 1)} for r in rows], indent=1) + "\n")
    record(report, "verify-real", "The delta on real repositories")
    sys.exit(1 if any(r.agree.startswith("no") for r in rows) else 0)


if __name__ == "__main__":
    main()
