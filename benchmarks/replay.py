"""Real-edit replay: the gate judged on the hunks of real commits, against independent oracles.

    python benchmarks/replay.py [--repo DIR] [--commits N] [--languages a,b] [--cuts git,hunks,...] [--max-edits N] [--record]

Every hunk of the last N commits of a git repository (`git diff -U2`) becomes the edit an
agent would send, judged on the file before the commit; and the same changes are cut
without git or the gateway (`--cuts`, replay_cuts.py): difflib hunks with random context,
mid-line old_strings split mid-definition, the after-file as one edit, and formatted. The
matrix's oracle for the language (matrix_oracles.definition_oracle: Python's `ast`, Ruby's
Ripper, javac, go/parser, clang's AST, TypeScript's compiler API; for Rust a server process of
the oracle's own, labelled not independent) labels each edit: adds/removes/renames a definition, changes a header,
body-only, or no definition. Beside ours, the keyword gate as deployed today. Without
--repo it replays the default corpus (replay_corpus.toml: consecutive releases of packages
from PyPI, npm and Debian). Results go to results/local/ unless --record, which writes
results/replay.json, results/replay.png and a section of RESULTS.md (with --repo:
results/replay-repos.json and a section of its own).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.backend_label import claims_absent_server  # noqa: E402
from benchmarks.blind import macros_only, oracle_blind, outside_change  # noqa: E402
from benchmarks.hunks import ReplayEdit, checkout  # noqa: E402
from benchmarks.keyword_gate import keyword_gate_blocks  # noqa: E402
from benchmarks.meter import Meter, metered  # noqa: E402
from benchmarks.polyglot_drive import bytes_from  # noqa: E402
from benchmarks.matrix_oracles import definition_oracle  # noqa: E402
from benchmarks.oracle import Oracle, label, structural  # noqa: E402
from benchmarks.replay_corpus import build_all  # noqa: E402
from benchmarks.replay_cuts import CUTS, cut_edits  # noqa: E402
from benchmarks.replay_report import chart, render  # noqa: E402
from benchmarks.report import machine, percentile, record, result_path  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.errors import GatewayError  # noqa: E402
from gateway.gate.checker import classify_edit  # noqa: E402
from gateway.gate.effect import Effect, edit_effect  # noqa: E402
from gateway.symbols.operations import syntax_errors  # noqa: E402
from gateway.symbols.routing import RouteRefused, plan_route  # noqa: E402
from gateway.workspace import SourceFile  # noqa: E402
from gateway.langs import default_registry  # noqa: E402
from gateway.syntax import language_for  # noqa: E402

SEED = 20261122
SUFFIX = {"python": ".py", "typescript": ".ts", "tsx": ".tsx", "javascript": ".js", "go": ".go", "rust": ".rs",
          "java": ".java", "kotlin": ".kt", "c": ".c", "cpp": ".cpp", "csharp": ".cs", "ruby": ".rb"}


@dataclass
class Tally:
    """One gate's decisions against the oracle's on one language's edits."""

    blocked: int = 0
    missed: int = 0
    false_blocks: int = 0
    false_by_label: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, blocked: bool, truth: bool | None, oracle_label: str | None) -> str | None:
        self.blocked += blocked
        if truth is None:
            return None
        if truth and not blocked:
            self.missed += 1
            return "missed"
        if blocked and not truth:
            self.false_blocks += 1
            self.false_by_label[str(oracle_label)] += 1
            return "false_block"
        return None


@dataclass
class RouteTally:
    """Blocked edits performed as symbol operations: exact, different from the edit, or refused (by reason)."""

    blocked: int = 0
    clean: int = 0
    exact: int = 0
    exact_clean: int = 0
    different: int = 0
    refused: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    latency_ms: list[float] = field(default_factory=list)
    backends: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    mislabeled: int = 0  # routes whose backend names a language server that was not running

    def to_json(self) -> dict[str, Any]:
        lat = self.latency_ms
        return {
            "blocked": self.blocked, "clean": self.clean, "exact": self.exact, "exact_clean": self.exact_clean,
            "different": self.different, "refused": dict(self.refused), "backends": dict(self.backends), "mislabeled": self.mislabeled,
            "exact_rate_clean": self.exact_clean / self.clean if self.clean else None,
            "route_ms": {"p50": statistics.median(lat), "p99": percentile(lat, 0.99)} if lat else None,
        }


