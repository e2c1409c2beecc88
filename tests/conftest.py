"""Shared set-up: the gateway's per-user state (signing key, server tokens) lives in a
directory of this test session, never in the developer's home."""

from __future__ import annotations

import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="gateway-user-state-")
# Surfaces start a workspace daemon by default; tests opt in (tests/test_daemon.py) instead of
# leaving one behind per temporary workspace.
os.environ["GATEWAY_NO_DAEMON"] = "1"
# A server start slower than 2 s on a loaded machine would add progress lines to the stderr that
# tests read for a one-line error; tests of progress set their own threshold (tests/test_progress.py).
os.environ["GATEWAY_PROGRESS_AFTER"] = "3600"

import pytest  # noqa: E402

from gateway.langs import LanguageRegistry, data_dir  # noqa: E402
# What a test starts marks it, and is checked (tests/starts.py): these are fixtures, used by name.
from tests.starts import _unmarked_tests_start_nothing, hosts, mark_by_fixtures, processes, servers  # noqa: E402, F401

FAKE_SERVER = Path(__file__).parent / "fake_lsp_server.py"

# Tests far longer than others of their kind, by nodeid prefix (seconds, from `--durations=60` of
# `make test` on a loaded 2-core machine; the first prefix that matches counts): started first, so
# that none of them is the run's tail. Hosts not named here: 9 s, other slow tests 3 s.
LONGEST = {
    "tests/test_symbols_jdtls.py::": 58, "tests/test_selfcheck.py::test_bench_selfcheck_passes": 26,
    "tests/test_hosts_gateway.py::test_in_each_host_a_broken_edit_is_refused_a_header_change_and_a_deletion_are_routed_as_the_host_writes[opencode]": 26,
    "tests/test_hosts_gateway.py::test_a_stopped_language_server": 25, "tests/test_hosts_gateway.py::test_a_background_writer_is_put_back_at_stop[opencode]": 24,
    "tests/test_hosts_languages.py::test_typescript_and_go_header_changes_are_routed_and_a_broken_new_file_is_refused[claude-code]": 24,
    "tests/test_hosts_gateway.py::test_a_missing_or_broken_gateway_fails_closed[opencode": 22,
    "tests/test_daemon_hung.py::test_a_stopped_language_server": 22, "tests/test_hosts_patches.py::test_a_multi_file_patch_with_add_delete_and_move[opencode]": 21,
    "tests/test_hosts_gateway.py::test_the_users_deny_of_the_hosts_edit_tools_holds_for_the_gateways_mcp_writes[opencode]": 21,
    "tests/test_hosts_languages.py::": 19, "tests/test_untrusted_repos.py::test_jdtls": 19, "tests/test_jdtls_maven.py::": 18,
    "tests/test_jdtls_starting.py::": 17, "tests/test_untrusted_repos.py::test_typescript_loads": 17,
    "tests/test_oracles.py::test_typescript_checker": 15, "tests/test_oracles.py::test_kotlin_compiler": 15,
    "tests/test_hosts_gateway.py::test_a_stopped_daemon": 15, "tests/test_hosts_gateway.py::test_a_background_writer_is_put_back_at_stop[gemini]": 15,
    "tests/test_cli_symbols.py::test_a_header_change_breaking": 14, "tests/test_hosts_patches.py::test_a_multi_file_patch_with_add_delete_and_move[copilot]": 14,
    "tests/test_hosts_gateway.py::test_claude_code_the_users_rules": 13, "tests/test_oracles.py::test_javac_attribution_proves_a_method": 13,
    "tests/test_security_enforcement_state.py::test_inside_claude_code": 12, "tests/test_security_enforcement_state.py::test_codexs_sandbox": 12,
    "tests/test_patch.py::test_model_like_patches": 12,
    # With the round trips on the server (once tests/test_roundtrip.py's, 9-10 s each under load).
    "tests/test_symbols_servers.py::test_the_symbols_and_every_operation_come_from_the_server[javascript]": 18,
    "tests/test_symbols_servers.py::test_the_symbols_and_every_operation_come_from_the_server[t": 16,
    "tests/test_hosts_gateway.py::test_in_each_host": 11, "tests/test_demo.py::": 11, "tests/test_hosts_gateway.py::test_copilot": 11,
    "tests/test_oracles.py::test_go_types_prove": 11, "tests/test_symbol_promises.py::test_replace_keeps_export": 11,
    "tests/test_servers_status.py::test_the_cli_says": 10, "tests/test_security_io.py::test_a_silent_or_trickling": 10,
    "tests/test_daemon.py::test_a_warm_cli_symbol_command": 10, "tests/test_hosts_gateway.py::test_a_background_writer": 10,
    "tests/test_daemon_hung.py::test_a_large_write": 10, "tests/test_daemon_hung.py::test_a_stopped_daemon": 10,
    "tests/test_typed_surfaces.py::test_the_hook_needs_a_grant": 10, "tests/test_untrusted_repos.py::test_a_launch_recorded": 10,
    "tests/test_hosts_shell.py::test_put_back_undoes_the_change_and_says_which_tool_to_use[claude-code]": 10,
    "tests/test_hosts_gateway.py::test_the_users_deny": 10,
    "tests/test_symbols_servers.py::test_the_symbols_and_every_operation": 9, "tests/test_mcp.py::test_a_preview_returns_the_delta": 9,
    "tests/test_server_faults.py::test_a_server_slow_to_start": 9,
    "tests/test_security_enforcement_state.py::test_claude_codes_sandbox": 9,
    # Under 8.5 s in that run (not among its 60 longest), longer than most of their kind.
    "tests/test_daemon.py::test_callers_with_other_paths": 8, "tests/test_rpc.py::test_every_method_over_stdio": 8,
    "tests/test_cli_symbols.py::test_insert_remove_rename": 8, "tests/test_daemon.py::test_daemon_killed_mid_call": 8,
    "tests/test_symbol_promises.py::test_the_round_trip": 8, "tests/test_cli_symbols.py::test_servers_json": 8,
    "tests/test_daemon.py::test_two_workspaces": 8, "tests/test_routing.py::test_routed_result_is_the_edit[typescript": 8,
    "tests/test_rpc.py::test_a_language_server_killed": 8, "tests/test_daemon_hung.py::test_a_daemon_that_is_not": 8,
    "tests/test_daemon.py::test_a_writes_verification": 8, "tests/test_selfcheck.py::": 8,
}


