"""Every symbol operation against the real language servers, asserting the exact file text.

No test here is skipped: `make setup` installs these servers, and a missing one fails.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gateway.api import Gateway
from tests.roundtrip import round_trip_every_definition
from tests.symbol_cases import CASES, FORCE, SERVER_LANGUAGES, OpCase

pytestmark = pytest.mark.usefixtures("servers")

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


@pytest.mark.parametrize("lang", sorted(SERVER_LANGUAGES))
def test_the_symbols_and_every_operation_come_from_the_server(workspace_for: Callable[[str], LanguageWorkspace], lang: str) -> None:
    """The symbols of the language's largest source, then every case of the language, then the
    round trip of every definition of the fixture (tests/roundtrip.py), on one warm server
    (started once, not once per case and test worker), each case from the fixture's files; the
    failures are listed by case."""
    workspace = workspace_for(lang)
    sources = [name for name in workspace.original if Path(name).suffix not in (".json", ".txt", ".mod")]
    source = max(sources, key=lambda name: len(workspace.original[name]))
    listing = workspace.gateway.symbols(source).to_json()
    assert listing["backend"] == SERVER_LANGUAGES[lang]
    assert listing["symbols"], f"{lang}: the server reported no symbols for {source}"
    failed = []
    for case in CASES[lang]:
        try:
            check_case(workspace_for(lang), case, SERVER_LANGUAGES[lang])
        except AssertionError as failure:
            failed.append(f"{case.id}: {failure}")
    workspace.reset()
    exact, broken = round_trip_every_definition(workspace.gateway, workspace.root, list(workspace.original))
    if broken or len(exact) < 3:
        failed.append(f"round trip: not restored exactly: {broken}; restored exactly: {exact}")
    assert failed == [], "\n".join(failed)


def check_case(workspace: LanguageWorkspace, case: OpCase, backend: str) -> None:
    """The case's operation through `backend`, and the exact text of every file after it."""
    expected = {name: data.decode() for name, data in workspace.original.items()}
    for name, old, new in case.changes:
        assert expected[name].count(old) == 1, f"expected change {old!r} must be unique in {name}"
        expected[name] = expected[name].replace(old, new)
    result = getattr(workspace.gateway, case.operation)(*case.args, **FORCE.get(case.operation, {})).to_json()
    assert result["ok"] and result["backend"] == backend, result["message"]
    assert result["operation"] == case.operation and result["name_path"] == case.args[0]
    for name in expected:
        assert workspace.text(name) == expected[name], f"{name} differs after {case.id}"
    touched = {name for name, _, _ in case.changes}
    assert all(f"+++ b/{name}" in result["diff"] for name in touched)


def test_the_server_is_asked_once_per_text_and_again_after_a_change_or_a_restart(
        workspace_for: Callable[[str], LanguageWorkspace], monkeypatch: pytest.MonkeyPatch) -> None:
    """documentSymbol answers are kept per text and server process: the same text is not asked
    about again, a changed one is, and so is the same text by a server that replaced one that died."""
    workspace = workspace_for("python")
    gateway, asked = workspace.gateway, []
    first = gateway.symbols("pkg/shapes.py").to_json()
    session = gateway.sessions.running()[0]
    monkeypatch.setattr(session, "request", _counting(session.request, asked))
    assert gateway.symbols("pkg/shapes.py").to_json() == first and asked == []
    path = workspace.root / "pkg" / "shapes.py"
    path.write_text(path.read_text() + "\n\ndef later():\n    return 1\n")
    assert "later" in {s["name"] for s in gateway.symbols("pkg/shapes.py").to_json()["symbols"]} and asked == ["textDocument/documentSymbol"]
    session.broken = "killed for the test"  # what a crash or a timeout leaves; the manager replaces it
    assert gateway.symbols("pkg/shapes.py").to_json()["backend"] == "lsp:zuban"
    assert gateway.sessions.running()[0] is not session and asked == ["textDocument/documentSymbol"]


def _counting(request: Callable[..., object], asked: list[str]) -> Callable[..., object]:
    def counted(method: str, make: Callable[..., object]) -> object:
        asked.append(method)
        return request(method, make)

    return counted