@dataclass
class LanguageRun:
    language: str
    oracle: str | None
    cut: str = "git"
    edits: int = 0
    multi_line: int = 0
    judged: int = 0
    judged_multi_line: int = 0
    structural: int = 0
    labels: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    unjudged: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    ours: Tally = field(default_factory=Tally)
    keyword: Tally = field(default_factory=Tally)
    latency_ms: list[float] = field(default_factory=list)
    disagreements: list[dict[str, Any]] = field(default_factory=list)
    routes: RouteTally = field(default_factory=RouteTally)
    syntax_refused: int = 0  # real edits refused as adding a syntax error: each is a misreading

    def to_json(self) -> dict[str, Any]:
        def rates(tally: Tally) -> dict[str, Any]:
            return {
                "blocked": tally.blocked,
                "block_rate": tally.blocked / self.edits if self.edits else None,
                "missed": tally.missed,
                "missed_rate": tally.missed / self.structural if self.structural else None,
                "false_blocks": tally.false_blocks,
                "false_block_rate": tally.false_blocks / self.judged_multi_line if self.judged_multi_line else None,
                "false_blocks_by_label": dict(tally.false_by_label),
            }

        lat = self.latency_ms
        return {
            "language": self.language, "cut": self.cut, "oracle": self.oracle, "edits": self.edits, "multi_line": self.multi_line,
            "judged": self.judged, "judged_multi_line": self.judged_multi_line, "structural": self.structural,
            "labels": dict(self.labels), "unjudged": dict(self.unjudged), "ours": rates(self.ours),
            "keyword": rates(self.keyword),
            "classify_ms": {"p50": statistics.median(lat), "p99": percentile(lat, 0.99)} if lat else None,
            "syntax_refused": self.syntax_refused,
            "disagreements": self.disagreements,
            "routing": self.routes.to_json(),
        }


def repo_name(repo: Path) -> str:
    """A repository's name, also for a bare clone kept as `<name>/repo` or `<name>.git`."""
    path = repo.resolve()
    return path.parent.name if path.name == "repo" else path.name.removesuffix(".git")


class OracleCache:
    """Oracle answers for the files before each edit, which many edits share."""

    def __init__(self, oracle: Oracle, path: Path) -> None:
        self.oracle, self.path, self.before = oracle, path, {}

    def definitions(self, text: str, cacheable: bool) -> Any:
        key = hash(text)
        if cacheable and key in self.before:
            return self.before[key]
        found = self.oracle.definitions(self.path, text)
        if cacheable:
            self.before[key] = found
        return found


def route(run: LanguageRun, gateway: Gateway, path: Path, edit: ReplayEdit, effect: Effect) -> None:
    """Route one blocked edit the way `edit --route` would, in memory, and compare R with A."""
    tally = run.routes
    tally.blocked += 1
    lang = language_for(gateway.registry, path, edit.before)
    assert lang is not None
    clean = len(syntax_errors(lang, effect.after)) <= len(syntax_errors(lang, edit.before))
    tally.clean += clean
    source = SourceFile(path, edit.path, edit.before, "utf-8", "\n", 0o644, "")
    started = time.perf_counter()
    try:
        planned = plan_route(gateway.symbol_service.file_symbols(source), effect)
    except RouteRefused as refused:
        tally.refused[refused.reason] += 1
        return
    except GatewayError as error:
        tally.refused[error.kind] += 1
        return
    except Exception as error:  # counted, not hidden: a crash here is a gateway bug
        tally.refused[f"internal error ({type(error).__name__})"] += 1
        return
    finally:
        tally.latency_ms.append((time.perf_counter() - started) * 1000)
    tally.backends[bytes_from(planned.operations)] += 1
    if planned.exact and planned.result == effect.after:
        tally.exact += 1
        tally.exact_clean += clean
    else:
        tally.different += 1
    tally.mislabeled += claims_absent_server(gateway, planned.backend)


