"""Every symbol operation against the real language servers, asserting the exact file text.

No test here is skipped: `make setup` installs these servers, and a missing one fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import psutil
import pytest

from gateway.api import Gateway
from gateway.errors import Ambiguous
from tests.symbol_cases import CASES, FORCE, SERVER_LANGUAGES, OpCase

FIXTURES = Path(__file__).parent / "fixtures"


class LanguageWorkspace:
    """A fixture project copied once per language; files are reset before each case."""

    def __init__(self, lang: str, root: Path) -> None:
        self.lang = lang
        self.root = root
        self.original = {p.relative_to(FIXTURES / lang).as_posix(): p.read_bytes() for p in (FIXTURES / lang).rglob("*") if p.is_file()}
        self.reset()
        self.gateway = Gateway(root)

    def reset(self) -> None:
        for name, data in self.original.items():
            target = self.root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)

    def text(self, name: str) -> str:
        return (self.root / name).read_text()


@pytest.fixture(scope="module")
def workspace_for(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], LanguageWorkspace]]:
    """One warm workspace (and server) per language for the module, its files reset on each use."""
    opened: dict[str, LanguageWorkspace] = {}

    def get(lang: str) -> LanguageWorkspace:
        if lang not in opened:
            opened[lang] = LanguageWorkspace(lang, tmp_path_factory.mktemp(lang))
        opened[lang].reset()
        return opened[lang]

    yield get
    for workspace in opened.values():
        workspace.gateway.close()


# A language's cases share one warm server: under `--dist loadgroup` (make test) they run in
# one worker, so that jdtls (5-8 s to start, more to index the JDK) starts once.
PARAMS = [
    pytest.param(lang, case, id=f"{lang}-{case.id}", marks=pytest.mark.xdist_group(f"server-{lang}"))
    for lang, cases in CASES.items()
    for case in cases
]


@pytest.mark.parametrize(("lang", "case"), PARAMS)
def test_operation_exact_text(workspace_for: Callable[[str], LanguageWorkspace], lang: str, case: OpCase) -> None:
    workspace = workspace_for(lang)
    expected = {name: data.decode() for name, data in workspace.original.items()}
    for name, old, new in case.changes:
        assert expected[name].count(old) == 1, f"expected change {old!r} must be unique in {name}"
        expected[name] = expected[name].replace(old, new)
    result = getattr(workspace.gateway, case.operation)(*case.args, **FORCE.get(case.operation, {}))
    assert result["ok"] and result["backend"] == SERVER_LANGUAGES[lang]
    assert result["operation"] == case.operation and result["name_path"] == case.args[0]
    for name in expected:
        assert workspace.text(name) == expected[name], f"{name} differs after {case.id}"
    touched = {name for name, _, _ in case.changes}
    assert all(f"+++ b/{name}" in result["diff"] for name in touched)


@pytest.mark.parametrize("lang", [pytest.param(lang, marks=pytest.mark.xdist_group(f"server-{lang}")) for lang in sorted(SERVER_LANGUAGES)])
def test_symbols_come_from_the_server(workspace_for: Callable[[str], LanguageWorkspace], lang: str) -> None:
    workspace = workspace_for(lang)
    sources = [name for name in workspace.original if Path(name).suffix not in (".json", ".txt", ".mod")]
    source = max(sources, key=lambda name: len(workspace.original[name]))
    listing = workspace.gateway.symbols(source)
    assert listing["backend"] == SERVER_LANGUAGES[lang]
    assert listing["symbols"], f"{lang}: the server reported no symbols for {source}"


JVM = pytest.mark.xdist_group("server-jvm")


@JVM
def test_kotlin_renames_through_the_checked_fallback_and_says_so(workspace_for: Callable[[str], LanguageWorkspace]) -> None:
    workspace = workspace_for("jvm")
    result = workspace.gateway.rename_symbol("Basket/size", "kt/Basket.kt", "amount")
    assert result["backend"] == "tree-sitter" and result["complete"] is True
    assert "read-only" in result["fallback"] and "read-only" in result["message"]
    basket = workspace.original["kt/Basket.kt"].decode()
    assert workspace.text("kt/Basket.kt") == basket.replace("fun size()", "fun amount()").replace("= size()", "= amount()")
    assert workspace.text("kt/Shop.kt") == workspace.original["kt/Shop.kt"].decode().replace("basket.size()", "basket.amount()")


@JVM
def test_kotlin_rename_refuses_a_member_access_it_cannot_tie(workspace_for: Callable[[str], LanguageWorkspace]) -> None:
    workspace = workspace_for("jvm")
    with pytest.raises(Ambiguous, match=r"read-only.*put at kt/Shop\.kt:8 may belong to another type; nothing renamed"):
        workspace.gateway.rename_symbol("Basket/put", "kt/Basket.kt", "add")
    assert all(workspace.text(name) == data.decode() for name, data in workspace.original.items())


@JVM
def test_servers_say_jdtls_works_and_renames_kotlin_through_tree_sitter(workspace_for: Callable[[str], LanguageWorkspace]) -> None:
    rows = {row["language"]: row for row in workspace_for("jvm").gateway.servers()["languages"]}
    assert (rows["java"]["status"], rows["kotlin"]["status"]) == ("working", "working")
    assert rows["java"]["rename_fallback"] is None and "read-only" in rows["kotlin"]["rename_fallback"]
    assert rows["java"]["version"].startswith("Eclipse JDT LS")


@JVM
def test_closing_ends_jdtls_and_the_java_it_started(workspace_for: Callable[[str], LanguageWorkspace]) -> None:
    """Last in the module: it closes the shared jdtls."""
    gateway = workspace_for("jvm").gateway
    gateway.symbols("Cart.java")
    reaper = psutil.Process(next(s.pid for s in gateway.sessions.running() if s.name == "jdtls"))
    family = [reaper, *reaper.children(recursive=True)]
    assert any(p.name() == "java" for p in family[1:]), [p.name() for p in family]
    gateway.close()
    _, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, f"left running: {[p.name() for p in alive]}"
