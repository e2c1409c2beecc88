"""Round trips on every definition of every fixture: remove, insert back, identical bytes.

Both backends: the real servers where they install here (jdtls's: tests/test_symbols_jdtls.py), tree-sitter on every grammar.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.langs import default_registry
from tests.roundtrip import definition_count, round_trip
from tests.symbol_cases import SERVER_LANGUAGES

FIXTURES = Path(__file__).parent / "fixtures"
ALL_LANGUAGES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
SOURCE_SUFFIXES = {".py", ".ts", ".tsx", ".js", ".jsx", ".go", ".c", ".cpp", ".rs", ".java", ".kt", ".cs", ".rb", ".sh"}


def _round_trip_all(lang: str, root: Path, use_servers: bool) -> tuple[list[str], list[str]]:
    shutil.copytree(FIXTURES / lang, root, dirs_exist_ok=True)
    exact, broken = [], []
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES and p.stat().st_size)
    with Gateway(root, use_servers=use_servers) as gateway:
        for path in files:
            for index in range(definition_count(gateway, path)):
                outcome = round_trip(gateway, root, path, index)
                if outcome is not None:
                    (exact if outcome[1] else broken).append(f"{path}:{outcome[0]}")
    return exact, broken


def test_every_language_with_a_symbol_backend_has_a_fixture() -> None:
    backed = {name for name, lang in default_registry().languages.items() if lang.symbol_backend}
    assert backed <= set(ALL_LANGUAGES) and len(backed) == 13  # "jvm" holds Java and Kotlin together for jdtls


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_round_trip_tree_sitter(lang: str, tmp_path: Path) -> None:
    exact, broken = _round_trip_all(lang, tmp_path, use_servers=False)
    assert not broken, f"not restored exactly: {broken}"
    assert len(exact) >= 3


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("lang", sorted(SERVER_LANGUAGES))
def test_round_trip_server(lang: str, tmp_path: Path) -> None:
    exact, broken = _round_trip_all(lang, tmp_path, use_servers=True)
    assert not broken, f"not restored exactly: {broken}"
    assert len(exact) >= 3