def judge(run: LanguageRun, edit: ReplayEdit, cache: OracleCache | None, gateway: Gateway, path: Path) -> None:
    try:
        effect = edit_effect(edit.path, edit.before, edit.old, edit.new)
        started = time.perf_counter()
        verdict = classify_edit(edit.path, edit.old, edit.new, content=edit.before)
        run.latency_ms.append((time.perf_counter() - started) * 1000)
        ours = verdict.blocked
    except GatewayError as error:
        run.unjudged[f"gate error: {error.kind}"] += 1
        return
    run.edits += 1
    run.multi_line += effect.multi_line
    keyword = keyword_gate_blocks(edit.language, edit.old, edit.new)
    truth, oracle_label = None, None
    blind = (oracle_blind(edit.language, effect) or macros_only(edit.language, verdict, effect)) if cache is not None else None
    if blind is not None:  # counted apart, and listed below when the gate blocked it
        run.unjudged[blind] += 1
    elif cache is not None:
        before = cache.definitions(edit.before, cacheable=True)
        after = cache.definitions(effect.after, cacheable=False) if before is not None else None
        if before is None:
            run.unjudged["the file does not parse for the oracle"] += 1
        elif after is None:
            run.unjudged["the edited file does not parse for the oracle"] += 1
        elif (blind := outside_change(edit.language, before, after, effect)) is not None:
            run.unjudged[blind] += 1
        else:
            oracle_label = label(before, after)
            truth = structural(oracle_label, effect.multi_line)
            run.judged += 1
            run.judged_multi_line += effect.multi_line
            run.structural += truth
            run.labels[oracle_label] += 1
    outcome = run.ours.add(ours, truth, oracle_label)
    if verdict.reason == "syntax_error":
        run.syntax_refused += 1
        outcome = f"syntax refused: {verdict.syntax_error}"
    elif ours:
        route(run, gateway, path, edit, effect)
        outcome = outcome or (blind and f"blocked, {blind}")
    run.keyword.add(keyword, truth, oracle_label)
    if outcome and len(run.disagreements) < 200:
        run.disagreements.append({
            "outcome": outcome, "label": oracle_label, "multi_line": effect.multi_line, "repo": repo_name(edit.repo),
            "commit": edit.commit[:12], "path": edit.path, "line": edit.line, "old": edit.old[:400], "new": edit.new[:400],
        })


def _flags(root: Path, language: str) -> str:
    """clangd's compile flags for a checkout: the language, and every `include` and `src` folder
    (Catch2's tests include `<catch2/...>` from src/: without it clangd does not expand TEST_CASE)."""
    flags = ["-xc++", "-std=c++17"] if language == "cpp" else ["-xc", "-std=c11"]
    folders = [folder for name in ("include", "src") for folder in sorted(root.rglob(name)) if folder.is_dir()]
    flags += [f"-I{folder}" for folder in folders][:20]
    return "\n".join(flags + [f"-I{root}"]) + "\n"


def by_commit(edits: list[ReplayEdit]) -> dict[tuple[Path, str], list[ReplayEdit]]:
    groups: dict[tuple[Path, str], list[ReplayEdit]] = defaultdict(list)
    for edit in edits:
        groups[(edit.repo, edit.parent)].append(edit)
    return groups


def run_language(language: str, edits: list[ReplayEdit], meter: Meter, cut: str = "git") -> LanguageRun:
    """The edits of one language, grouped by the commit they come from. A language server
    sees each edit in a checkout of its commit's parent, so headers and imports resolve."""
    run: LanguageRun | None = None
    meter.stage = language
    with ExitStack() as stack:
        oracle = definition_oracle(stack, language)
        for (repo, parent), group in by_commit(edits).items():
            run = run or LanguageRun(language, oracle.name if oracle else None, cut)
            _run_commit(run, language, repo, parent, group, oracle, meter)
    return run or LanguageRun(language, None, cut)


def _run_commit(run: LanguageRun, language: str, repo: Path, parent: str, group: list[ReplayEdit], oracle: Oracle | None, meter: Meter) -> None:
    root = Path(tempfile.mkdtemp(prefix=f"replay-{language}-"))
    if language not in ("python", "ruby", "java", "typescript", "tsx", "javascript"):
        checkout(repo, parent, root)
        (root / "compile_flags.txt").write_text(_flags(root, language))
    with Gateway(root) as gateway:
        caches: dict[Path, OracleCache] = {}
        for edit in group:
            path = root / edit.path if (root / edit.path).is_file() else root / (("Replay" if language == "java" else "replay") + SUFFIX[language])
            cache = caches.setdefault(path, OracleCache(oracle, path)) if oracle else None
            judge(run, edit, cache, gateway, path)
            meter.edits += 1
    shutil.rmtree(root, ignore_errors=True)
    meter.done += 1


