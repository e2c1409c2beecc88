"""The validation matrix: every cell that refuses or warns, from kinds.toml, judged and through `gateway declare`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gateway.typed.state import state_dir
from gateway.surfaces.cli import run
from gateway.typed.declaration import Declaration, judge
from gateway.typed.kinds import catalogue

KINDS = catalogue().kinds
IMPLEMENTATION = [k for k in KINDS.values() if k.group == "implementation"]
WORKFLOW = [k for k in KINDS.values() if k.is_workflow]


def _declaration(kind: str, **fields: object) -> Declaration:
    base: dict[str, object] = {"kind": kind, "files": ("src/app.py",), "provenance": "user_confirmed", "rationale": "asked for in #12"}
    if not KINDS[kind].is_workflow:
        base.update(target="prod", test_files=("tests/test_app.py",))
    return Declaration(**{**base, **fields})  # type: ignore[arg-type]


def _codes(declaration: Declaration) -> tuple[str | None, list[str]]:
    verdict = judge(declaration)
    return (verdict.error.code if verdict.error else None), [w.code for w in verdict.warnings]


def test_the_21_kinds_each_carry_their_four_obligations() -> None:
    expected = {
        "edit_cosmetic", "edit_boundary_condition", "edit_boolean_condition", "edit_state_transition", "edit_db_schema",
        "edit_data_migration", "edit_api_contract", "edit_serialization", "edit_error_handling", "edit_retry_timeout",
        "edit_concurrency", "edit_external_side_effect", "edit_cache_invalidation", "edit_permission_logic",
        "edit_dependency_config", "edit_policy_change", "edit_progress", "edit_observation", "edit_proposal",
        "edit_decision", "edit_explanation",
    }
    assert set(KINDS) == expected
    assert (len(IMPLEMENTATION), len(WORKFLOW)) == (16, 5)
    for kind in KINDS.values():
        for text in (kind.summary, kind.use_when, kind.do_not_use, kind.tests, kind.stop_and_ask):
            assert len(text) > 10, kind.name
        assert all(p in catalogue().rules.provenances for p in kind.reject_provenance | kind.warn_provenance)


def test_a_complete_declaration_of_every_kind_is_accepted_without_warnings() -> None:
    for kind in KINDS:
        assert _codes(_declaration(kind)) == (None, []), kind


@pytest.mark.parametrize("kind", ["edit_cosmetic", "edit_decision", "edit_policy_change"])
@pytest.mark.parametrize("provenance", ["inference", "speculation"])
def test_guesswork_is_refused_where_the_matrix_says(kind: str, provenance: str) -> None:
    assert _codes(_declaration(kind, provenance=provenance))[0] == "provenance_rejected"


@pytest.mark.parametrize("provenance", ["inference", "speculation"])
def test_a_test_edit_cannot_rest_on_guesswork(provenance: str) -> None:
    for kind in IMPLEMENTATION:
        if provenance in kind.reject_provenance:
            continue
        assert _codes(_declaration(kind.name, target="test", provenance=provenance, test_files=()))[0] == "provenance_rejected"
        assert _codes(_declaration(kind.name, target="prod", provenance=provenance))[0] is None


def test_structural_refusals() -> None:
    cases = {
        "unknown_kind": Declaration("edit_everything", ("src/app.py",), "user_confirmed", "why"),
        "provenance_invalid": _declaration("edit_cosmetic", provenance="gut_feeling"),
        "execution_state_invalid": _declaration("edit_cosmetic", execution_state="panicking"),
        "rationale_required": _declaration("edit_cosmetic", rationale="  "),
        "files_required": _declaration("edit_cosmetic", files=()),
        "target_required": _declaration("edit_concurrency", target=None),
        "target_invalid": _declaration("edit_concurrency", target="staging"),
        "target_refused": _declaration("edit_progress", target="prod"),
        "additional_files_refused": _declaration("edit_serialization", additional_files=("NOTES.md",)),
        "test_files_required": _declaration("edit_retry_timeout", test_files=()),
    }
    for code, declaration in cases.items():
        assert _codes(declaration)[0] == code


def test_test_files_are_required_for_prod_implementation_edits_only() -> None:
    for kind in IMPLEMENTATION:
        expected = None if kind.name == "edit_cosmetic" else "test_files_required"
        assert _codes(_declaration(kind.name, test_files=()))[0] == expected, kind.name
        assert _codes(_declaration(kind.name, target="test", test_files=()))[0] is None
    for kind in WORKFLOW:
        assert _codes(_declaration(kind.name))[0] is None


def test_every_warning() -> None:
    assert _codes(_declaration("edit_boundary_condition", target="test", provenance="direct_observation", test_files=()))[1] == [
        "target_spec_derivation_warn"
    ]
    assert _codes(_declaration("edit_error_handling", provenance="accepted_artifact", rationale="as agreed"))[1] == ["citation_lint_missing"]
    for cited in ("per docs/adr/0007-retries.md", "see https://example.org/spec", "issue #41", "PAY-1234", "commit 3f2a9c1d", "ADR-7"):
        assert _codes(_declaration("edit_error_handling", provenance="accepted_artifact", rationale=cited))[1] == [], cited
    for kind in IMPLEMENTATION:
        assert "execution_state_repeating_failure" in _codes(_declaration(kind.name, execution_state="repeating_failure"))[1]
    assert _codes(_declaration("edit_progress", execution_state="repeating_failure"))[1] == []
    assert _codes(_declaration("edit_db_schema", provenance="inference"))[1] == ["kind_provenance_warn"]
    assert _codes(_declaration("edit_policy_change", provenance="direct_observation"))[1] == ["kind_provenance_warn"]
    assert _codes(_declaration("edit_observation", provenance="speculation"))[1] == ["kind_provenance_warn"]
    assert _codes(_declaration("edit_boundary_condition", provenance="inference"))[1] == []
    assert _codes(_declaration("edit_progress", files=("PROGRESS.md",), additional_files=("docs/plan.md", "src/app.py")))[1] == [
        "additional_files_warn"
    ]
    assert _codes(_declaration("edit_progress", files=("PROGRESS.md",), additional_files=("docs/plan.md",)))[1] == []


def test_every_kind_provenance_cell_matches_the_data() -> None:
    for kind in KINDS.values():
        for provenance in catalogue().rules.provenances:
            error, warnings = _codes(_declaration(kind.name, provenance=provenance, rationale="see #1"))
            assert (error == "provenance_rejected") == (provenance in kind.reject_provenance), (kind.name, provenance)
            if error is None:
                assert ("kind_provenance_warn" in warnings) == (provenance in kind.warn_provenance), (kind.name, provenance)


def _declare_cli(workspace: Path, *args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, object]]:
    code = run(["declare", *args, "--workspace", str(workspace), "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_declare_cli_exit_codes_and_paths(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("LIMIT = 10\n")
    (tmp_path / ".gateway").mkdir()
    (tmp_path / ".gateway" / "config.toml").write_text('[typed_edits]\nprotected = ["*.lock", "deploy/**"]\n')
    (tmp_path / "poetry.lock").write_text("")
    common = ["--target", "prod", "--provenance", "user_confirmed", "--rationale", "asked", "--test-file", "tests/test_app.py"]

    code, issued = _declare_cli(tmp_path, "edit_boundary_condition", "--file", "src/app.py", *common, capsys=capsys)
    assert code == 0 and issued["issued"] and issued["token"] and issued["expires_at"] and issued["audit_warnings"] == []
    assert issued["files"] == [
        {"path": "src/app.py", "sha256": __import__("hashlib").sha256(b"LIMIT = 10\n").hexdigest()},
        {"path": "tests/test_app.py", "sha256": None},
    ]
    for path, code_expected in (("poetry.lock", "protected_path"), ("deploy/x.yaml", "protected_path"),
                                (".gateway/config.toml", "protected_path"), ("../outside.py", "outside_workspace"),
                                ("src", "not_a_file")):
        code, rejected = _declare_cli(tmp_path, "edit_boundary_condition", "--file", path, *common, capsys=capsys)
        assert code == 3 and rejected["audit_error"]["code"] == code_expected, path  # type: ignore[index]
        assert "token" not in rejected
    assert run(["declare", "edit_cosmetic", "--file", "src/app.py", "--workspace", str(tmp_path)]) == 1  # no provenance: usage
    capsys.readouterr()
    log = [json.loads(line) for line in (state_dir(tmp_path) / "edits.jsonl").read_text().splitlines()]
    assert [e["phase"] for e in log] == ["issued"] + ["rejected"] * 5