def expected_seconds(item: pytest.Item) -> float:
    """A rough cost, to start the longest tests first: one started last is the run's tail."""
    known = [seconds for prefix, seconds in LONGEST.items() if item.nodeid.startswith(prefix)]
    if known:
        return known[0]
    if item.get_closest_marker("hosts"):
        return 9
    return 3 if item.get_closest_marker("slow") else 0


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        mark_by_fixtures(item)
    # xdist hands tests out in this order, one at a time (pyproject.toml: --maxschedchunk=1).
    items.sort(key=expected_seconds, reverse=True)


FIXTURES = Path(__file__).parent / "fixtures"


def enforce_typed_edits(root: Path, extra: str = "") -> None:
    """Typed edits enforced in `root`'s configuration, with `extra` lines of `[typed_edits]`."""
    (root / ".gateway").mkdir(exist_ok=True)
    (root / ".gateway" / "config.toml").write_text(f"[typed_edits]\nenforce = true\n{extra}")


def make_workspace(root: Path, copy: str | None = "python", files: dict[str, str] | None = None, git: str | None = None,
                   enforce: bool = False, uncommitted: dict[str, str] | None = None) -> Path:
    """`root` made: a copy of tests/fixtures/`copy`, then `files` written (a path ending in "/" is
    an empty folder), typed edits enforced, then `git` "init" or "commit" (all so far, one commit),
    then `uncommitted` written: work a command could lose."""
    root.mkdir(parents=True)
    if copy is not None:
        shutil.copytree(FIXTURES / copy, root, dirs_exist_ok=True)
    _write_files(root, files or {})
    if enforce:
        enforce_typed_edits(root)
    if git is not None:
        import subprocess

        assert git in ("init", "commit"), git
        author = ["-c", "user.email=t@t", "-c", "user.name=t"]
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        if git == "commit":
            subprocess.run(["git", *author, "add", "-A"], cwd=root, check=True, capture_output=True)
            subprocess.run(["git", *author, "commit", "-qm", "base"], cwd=root, check=True, capture_output=True)
    _write_files(root, uncommitted or {})
    return root


def _write_files(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        if relative.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The test's workspace at `tmp_path/ws`, so that `tmp_path` is outside it: as the closest
    `@pytest.mark.workspace(copy=, files=, git=, enforce=, uncommitted=)` says (make_workspace),
    by default a copy of the Python fixture project (tests/fixtures/python)."""
    marker = request.node.get_closest_marker("workspace")
    return make_workspace(tmp_path / "ws", **(marker.kwargs if marker is not None else {}))


def langs_with_python_server(tmp_path: Path, command: list[str]) -> Path:
    """A copy of the language data whose Python server is `command` alone, with jedi's adapter
    (the fake plays jedi's faults, its transient errors)."""
    langs = tmp_path / "langs"
    shutil.copytree(data_dir("langs"), langs)
    python = langs / "python.toml"
    quoted = ", ".join(f'"{word}"' for word in command)
    text = re.sub(r'(?m)^command = .*$', f"command = [{quoted}]", python.read_text(), count=1)
    text = re.sub(r'(?m)^adapter = .*$', 'adapter = "jedi"', text, count=1)
    python.write_text(re.sub(r'(?m)^alternatives = .*$', "alternatives = []", text, count=1))
    return langs


@pytest.fixture
def fake_langs(tmp_path: Path) -> Path:
    """A copy of the language data whose Python server is the fault-injecting fake
    (tests/fake_lsp_server.py); GATEWAY_LANGS_DIR points a separate process at it."""
    return langs_with_python_server(tmp_path, [sys.executable, str(FAKE_SERVER)])


@pytest.fixture
def fake_registry(fake_langs: Path) -> LanguageRegistry:
    return LanguageRegistry(fake_langs, data_dir("queries"))


# What the fake server's one symbol (`f`, on the file's first two lines) stands for.
FAKE_SOURCE = "def f():\n    return 1\n"


@pytest.fixture
def fake_workspace(tmp_path: Path) -> Path:
    """`tmp_path/ws` holding m.py, the function the fake server reports."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "m.py").write_text(FAKE_SOURCE)
    return root
