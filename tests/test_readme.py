"""The README documents every environment variable and config key the code reads."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
INTERNAL = {"GATEWAY_REAPER_PARENT": "set by the gateway for its own reaper process"}


def _sources() -> list[str]:
    return [p.read_text() for p in (ROOT / "gateway").rglob("*.py")]


def test_every_environment_variable_the_code_reads_is_documented() -> None:
    read = {name for text in _sources() for name in re.findall(r'(?:environ|callerenv)\.(?:get|pop)\(\s*"([A-Z_]+)"', text)}
    read |= {f"GATEWAY_{kind.upper()}_DIR" for kind in ("langs", "queries")}  # langs.data_dir(kind)
    assert {"GATEWAY_NO_DAEMON", "GATEWAY_TOOLS_DIR", "GATEWAY_LSP_TIMEOUT"} <= read
    missing = sorted(name for name in read - set(INTERNAL) - {"PATH", "TMPDIR"} if f"`{name}" not in README)
    assert missing == [], f"README does not document {missing}"


def test_every_config_key_is_documented() -> None:
    keys = set()
    for path in (ROOT / "gateway" / "config.py", ROOT / "gateway" / "typed" / "config.py"):
        text = path.read_text()
        for function in re.split(r"\ndef ", text):
            known = re.findall(r'_known_table\(root, "([a-z_]+)", \{([^}]*)\}\)', function)
            tables = [table for table, _ in known] or re.findall(r'config_table\(root, "([a-z_]+)"\)', function)
            if tables:
                allowed = " ".join(names for _, names in known)
                keys |= {(tables[0], key) for key in re.findall(r'data\.get\("([a-z_]+)"', function) + re.findall(r'"([a-z_]+)"', allowed)}
    assert {("mcp", "contracts"), ("gate", "max_file_bytes"), ("typed_edits", "protected")} <= keys
    missing = sorted(f"[{table}] {key}" for table, key in keys if f"`[{table}] {key}`" not in README)
    assert missing == [], f"README's configuration table lacks {missing}"