def collect(repos: list[Path], commits: int, languages: set[str] | None, max_edits: int, cut: str = "git") -> dict[str, list[ReplayEdit]]:
    registry = default_registry()
    by_language: dict[str, list[ReplayEdit]] = defaultdict(list)
    for repo in repos:
        for edit in cut_edits(cut, repo, commits, registry, languages):
            by_language[edit.language].append(edit)
    rng = random.Random(SEED)
    return {lang: (rng.sample(found, max_edits) if len(found) > max_edits else found) for lang, found in sorted(by_language.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", type=Path, action="append", help="a git repository to replay (repeatable); default: the corpus")
    parser.add_argument("--commits", type=int, default=50, help="how many of the newest commits (default 50; corpus: all)")
    parser.add_argument("--languages", help="comma-separated subset")
    parser.add_argument("--cuts", default=",".join(CUTS), help=f"how the changes are cut: a comma-separated subset of {','.join(CUTS)}")
    parser.add_argument("--max-edits", type=int, default=600, help="edits per language at most, sampled (default 600)")
    parser.add_argument("--record", action="store_true", help="write results/replay.json, replay.png and RESULTS.md")
    args = parser.parse_args()
    with metered("replay", Meter()) as meter:
        corpus, rows = replay(args, meter)
    publish(args, corpus, rows)


def replay(args: argparse.Namespace, meter: Meter) -> tuple[str, list[dict[str, Any]]]:
    """The corpus's description and one row per language; progress on stderr as it goes."""
    languages = set(args.languages.split(",")) if args.languages else None
    if args.repo:
        repos, corpus = args.repo, ", ".join(f"{repo_name(p)} (last {args.commits} commits)" for p in args.repo)
    else:
        meter.stage = "building the corpus"
        built = build_all(languages)
        repos, args.commits = [repo for _, repo in built], 1000
        corpus = "releases of " + ", ".join(f"{s.package} ({s.registry}, {len(s.versions)})" for s, _ in built)
    meter.stage = "collecting edits from git"
    cuts = [cut for cut in args.cuts.split(",") if cut]
    if set(cuts) - set(CUTS):
        raise SystemExit(f"replay: --cuts: unknown {', '.join(sorted(set(cuts) - set(CUTS)))} (known: {', '.join(CUTS)})")
    edits = {cut: collect(repos, args.commits, languages, args.max_edits, cut) for cut in cuts}
    meter.start(sum(len(by_commit(found)) for per_cut in edits.values() for found in per_cut.values()))
    rows = []
    for language in sorted({language for per_cut in edits.values() for language in per_cut}):
        for cut in cuts:
            found = edits[cut].get(language, [])
            print(f"replay: {language}, cut {cut}: {len(found)} edits", file=sys.stderr)
            rows.append(run_language(language, found, meter, cut).to_json())
    return corpus, rows


def publish(args: argparse.Namespace, corpus: str, rows: list[dict[str, Any]]) -> None:
    if args.record:  # where each disagreement is, without the third-party code itself
        for row in rows:
            row["disagreements"] = [{k: v for k, v in d.items() if k not in ("old", "new")} for d in row["disagreements"]]
    result = {"machine": machine(), "corpus": corpus, "seed": SEED, "languages": rows}
    stem = "replay-repos" if args.repo else "replay"
    result_path(f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    chart(rows, result_path(f"{stem}.png"))
    markdown = render(rows, f"{corpus}; at most {args.max_edits} edits per language and cut, sampled with seed {SEED}")
    print(markdown)
    if args.repo:
        record(markdown, stem, "Real-edit replay on repositories (`replay.py --repo ... --record`)")
    else:
        record(markdown + f"\n\n![Replay errors per language](results/{stem}.png)", stem, "Real-edit replay (`make bench`)")


if __name__ == "__main__":
    main()
