"""Remove a definition, insert the same code back beside its neighbour: how often the bytes come back.

    python benchmarks/round_trips.py [--languages a,b] [--record]

The language matrix's files (same sampler, same seed: real third-party source) and its
choice of definitions (four per file, spread over the file), each round-tripped through
the gateway's own remove_symbol and insert_code with the language server where one runs
(tests/roundtrip.py: exact also means the removal took the whole definition, and the code
inserted afresh lands beside its anchor). A refused removal (a C++ header whose macros hide its structure) is counted apart.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
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
    trips = Trips()
    with Gateway(root) as gateway:
        backend = gateway.symbols(files[0].name).to_json()["backend"]
        for source in files:
            round_trip_file(gateway, root, source.name, profile["round_trips"], trips)
    shutil.rmtree(root, ignore_errors=True)
    return {"language": lang, "backend": backend, "files": len(files), "checked": trips.checked, "exact": trips.exact,
            "refused": trips.refused, "misses": trips.misses}


@dataclass
class Trips:
    """Round trips checked, exact, refused (the removal), and the ones not exact, saying why."""

    checked: int = 0
    exact: int = 0
    refused: int = 0
    misses: list[str] = field(default_factory=list)


def round_trip_file(gateway: Gateway, root: Path, name: str, per_file: int, trips: Trips) -> None:
    """Up to `per_file` definitions of the file, spread over it, each round-tripped; the file's
    bytes are put back after each."""
    text = (root / name).read_bytes()
    count = definition_count(gateway, name)
    for index in sorted(set(range(0, count, max(1, count // per_file))))[:per_file]:
        try:
            outcome = round_trip(gateway, root, name, index)
        except GatewayError:
            trips.refused += 1
            (root / name).write_bytes(text)
            continue
        if outcome is not None:
            trips.checked, trips.exact = trips.checked + 1, trips.exact + outcome[1]
            trips.misses += [] if outcome[1] else [f"{name}: {outcome[0]}"]


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
