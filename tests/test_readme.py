"""The README is one screen; the reference pages in docs/ list what the code has, derived from the
code, so a config key, environment variable, error kind, operation, command or host added
without its documentation fails here; every relative link resolves."""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

from gateway import config, errors
from gateway.surfaces.cli import build_parser
from gateway.surfaces.hooks.registry import names as host_names
from gateway.surfaces.operations import OPERATIONS
from gateway.typed.config import load_config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
MOST_README_LINES = 150


def _page(name: str) -> str:
    return (DOCS / name).read_text()


def _rows(text: str) -> dict[str, list[str]]:
    """A page's table rows by their first cell: the cells of each, stripped (`\\|` is a `|`)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            rows.setdefault(cells[0], cells)
    return rows


def _fenced_blocks(text: str) -> list[str]:
    return re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)


# The README


def test_the_readme_is_one_screen_with_two_commands_to_start() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= MOST_README_LINES
    quick_start = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (block,) = _fenced_blocks(quick_start)
    commands = [line.split("#", 1)[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["make demo", "make test"]


def test_the_readme_shows_every_surface_once() -> None:
    text = README.read_text()
    sections = re.findall(r"^## (.+)$", text, flags=re.M)
    assert {"In an agent host", "CLI", "MCP", "JSON-RPC", "Daemon", "Python", "Documentation"} <= set(sections)
    for surface in ("gateway hook install", "gateway mcp", "gateway serve", "gateway daemon", "from gateway import Gateway"):
        assert surface in text or surface == "gateway mcp" and '"mcp"' in text, surface


# Links


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug, n = _slug(heading), 0
        while (slug if n == 0 else f"{slug}-{n}") in found:
            n += 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


def _links(path: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.findall(r"\]\(([^)\s]+)\)", text)


PAGES = [README, *sorted(DOCS.rglob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for link in _links(page):
        if re.match(r"[a-z]+:", link):
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.exists() or (anchor and path.suffix == ".md" and anchor not in _anchors(path)):
            broken.append(link)
    assert broken == [], f"{page.relative_to(ROOT)}: broken links {broken}"


def test_every_docs_page_is_on_the_map() -> None:
    index = _page("index.md")
    unlisted = [str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md") if p.name != "index.md" and f"({p.relative_to(DOCS)})" not in index]
    assert unlisted == []


# docs/reference/environment.md


def _sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in (ROOT / "gateway").rglob("*.py")}


# A variable is read where the code gets it from the environment, or names it in a tuple of
# variables it passes on or confines (gateway/lsp/confine.py); the hosts' and the gateway's own
# families are environment variables wherever they are spelled.
_READS = (
    r'(?:environ|callerenv|env)\.(?:get|pop)\(\s*"([A-Z][A-Z0-9_]*)"',
    r'environ\["([A-Z][A-Z0-9_]*)"\]',
    r'getenv\(\s*"([A-Z][A-Z0-9_]*)"',
    r'"((?:GATEWAY|CLAUDE|GEMINI|OPENCODE|CODEX|COPILOT|XDG|JAVA)_[A-Z0-9_]+)"',
)
_PASSED_ON = r"^(?:SEARCH_PATHS|ENVIRONMENTS|_VERSION_CHECK_ENV) = \(([^)]*)\)"


def test_every_environment_variable_the_code_reads_is_documented() -> None:
    sources = _sources()
    read = {name for text in sources.values() for pattern in _READS for name in re.findall(pattern, text)}
    passed_on = re.findall(_PASSED_ON, sources["gateway/lsp/confine.py"], flags=re.M)
    assert len(passed_on) == 3, "gateway/lsp/confine.py no longer names its variables as this test reads them"
    read |= {name for names in passed_on for name in re.findall(r'"([A-Z][A-Z0-9_]*)"', names)}
    assert {"GATEWAY_NO_DAEMON", "GATEWAY_TOOLS_DIR", "GATEWAY_LSP_TIMEOUT", "GATEWAY_LANGS_DIR", "CLAUDE_PROJECT_DIR",
            "PYTHONPATH", "VIRTUAL_ENV", "GOFLAGS", "TMPDIR"} <= read
    page = _page("reference/environment.md")
    missing = sorted(name for name in read if f"`{name}" not in page)
    assert missing == [], f"docs/reference/environment.md does not document {missing}"


# docs/reference/configuration.md

_LOADERS = {
    "gate": config.gate_config,
    "daemon": config.daemon_config,
    "mcp": config.mcp_config,
    "typed_edits": load_config,
    "verify": config.verify_config,
}


def _keys(root: Path, section: str) -> list[str]:
    """The keys a section accepts, as the code says them: the error for an unknown key lists them."""
    (root / ".gateway" / "config.toml").write_text(f"[{section}]\nno_such_key = 1\n")
    with pytest.raises(errors.UsageError) as refused:
        _LOADERS[section](root)
    listed = re.search(r"\(its keys: ([a-z_, ]+)\)", str(refused.value))
    assert listed, str(refused.value)
    return listed.group(1).split(", ")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    return str(value)


def test_every_config_key_is_documented_with_its_type_and_default(tmp_path: Path) -> None:
    assert set(_LOADERS) == set(config.SECTIONS), "a new section needs its loader here and its keys in the docs"
    (tmp_path / ".gateway").mkdir()
    rows = _rows(_page("reference/configuration.md"))
    missing, wrong = [], []
    for section in config.SECTIONS:
        (tmp_path / ".gateway" / "config.toml").write_text("")
        defaults = _LOADERS[section](tmp_path)
        for key in _keys(tmp_path, section):
            row = rows.get(f"`[{section}] {key}`")
            if row is None or len(row) != 4 or not all(row[1:]):
                missing.append(f"[{section}] {key}")
            elif section != "mcp" and row[2] != f"`{_toml(getattr(defaults, key))}`":  # [mcp]'s defaults follow the workspace
                wrong.append(f"[{section}] {key}: {row[2]} is not `{_toml(getattr(defaults, key))}`")
    assert missing == [], f"docs/reference/configuration.md lacks {missing}"
    assert wrong == [], f"docs/reference/configuration.md gives wrong defaults: {wrong}"
    assert {("mcp", "contracts"), ("gate", "max_file_bytes"), ("typed_edits", "protected")} <= {
        (s, k) for s in config.SECTIONS for k in _keys(tmp_path, s)}


# docs/reference/exit-codes.md


def _error_classes() -> list[type[errors.GatewayError]]:
    """Every GatewayError of the package: the modules that give a kind of their own are imported."""
    for name, text in _sources().items():
        if re.search(r'^\s+kind = "', text, flags=re.M):
            importlib.import_module(name.removesuffix(".py").replace("/", ".").removesuffix(".__init__"))
    found, todo = [], [errors.GatewayError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo += cls.__subclasses__()
    return [cls for cls in found if cls is not errors.RemoteError]  # its kind is the daemon's error's


def test_every_error_kind_has_its_exit_code_and_rpc_code() -> None:
    rows = _rows(_page("reference/exit-codes.md"))
    classes = _error_classes()
    assert {"blocked", "referenced", "patch", "route_refused", "tampered"} <= {cls.kind for cls in classes}
    wrong = []
    for cls in classes:
        row = rows.get(f"`{cls.kind}`")
        code = errors.RPC_CODES.get(cls.kind, errors.RPC_OTHER)
        if row is None or row[1:3] != [str(cls.exit_code), str(code)] or not row[3]:
            wrong.append(f"{cls.kind}: exit {cls.exit_code}, JSON-RPC {code}")
    assert wrong == [], f"docs/reference/exit-codes.md's error kinds lack or misstate {wrong}"


def test_every_exit_code_and_rpc_code_is_documented() -> None:
    page = _page("reference/exit-codes.md")
    rows = _rows(page)
    exits = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    assert {0, 1, 2, 3, 4, 5} <= exits
    assert [code for code in sorted(exits) if not rows.get(f"`{code}`", ["", ""])[1]] == []
    codes = {*errors.RPC_CODES.values(), errors.RPC_OTHER, -32700, -32600}
    assert [code for code in sorted(codes) if str(code) not in page] == []


# docs/reference/commands.md and docs/hosts.md


def test_every_operation_is_documented_on_every_surface() -> None:
    rows = _rows(_page("reference/commands.md"))
    wrong = []
    for name, operation in OPERATIONS.items():
        row = rows.get(f"`{name}`")
        command = " ".join(["gateway", str(operation.command), *([operation.word] if operation.word else [])])
        if (row is None or row[1] != f"`{command}`" or not row[3] == f"`{operation.method}`"
                or (operation.tool and not row[2].startswith(f"`{operation.tool}`"))):
            wrong.append(name)
    assert wrong == [], f"docs/reference/commands.md lacks or misstates the operations {wrong}"


def test_every_command_is_documented() -> None:
    page = _page("reference/commands.md")
    parser = build_parser()
    (commands,) = [action for action in parser._actions if action.choices and action.dest == "command"]  # noqa: SLF001
    assert isinstance(commands.choices, dict)
    missing = []
    for name, sub in commands.choices.items():
        actions = [a for a in sub._actions if a.choices and a.dest == "action"]  # noqa: SLF001
        words = [f"gateway {name} {action}" for a in actions for action in a.choices] or [f"gateway {name}"]
        missing += [w for w in words if f"`{w}" not in page]
    missing += [f"gateway hook {word} HOST" for word in ("install", "uninstall") if f"`gateway hook {word} HOST" not in page]
    assert missing == [], f"docs/reference/commands.md lacks {missing}"


def test_every_key_of_a_contract_is_documented_with_its_type() -> None:
    from gateway.contracts.model import KEYS

    rows = _rows(_page("reference/commands.md"))
    header = {"contract": "[contract]"}
    keys = [f"`{header.get(table, f'[[{table}]]')} {key}`" for table, names in KEYS.items() for key in sorted(names)]
    assert "`[[steps]] force`" in keys
    assert [key for key in keys if len(rows.get(key, [])) != 3 or not all(rows[key])] == [], "docs/reference/commands.md's contract keys"
    assert "boolean" in rows["`[[steps]] force`"][1]


def test_every_host_has_its_section() -> None:
    page = _page("hosts.md")
    sections = re.split(r"^## ", page, flags=re.M)
    missing = [host for host in host_names() if not any(f"gateway hook install {host} " in s and "Enforcement:" in s for s in sections)]
    assert missing == [], f"docs/hosts.md has no section installing {missing}"
    assert [host for host in host_names() if f"`{host}`" not in _page("reference/commands.md")] == []


# docs/reference/json.md


def test_every_field_of_the_results_is_documented(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway import Gateway

    monkeypatch.setenv("GATEWAY_NO_SERVERS", "1")
    (tmp_path / ".gateway").mkdir()
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    with Gateway(str(tmp_path)) as gateway:
        verdict = gateway.classify("app.py", "def f():\n    return 1", "def f(x):\n    return x").to_json()
        routed = gateway.edit("app.py", "    return 1\n", "    return 1\n\n\ndef g():\n    return 2\n", route=True).to_json()
        performed = gateway.remove_symbol("g", "app.py").to_json()
        with pytest.raises(errors.Blocked) as blocked:
            gateway.edit("app.py", "def f():", "def h():")
    from gateway.results import refusal

    fields = {*verdict, *routed, *performed, *refusal(blocked.value), *routed["operations"][0]}
    assert {"decision", "reason", "changed_lines", "ok", "applied", "replacements", "operations", "exact", "error", "tool"} <= fields
    page = _page("reference/json.md")
    missing = sorted(field for field in fields if f"`{field}`" not in page)
    assert missing == [], f"docs/reference/json.md does not document {missing}"
    reasons = _rows(page)["`reason`"][1]
    assert [r for r in (verdict["reason"], routed["reason"], refusal(blocked.value)["reason"]) if f"`{r}`" not in reasons] == []


def test_every_reason_of_the_gate_is_documented() -> None:
    said = r'(?:Classification\(\s*"(?:allow|block)",\s*|\ballow\([^,()]+,[^,()]+,\s*)"([a-z_]+)"'
    reasons = {reason for text in _sources().values() for reason in re.findall(said, text)}
    assert {"definition", "syntax_error", "macro", "single_line", "body_only", "not_source"} <= reasons
    documented = _rows(_page("reference/json.md"))["`reason`"][1]
    assert sorted(r for r in reasons if f"`{r}`" not in documented) == []
