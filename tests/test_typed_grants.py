"""Grants under enforcement: bound to hashes, single use, expiring; every write path; concurrency; the log."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.typed.state import state_dir
from gateway.api import Gateway
from gateway.surfaces.cli import run
from gateway.errors import Blocked, GrantRefused
from gateway.typed.declaration import Declaration
from tests.conftest import enforce_typed_edits
from tests.faults import fail_nth_write

pytestmark = pytest.mark.workspace(enforce=True)
SHAPES = "pkg/shapes.py"


@pytest.fixture
def gateway(workspace: Path) -> Iterator[Gateway]:
    with Gateway(workspace) as gw:
        yield gw


def declare(gw: Gateway, *files: str, kind: str = "edit_boundary_condition", **fields: object) -> dict[str, object]:
    params: dict[str, object] = {
        "kind": kind, "files": list(files), "provenance": "user_confirmed", "rationale": "asked by the user",
        "target": "prod", "test_files": ["tests/test_shapes.py"], **fields,
    }
    result = gw.declare(Declaration.from_params(params)).to_json()
    assert result["issued"], result
    return result


def log(root: Path) -> list[dict[str, object]]:
    entries = [json.loads(line) for line in (state_dir(root) / "edits.jsonl").read_text().splitlines()]
    return [e for e in entries if e["phase"] != "watch"]  # when the workspace started being watched


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused(call: object, reason: str) -> GrantRefused:
    with pytest.raises(GrantRefused) as caught:
        call()  # type: ignore[operator]
    assert caught.value.reason == reason, str(caught.value)
    return caught.value


def test_a_write_needs_a_live_grant_and_uses_it_once(gateway: Gateway, workspace: Path) -> None:
    shapes = workspace / SHAPES
    before = shapes.read_bytes()
    error = refused(lambda: gateway.edit(SHAPES, "width * height", "height * width"), "undeclared")
    assert "declare the edit first" in str(error) and shapes.read_bytes() == before
    grant = declare(gateway, SHAPES)
    result = gateway.edit(SHAPES, "width * height", "height * width", token=grant["token"])  # type: ignore[arg-type]
    assert result.replacements == 1
    refused(lambda: gateway.edit(SHAPES, "height * width", "width * height", token=grant["token"]), "consumed")  # type: ignore[arg-type]
    refused(lambda: gateway.edit(SHAPES, "height * width", "width * height"), "consumed")
    assert "height * width" in shapes.read_text()
    entries = log(workspace)
    assert [(e["phase"], (e["audit_error"] or {}).get("code")) for e in entries] == [
        ("rejected", "undeclared"), ("issued", None), ("consumed", None), ("rejected", "consumed"), ("rejected", "consumed")
    ]
    consumed = entries[2]
    assert consumed["edit_id"] == grant["edit_id"] and consumed["operation"] == "edit" and consumed["kind"] == "edit_boundary_condition"
    assert consumed["files"] == [{"path": SHAPES, "sha256": hashlib.sha256(before).hexdigest(), "sha256_after": digest(shapes)}]


def test_without_a_token_a_live_grant_for_the_file_is_used(gateway: Gateway, workspace: Path) -> None:
    declare(gateway, "pkg/use.py")
    grant = declare(gateway, SHAPES)
    gateway.edit(SHAPES, "width * height", "height * width")
    assert [e["edit_id"] for e in log(workspace) if e["phase"] == "consumed"] == [grant["edit_id"]]
    other = declare(gateway, "pkg/use.py")
    refused(lambda: gateway.edit(SHAPES, "height * width", "width * height", token=other["token"]), "undeclared")  # type: ignore[arg-type]


def test_a_file_changed_after_declaring_is_stale(gateway: Gateway, workspace: Path) -> None:
    grant = declare(gateway, SHAPES)
    shapes = workspace / SHAPES
    shapes.write_text(shapes.read_text() + "\n# touched by someone else\n")
    changed = shapes.read_bytes()
    refused(lambda: gateway.edit(SHAPES, "width * height", "height * width", token=grant["token"]), "stale")  # type: ignore[arg-type]
    assert shapes.read_bytes() == changed


def test_a_grant_expires(gateway: Gateway, workspace: Path) -> None:
    now = [1_000_000.0]
    gateway.typed.clock = lambda: now[0]
    grant = declare(gateway, SHAPES)
    assert grant["expires_at"] == "1970-01-12T13:56:40.000Z"  # 600 s after the clock
    now[0] += 599
    before = (workspace / SHAPES).read_bytes()
    declare(gateway, "pkg/use.py")
    now[0] += 2
    refused(lambda: gateway.edit(SHAPES, "width * height", "height * width"), "expired")
    assert (workspace / SHAPES).read_bytes() == before


def test_the_lifetime_is_configurable(workspace: Path) -> None:
    enforce_typed_edits(workspace, "grant_ttl_seconds = 30\n")
    with Gateway(workspace) as gw:
        gw.typed.clock = lambda: 0.0
        assert declare(gw, SHAPES)["expires_at"] == "1970-01-01T00:00:30.000Z"


def test_protected_paths_are_refused_even_to_the_gateway(gateway: Gateway, workspace: Path) -> None:
    config = workspace / ".gateway" / "config.toml"
    before = config.read_bytes()
    refused(lambda: gateway.edit(".gateway/config.toml", "enforce = true", "enforce = false"), "protected")
    assert config.read_bytes() == before


@pytest.mark.usefixtures("servers")
def test_symbol_operations_and_rename_need_grants_for_every_file(gateway: Gateway, workspace: Path) -> None:
    shapes, use = workspace / SHAPES, workspace / "pkg" / "use.py"
    before = {shapes: shapes.read_bytes(), use: use.read_bytes()}
    refused(lambda: gateway.replace_symbol("area", SHAPES, "def area(w, h):\n    return w * h").to_json(), "undeclared")
    refused(lambda: gateway.insert_code("area", SHAPES, "def cube(s):\n    return s ** 3", "after").to_json(), "undeclared")
    refused(lambda: gateway.remove_symbol("perimeter", SHAPES).to_json(), "undeclared")
    only_shapes = declare(gateway, SHAPES, kind="edit_api_contract")
    # The server's rename also rewrites pkg/use.py, which no grant covers: nothing is written, nothing consumed.
    refused(lambda: gateway.rename_symbol("area", SHAPES, "surface", token=only_shapes["token"]).to_json(), "undeclared")  # type: ignore[arg-type]
    assert {p: p.read_bytes() for p in before} == before
    both = declare(gateway, "pkg/use.py", kind="edit_api_contract")
    renamed = gateway.rename_symbol("area", SHAPES, "surface").to_json()
    assert renamed["files"] == ["pkg/shapes.py", "pkg/use.py"] and renamed["backend"] == "lsp:zuban"
    consumed = [e for e in log(workspace) if e["phase"] == "consumed"]
    assert {(e["edit_id"], f["path"]) for e in consumed for f in e["files"]} == {
        (only_shapes["edit_id"], SHAPES), (both["edit_id"], "pkg/use.py")
    }
    grant = declare(gateway, SHAPES)
    gateway.replace_symbol("surface", SHAPES, "def surface(w, h):\n    return w * h", token=grant["token"])  # type: ignore[arg-type]
    refused(lambda: gateway.remove_symbol("perimeter", SHAPES, token=grant["token"]).to_json(), "consumed")  # type: ignore[arg-type]
    declare(gateway, SHAPES)
    gateway.insert_code("surface", SHAPES, "def cube(s):\n    return s ** 3", "after")
    declare(gateway, SHAPES)
    gateway.remove_symbol("cube", SHAPES)
    assert "def cube" not in shapes.read_text() and "def surface(w, h):" in shapes.read_text()


@pytest.mark.usefixtures("servers")
def test_a_blocked_edit_is_logged_and_keeps_the_grant(gateway: Gateway, workspace: Path) -> None:
    grant = declare(gateway, SHAPES)
    old = "def area(width, height):\n    return width * height\n"
    with pytest.raises(Blocked):
        gateway.edit(SHAPES, old, "def area(w, h):\n    return w * h\n", token=grant["token"])  # type: ignore[arg-type]
    result = gateway.replace_symbol("area", SHAPES, "def area(w, h):\n    return w * h", token=grant["token"]).to_json()  # type: ignore[arg-type]
    assert result["ok"]
    assert [(e["phase"], (e["audit_error"] or {}).get("code")) for e in log(workspace)] == [
        ("issued", None), ("rejected", "blocked"), ("consumed", None)
    ]


@pytest.mark.workspace(enforce=False)
def test_without_enforcement_writes_pass_and_a_live_grant_is_still_used(workspace: Path) -> None:
    with Gateway(workspace) as gw:
        gw.edit(SHAPES, "width * height", "height * width")
        assert not (workspace / ".gateway").exists()  # an unused feature leaves no trace
        grant = declare(gw, SHAPES)
        gw.edit(SHAPES, "height * width", "width * height")
        refused(lambda: gw.edit(SHAPES, "width * height", "height * width", token=grant["token"]), "consumed")  # type: ignore[arg-type]
    assert [e["phase"] for e in log(workspace)] == ["issued", "consumed", "rejected"]


def test_one_grant_races_many_writers_and_only_one_wins(workspace: Path) -> None:
    with Gateway(workspace) as gw:
        token = declare(gw, SHAPES)["token"]
    outcomes: list[str] = []

    def writer(number: int) -> None:
        with Gateway(workspace) as gw:
            try:
                gw.edit(SHAPES, "def unit():", f"def unit():  # writer {number}", token=token)  # type: ignore[arg-type]
                outcomes.append("applied")
            except GrantRefused as error:
                outcomes.append(error.reason)

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["applied"] + ["consumed"] * 7
    assert (workspace / SHAPES).read_text().count("# writer") == 1
    assert [e["phase"] for e in log(workspace)].count("consumed") == 1


def test_concurrent_declarations_and_writes_lose_nothing(workspace: Path) -> None:
    files = [f"notes/n{n}.md" for n in range(12)]
    (workspace / "notes").mkdir()
    for name in files:
        (workspace / name).write_text("status: open\n")

    def agent(name: str) -> None:
        with Gateway(workspace) as gw:
            grant = declare(gw, name, kind="edit_progress", target=None, test_files=[])
            gw.edit(name, "status: open", "status: done", token=grant["token"])  # type: ignore[arg-type]

    threads = [threading.Thread(target=agent, args=(name,)) for name in files]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all((workspace / name).read_text() == "status: done\n" for name in files)
    entries = log(workspace)
    assert len(entries) == 24 and sorted(e["phase"] for e in entries) == ["consumed"] * 12 + ["issued"] * 12
    grants = json.loads((state_dir(workspace) / "grants.json").read_text())["grants"]
    assert len(grants) == 12 and all(len(g["consumed"]) == 1 for g in grants)


def test_a_torn_last_line_is_skipped_with_a_warning_and_closed(gateway: Gateway, workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    declare(gateway, SHAPES)
    log_path = state_dir(workspace) / "edits.jsonl"
    with open(log_path, "a") as handle:
        handle.write('{"phase": "issued", "edit_id": "torn')
    declare(gateway, "pkg/use.py")
    assert run(["audit", "log", "--workspace", str(workspace), "--json"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert [e["files"][0]["path"] for e in shown["entries"]] == [SHAPES, "pkg/use.py"]
    assert shown["log_warnings"] == ["edits.jsonl:2: torn or corrupt line skipped"]
    assert "torn or corrupt line skipped" in captured.err


@pytest.mark.usefixtures("servers")
def test_cli_token_audit_log_and_summary(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = ["--workspace", str(workspace), "--json"]
    edit = ["edit", SHAPES, "--old", "width * height", "--new", "height * width", *ws]
    assert run(edit) == 3
    refusal = json.loads(capsys.readouterr().out)
    assert refusal["applied"] is False and refusal["error"]["kind"] == "grant_refused" and refusal["error"]["reason"] == "undeclared"
    assert run(["declare", "edit_boundary_condition", "--file", SHAPES, "--target", "prod", "--provenance", "inference",
                "--rationale", "width first reads better", "--test-file", "tests/test_shapes.py", *ws]) == 0
    token = json.loads(capsys.readouterr().out)["token"]
    assert run([*edit, "--token", token]) == 0
    capsys.readouterr()
    assert run(["declare", "edit_db_schema", "--file", "pkg/use.py", "--target", "test", "--provenance", "direct_observation",
                "--rationale", "pin current output", "--execution-state", "repeating_failure", *ws]) == 0
    capsys.readouterr()
    assert run(["declare", "edit_cosmetic", "--file", "pkg/use.py", "--target", "prod", "--provenance", "speculation",
                "--rationale", "tidy", *ws]) == 3
    capsys.readouterr()
    assert run(["replace-symbol", "area", SHAPES, "--body", "def area(w, h):\n    return w * h", *ws]) == 3
    capsys.readouterr()

    assert run(["audit", "log", "--kind", "edit_db_schema", *ws]) == 0
    assert [e["phase"] for e in json.loads(capsys.readouterr().out)["entries"]] == ["issued"]
    assert run(["audit", "log", "--since", "2999-01-01", *ws]) == 0
    assert json.loads(capsys.readouterr().out)["entries"] == []
    assert run(["audit", "log", "--since", "yesterday", *ws]) == 1
    capsys.readouterr()
    assert run(["audit", "summary", *ws]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["phases"] == {"issued": 2, "consumed": 1, "rejected": 3}
    assert summary["by_kind"] == {
        "edit_boundary_condition": {"total": 1, "prod": 1, "test": 0, "none": 0},
        "edit_db_schema": {"total": 1, "prod": 0, "test": 1, "none": 0},
    }
    assert summary["by_provenance"] == {"inference": 1, "direct_observation": 1}
    assert summary["by_execution_state"] == {"normal": 1, "repeating_failure": 1}
    assert summary["warnings"] == {"target_spec_derivation_warn": 1, "execution_state_repeating_failure": 1}
    assert summary["rejections"] == {"undeclared": 1, "consumed": 1, "provenance_rejected": 1}
    assert [e["kind"] for e in summary["never_consumed"]] == ["edit_db_schema"]
    assert summary["most_edited"] == [{"path": SHAPES, "edits": 1}]


@pytest.mark.usefixtures("servers")
def test_a_write_that_fails_midway_gives_its_grants_back(gateway: Gateway, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.errors import WriteFailed

    grant = declare(gateway, SHAPES, "pkg/use.py", kind="edit_api_contract")
    before = {p: p.read_bytes() for p in workspace.rglob("*.py")}
    fail_nth_write(monkeypatch, 2)
    with pytest.raises(WriteFailed):
        gateway.rename_symbol("area", SHAPES, "surface", token=grant["token"])  # type: ignore[arg-type]
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in workspace.rglob("*.py")} == before
    grants = json.loads((state_dir(workspace) / "grants.json").read_text())["grants"]
    assert grants[0]["consumed"] == {}
    assert [(e["phase"], (e["audit_error"] or {}).get("code")) for e in log(workspace)] == [("issued", None), ("rejected", "write_failed")]
    assert gateway.rename_symbol("area", SHAPES, "surface", token=grant["token"]).to_json()["files"] == [SHAPES, "pkg/use.py"]  # type: ignore[arg-type]


def _edit(gw: Gateway, token: str | None = None) -> object:
    return lambda: gw.edit(SHAPES, "width * height", "height * width", token=token)


def test_a_hand_written_grant_is_refused_as_forged(gateway: Gateway, workspace: Path) -> None:
    store = state_dir(workspace) / "grants.json"
    store.parent.mkdir(parents=True, exist_ok=True)
    forged = {"edit_id": "f1", "token_sha256": hashlib.sha256(b"t").hexdigest(), "kind": "edit_boundary_condition", "target": "prod",
              "provenance": "user_confirmed", "execution_state": "normal", "issued_at": 0, "expires_at": 9e9,
              "files": {SHAPES: digest(workspace / SHAPES)}, "consumed": {}}
    store.write_text(json.dumps({"grants": [forged]}))
    refused(_edit(gateway), "forged")
    refused(_edit(gateway, "t"), "forged")
    assert not [e for e in log(workspace) if e["phase"] == "consumed"]


def test_an_altered_grant_is_refused_as_forged(gateway: Gateway, workspace: Path) -> None:
    declare(gateway, "pkg/use.py")
    store = state_dir(workspace) / "grants.json"
    data = json.loads(store.read_text())
    data["grants"][0]["files"] = {SHAPES: digest(workspace / SHAPES)}  # widened to another file by hand
    store.write_text(json.dumps(data))
    refused(_edit(gateway), "forged")


def test_tokens_never_look_like_options(monkeypatch: pytest.MonkeyPatch) -> None:
    from gateway.typed import grants

    drawn = iter(["-abc", "--x", "ok-token"])
    monkeypatch.setattr(grants.secrets, "token_urlsafe", lambda _n: next(drawn))
    assert grants.new_token() == "ok-token"


@pytest.mark.parametrize(("field", "value"), [("rationale", "bad \udcff byte"), ("rationale", 3), ("files", ["ok.py", "\udc80"]), ("kind", None)])
def test_invalid_fields_issue_and_log_nothing(gateway: Gateway, workspace: Path, field: str, value: object) -> None:
    from gateway.errors import UsageError
    from gateway.typed.declaration import Declaration

    fields = {"kind": "edit_boundary_condition", "files": (SHAPES,), "provenance": "user_confirmed", "rationale": "r", "target": "prod",
              "test_files": ("tests/t.py",)}
    with pytest.raises(UsageError):
        gateway.declare(Declaration(**{**fields, field: value}))  # type: ignore[arg-type]
    assert not (state_dir(workspace) / "grants.json").exists()
    assert not (state_dir(workspace) / "edits.jsonl").exists()


def test_invalid_utf8_in_a_cli_rationale_is_one_line(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import os

    rationale = os.fsdecode(b"bad \xff byte")
    assert run(["declare", "edit_boundary_condition", "--file", SHAPES, "--target", "prod", "--provenance", "user_confirmed",
                "--rationale", rationale, "--test-file", "t.py", "--workspace", str(workspace)]) == 1
    assert "not valid UTF-8" in capsys.readouterr().err
    assert not (state_dir(workspace) / "grants.json").exists()


@pytest.mark.workspace(enforce=False)
def test_a_hooks_write_is_hashed_only_where_a_grant_can_be_consumed(workspace: Path) -> None:
    """Not enforced and nothing declared: the bytes a hook's write may leave are never worked out
    (on a 50,000-line file their four SHA-256s were a sixth of the hook's time); once an edit is
    declared, they are, and bound to the grant the write consumes."""
    from gateway.typed.service import TypedEdits
    from gateway.workspace import Workspace

    asked: list[str] = []

    def results() -> list[str]:
        asked.append("results")
        return ["0" * 64]

    typed = TypedEdits(Workspace(workspace))
    typed.native_write(workspace / SHAPES, "hook:Edit", None, results)
    assert asked == [] and not typed.grants.path.exists()
    with Gateway(workspace) as gw:
        declare(gw, SHAPES)
    typed.native_write(workspace / SHAPES, "hook:Edit", None, results)
    assert asked == ["results"]
    assert [e["phase"] for e in log(workspace)][-1] == "consumed"
