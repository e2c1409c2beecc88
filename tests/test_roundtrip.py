"""Round trips on every definition of every fixture: remove, insert back, identical bytes.

Here on tree-sitter, on every grammar. On the real servers, in the test of each server's operations
(tests/test_symbols_servers.py, jdtls's in tests/test_symbols_jdtls.py), on the server it has warm.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.langs import default_registry
from tests.roundtrip import round_trip_every_definition

FIXTURES = Path(__file__).parent / "fixtures"
ALL_LANGUAGES = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())


def _round_trip_all(lang: str, root: Path) -> tuple[list[str], list[str]]:
    shutil.copytree(FIXTURES / lang, root, dirs_exist_ok=True)
    files = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    with Gateway(root, use_servers=False) as gateway:
        return round_trip_every_definition(gateway, root, files)


def test_every_language_with_a_symbol_backend_has_a_fixture() -> None:
    backed = {name for name, lang in default_registry().languages.items() if lang.symbol_backend}
    assert backed <= set(ALL_LANGUAGES) and len(backed) == 13  # "jvm" holds Java and Kotlin together for jdtls


@pytest.mark.parametrize("lang", ALL_LANGUAGES)
def test_round_trip_tree_sitter(lang: str, tmp_path: Path) -> None:
    exact, broken = _round_trip_all(lang, tmp_path)
    assert not broken, f"not restored exactly: {broken}"
    assert len(exact) >= 3

