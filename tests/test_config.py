"""`.gateway/config.toml`: a key or a section the gateway does not know is an error naming it
(with the file and the known names), never silently ignored."""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway.config import daemon_config, gate_config, mcp_config
from gateway.errors import UsageError
from gateway.typed.config import load_config


def _workspace(tmp_path: Path, text: str) -> Path:
    (tmp_path / ".gateway").mkdir()
    (tmp_path / ".gateway" / "config.toml").write_text(text)
    return tmp_path


def test_a_mistyped_typed_edits_key_is_an_error_naming_it(tmp_path: Path) -> None:
    root = _workspace(tmp_path, "[typed_edits]\nenforse = true\n")
    with pytest.raises(UsageError) as raised:
        load_config(root)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(".gateway/config.toml: [typed_edits] has no key 'enforse'"), message
    assert "enforce" in message and "grant_ttl_seconds" in message and "protected" in message, message


@pytest.mark.parametrize("read", [gate_config, daemon_config, mcp_config, load_config])
def test_an_unknown_section_is_an_error_whatever_is_read(tmp_path: Path, read: object) -> None:
    root = _workspace(tmp_path, "[gate]\non_structural = \"deny\"\n\n[typed_edit]\nenforce = true\n")
    with pytest.raises(UsageError) as raised:
        read(root)  # type: ignore[operator]
    message = str(raised.value)
    assert message.startswith(".gateway/config.toml: there is no section [typed_edit]"), message
    assert "[typed_edits]" in message and "[gate]" in message, message


def test_known_keys_still_read(tmp_path: Path) -> None:
    root = _workspace(tmp_path, "[typed_edits]\nenforce = true\n\n[gate]\non_structural = \"deny\"\n")
    assert load_config(root).enforce is True
    assert gate_config(root).on_structural == "deny"


def test_a_mistyped_gate_key_names_the_known_keys(tmp_path: Path) -> None:
    root = _workspace(tmp_path, "[gate]\non_structual = \"deny\"\n")
    with pytest.raises(UsageError, match=r"\[gate\] has no key 'on_structual' \(its keys: .*on_structural"):
        gate_config(root)
