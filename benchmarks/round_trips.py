"""Remove a definition, insert the same code back beside its neighbour: how often the bytes come back.

    python benchmarks/round_trips.py [--languages a,b] [--record]

The language matrix's files (same sampler, same seed: real third-party source) and its
choice of definitions (four per file, spread over the file), each round-tripped through
the gateway's own remove_symbol and insert_code with the language server where one runs.
A refused removal (a C++ header whose macros hide its structure) is counted apart.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.corpus import sample  # noqa: E402
from benchmarks.matrix import LANGUAGES, PROFILES, SEED  # noqa: E402
from benchmarks.report import machine, record  # noqa: E402
from gateway.api import Gateway  # noqa: E402
from gateway.errors import GatewayError  # noqa: E402
from tests.roundtrip import definition_count, round_trip  # noqa: E402


def run_language(lang: str) -> dict[str, object] | None:
    profile = PROFILES["full"]
    files = sample(lang, profile["files"], SEED, None)
    if not files:
        return None
    root = Path(tempfile.mkdtemp(prefix=f"round-trips-{lang}-"))
    (root / "compile_flags.txt").write_text("-std=c++17\n" if lang == "cpp" else "-std=c11\n")
    for source in files:
        (root / source.name).write_text(source.text)
    checked = exact = refused = 0
    misses: list[str] = []
    with Gateway(root) as gateway:
        backend = gateway.symbols(files[0].name).to_json()["backend"]
        for source in files:
            count = definition_count(gateway, source.name)
            for index in sorted(set(range(0, count, max(1, count // profile["round_trips"]))))[: profile["round_trips"]]:
                try:
                    outcome = round_trip(gateway, root, source.name, index)
                except GatewayError:
                    refused += 1
                    (root / source.name).write_text(source.text)
                    continue
                if outcome is not None:
                    checked, exact = checked + 1, exact + outcome[1]
                    misses += [] if outcome[1] else [f"{source.name}: {outcome[0]}"]
    shutil.rmtree(root, ignore_errors=True)
    return {"language": lang, "backend": backend, "files": len(files), "checked": checked, "exact": exact, "refused": refused, "misses": misses}


def render(rows: list[dict[str, object]]) -> str:
    lines = [
        f"Machine: {machine()}. Seed {SEED}, the matrix's files and definitions (up to 4 per file).",
        "",
        "| language | backend | files | round trips | exact | removal refused |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['language']} | {r['backend']} | {r['files']} | {r['checked']} | {r['exact']} | {r['refused']} |")
    checked = sum(int(str(r["checked"])) for r in rows)
    exact = sum(int(str(r["exact"])) for r in rows)
    lines += ["", f"All languages: {exact} of {checked} round trips exact ({100 * exact / max(checked, 1):.1f}%)."]
    misses = [m for r in rows for m in r["misses"]]  # type: ignore[attr-defined]
    if misses:
        lines += ["", "Not exact:", *[f"- {m}" for m in misses]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--languages", help="comma-separated subset")
    parser.add_argument("--record", action="store_true", help="write RESULTS.md, not results/local/")
    args = parser.parse_args()
    rows = []
    for lang in args.languages.split(",") if args.languages else LANGUAGES:
        row = run_language(lang)
        if row is not None:
            print(f"round trips: {lang}: {row['exact']}/{row['checked']}", file=sys.stderr)
            rows.append(row)
    markdown = render(rows)
    print(markdown)
    record(markdown, "round-trips", "Round trips: remove, then insert the same code (`make bench`)")


if __name__ == "__main__":
    main()
