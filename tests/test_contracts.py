"""Contracts: multi-file plans that land validated, and every failure path leaving every byte as it was."""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway.typed.state import state_dir
from gateway.api import Gateway
from gateway.surfaces.cli import run
from gateway.contracts.apply import recover
from gateway.errors import WriteFailed
from tests.faults import fail_nth_write

FIXTURES = Path(__file__).parent / "fixtures"
SHAPES = "pkg/shapes.py"
USE = "pkg/use.py"
DOC_BEFORE, DOC_AFTER = '"""A shape."""', '"""A figure."""'  # a text step the gate lets through
TEST = '''from pkg.shapes import surface
from pkg.use import total


def test_surface():
    assert surface(2, 3) == 6
    assert total([(1, 2), (3, 4)]) == 14
'''


@pytest.fixture
def gateway(workspace: Path) -> Iterator[Gateway]:
    with Gateway(workspace) as gw:
        yield gw


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file() and ".gateway" not in p.parts
            and not p.name.endswith(".toml")}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def q(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


def write_contract(root: Path, body: str, files: tuple[str, ...] = (SHAPES, USE), hashes: bool = True) -> Path:
    head = '[contract]\nid = "surface"\nsummary = "Rename area to surface and test it"\nfallback = "Regenerate the contract."\n'
    for name in files:
        head += f'\n[[files]]\npath = "{name}"\n'
        if hashes and (root / name).exists():
            head += f'sha256 = "{digest(root / name)}"\n'
    path = root / "plan.toml"
    path.write_text(head + body)
    return path


FULL = f'''
[[steps]]
id = "rename"
file = "{SHAPES}"
action = "rename_symbol"
symbol = "area"
new_name = "surface"

[[steps]]
id = "docstring"
file = "{SHAPES}"
action = "insert_after"
anchor = "def surface(width, height):\\n"
text = "    \\"\\"\\"Width times height.\\"\\"\\"\\n"

[[steps]]
id = "perimeter"
file = "{SHAPES}"
action = "replace_symbol"
symbol = "perimeter"
text = "def perimeter(width, height):\\n    return 2 * width + 2 * height\\n"

[[steps]]
id = "new-test"
file = "tests/test_surface.py"
action = "create"
text = {q(TEST)}

[[validate]]
run = "python3 -m pytest -q -p no:cacheprovider tests/test_surface.py"
timeout = 120
'''


@pytest.mark.usefixtures("servers")
def test_a_multi_file_contract_applies_and_validates(gateway: Gateway, workspace: Path) -> None:
    path = write_contract(workspace, FULL, (SHAPES, USE, "tests/test_surface.py"))
    checked = gateway.contract_check(str(path)).to_json()
    assert checked["ready"] and [s["status"] for s in checked["steps"]] == ["ready"] * 4
    assert (workspace / SHAPES).read_text().count("def area(") == 1  # check writes nothing
    result = gateway.contract_apply(str(path)).to_json()
    assert result["applied"] and result["validated"] and not result["rolled_back"]
    assert result["steps"][0]["files"] == [SHAPES, USE]
    assert [(s["id"], s["status"], s["lines_added"]) for s in result["steps"]] == [
        ("rename", "applied", 3), ("docstring", "applied", 1), ("perimeter", "applied", 1), ("new-test", "applied", 7)
    ]
    assert result["validations"][0]["exit_code"] == 0 and "1 passed" in result["validations"][0]["output_tail"]
    shapes = (workspace / SHAPES).read_text()
    assert 'def surface(width, height):\n    """Width times height."""\n' in shapes and "2 * width + 2 * height" in shapes
    assert "surface(w, h)" in (workspace / USE).read_text()
    log = [json.loads(line) for line in (state_dir(workspace) / "edits.jsonl").read_text().splitlines()]
    assert [(e["phase"], e["step"], e["contract"]) for e in log] == [
        ("consumed", step, "surface") for step in ("rename", "docstring", "perimeter", "new-test")
    ]
    assert gateway.contract_check(str(path)).to_json()["problems"][0]["code"] == "stale"  # its hashes are history now


def test_an_anchor_made_by_an_earlier_step_is_found(gateway: Gateway, workspace: Path) -> None:
    body = f'''
[[steps]]
id = "one"
file = "{SHAPES}"
action = "insert_before"
anchor_regex = "^def area"
text = "# MARKER\\n"

[[steps]]
id = "two"
file = "{SHAPES}"
action = "replace"
anchor = "# MARKER\\n"
text = "# Areas of rectangles.\\n"
'''
    result = gateway.contract_apply(str(write_contract(workspace, body))).to_json()
    assert result["applied"], result["problems"]
    assert "# Areas of rectangles.\ndef area(" in (workspace / SHAPES).read_text()


def _step(action: str = "replace", file: str = SHAPES, **fields: str) -> str:
    body = f'\n[[steps]]\nid = "s{len(fields)}"\nfile = "{file}"\naction = "{action}"\n'
    return body + "".join(f"{key} = {q(value)}\n" for key, value in fields.items())


REFUSALS = {
    "anchor_missing": (_step(anchor="return width ** height\n", text="x\n"), "anchor_missing"),
    "anchor_twice": (_step(anchor="width, height", text="w, h"), "anchor_ambiguous"),
    "outside_scope": (_step(file="pkg/__init__.py", anchor="", text="x"), "out_of_scope"),
    "structural": (_step(anchor="def perimeter(width, height):\n    return 2 * (width + height)\n",
                         text="def perimeter(w, h):\n    return 2 * (w + h)\n"), "structural"),
    "unknown_symbol": (_step("remove_symbol", symbol="Nothing/here"), "not_found"),
}


@pytest.mark.usefixtures("servers")
@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refusals_leave_every_byte(gateway: Gateway, workspace: Path, case: str) -> None:
    body, code = REFUSALS[case]
    # A first step that would succeed: refusal must not leave it half-applied.
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_BEFORE) .replace('id = "s2"', 'id = "ok"') + body)
    before = snapshot(workspace)
    result = gateway.contract_apply(str(path)).to_json()
    assert not result["ready"] and not result["applied"] and result["problems"][0]["code"] == code, result["problems"]
    assert result["fallback"] == "Regenerate the contract."
    error = result["error"]  # the one refusal shape; the contract's fallback is its hint
    assert (result["ok"], error["kind"], error["code"], error["hint"]) == (False, "contract_refused", code, "Regenerate the contract.")
    assert snapshot(workspace) == before
    if code == "structural":
        assert "replace_symbol" in result["problems"][0]["message"]


def test_a_stale_hash_refuses(gateway: Gateway, workspace: Path) -> None:
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER))
    (workspace / USE).write_text((workspace / USE).read_text() + "# changed after the contract\n")
    before = snapshot(workspace)
    result = gateway.contract_apply(str(path)).to_json()
    assert [(p["code"], p["line"]) for p in result["problems"]] == [("stale", 12)]
    assert snapshot(workspace) == before


@pytest.mark.usefixtures("processes")
def test_a_git_tracked_file_changed_since_the_base_refuses(gateway: Gateway, workspace: Path) -> None:
    git = ["git", "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    subprocess.run([*git, "add", "-A"], cwd=workspace, check=True)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=workspace, check=True)
    base = subprocess.run(["git", "rev-parse", "HEAD"], cwd=workspace, capture_output=True, text=True).stdout.strip()
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER), hashes=False)
    path.write_text(path.read_text().replace('fallback = "Regenerate the contract."', f'fallback = "Regenerate the contract."\nbase = "{base}"'))
    assert gateway.contract_check(str(path)).to_json()["ready"]
    (workspace / USE).write_text("# edited by someone\n")
    problems = gateway.contract_check(str(path)).to_json()["problems"]
    assert [(p["code"], p["message"].split(":")[0]) for p in problems] == [("stale", USE)]


def test_schema_errors_name_their_line(gateway: Gateway, workspace: Path) -> None:
    path = write_contract(workspace, '\n[[steps]]\nid = "a"\nfile = "pkg/shapes.py"\naction = "replace"\ntext = "x"\n\n'
                                     '[[steps]]\nid = "b"\nfile = "pkg/shapes.py"\naction = "replace_all"\n\n'
                                     '[[validate]]\nrun = "true"\ntimout = 5\n')
    problems = gateway.contract_check(str(path)).to_json()["problems"]
    lines = path.read_text().splitlines()
    assert [(p["code"], lines[p["line"] - 1]) for p in problems] == [
        ("schema", "[[steps]]"), ("schema", 'action = "replace_all"'), ("schema", "timout = 5")
    ]
    assert "exactly one of `anchor` or `anchor_regex`" in problems[0]["message"]
    path.write_text("[contract\nid = 1\n")
    assert [(p["code"], p["line"]) for p in gateway.contract_check(str(path)).to_json()["problems"]] == [("schema", 1)]


def _failing(workspace: Path, run_cmd: str, timeout: float = 60) -> Path:
    body = _step(anchor=DOC_BEFORE, text=DOC_AFTER) + _step(file=USE, anchor="area(w, h)", text="area(h, w)") .replace('"s2"', '"s2b"')
    return write_contract(workspace, body + f'\n[[validate]]\nrun = "true"\n\n[[validate]]\nrun = {q(run_cmd)}\ntimeout = {timeout}\n'
                                            '\n[[validate]]\nrun = "true"\n')


@pytest.mark.usefixtures("processes")
def test_a_failed_validation_restores_every_file(gateway: Gateway, workspace: Path) -> None:
    path = _failing(workspace, "echo boom; exit 4")
    before = snapshot(workspace)
    result = gateway.contract_apply(str(path)).to_json()
    assert result["rolled_back"] and not result["applied"]
    assert (result["ok"], result["error"]["kind"]) == (False, "validation_failed") and "every file restored" in result["error"]["message"]
    assert [(v["passed"], v.get("exit_code")) for v in result["validations"]] == [(True, 0), (False, 4), (None, None)]
    assert result["validations"][1]["output_tail"] == "boom\n"
    assert snapshot(workspace) == before
    log = [json.loads(line) for line in (state_dir(workspace) / "edits.jsonl").read_text().splitlines()]
    assert [(e["phase"], (e["audit_error"] or {}).get("code")) for e in log] == [("consumed", None)] * 2 + [("rejected", "rolled_back")] * 2


@pytest.mark.usefixtures("processes")
def test_a_validation_timeout_kills_it_and_restores(gateway: Gateway, workspace: Path) -> None:
    path = _failing(workspace, "sleep 30 & sleep 30", timeout=1)
    before = snapshot(workspace)
    result = gateway.contract_apply(str(path)).to_json()
    timed = result["validations"][1]
    assert timed["timed_out"] and timed["exit_code"] is None and timed["duration_s"] < 10
    assert result["rolled_back"] and snapshot(workspace) == before


@pytest.mark.usefixtures("processes")
def test_keep_on_failure_keeps_the_result(gateway: Gateway, workspace: Path) -> None:
    result = gateway.contract_apply(str(_failing(workspace, "exit 1")), keep_on_failure=True).to_json()
    assert not result["applied"] and result["kept_on_failure"] and not result["rolled_back"]
    assert DOC_AFTER in (workspace / SHAPES).read_text()


@pytest.mark.usefixtures("servers")
def test_a_crash_mid_write_leaves_every_byte(gateway: Gateway, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write_contract(workspace, FULL, (SHAPES, USE, "tests/test_surface.py"))
    before = snapshot(workspace)
    calls = fail_nth_write(monkeypatch, 2)
    with pytest.raises(WriteFailed):
        gateway.contract_apply(str(path))
    assert len(calls) == 2 and snapshot(workspace) == before


@pytest.mark.usefixtures("servers")
def test_a_crash_during_validation_restores(gateway: Gateway, workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gateway.contracts.apply as apply_module

    path = write_contract(workspace, FULL, (SHAPES, USE, "tests/test_surface.py"))
    before = snapshot(workspace)

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(apply_module, "run_validation", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gateway.contract_apply(str(path))
    assert snapshot(workspace) == before and not (workspace / "tests" / "test_surface.py").exists()


def test_enforced_typed_edits_need_grants_for_a_contract(gateway: Gateway, workspace: Path) -> None:
    (workspace / ".gateway").mkdir()
    (workspace / ".gateway" / "config.toml").write_text("[typed_edits]\nenforce = true\n")
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER))
    assert run(["contract", "apply", str(path), "--workspace", str(workspace)]) == 3
    assert DOC_BEFORE in (workspace / SHAPES).read_text()
    assert run(["declare", "edit_api_contract", "--file", SHAPES, "--target", "prod", "--provenance", "accepted_artifact",
                "--rationale", "plan.toml, reviewed", "--test-file", "tests/test_shapes.py", "--workspace", str(workspace)]) == 0
    assert run(["contract", "apply", str(path), "--workspace", str(workspace)]) == 0
    assert DOC_AFTER in (workspace / SHAPES).read_text()


@pytest.mark.usefixtures("processes")
def test_cli_rpc_and_new(workspace: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ws = ["--workspace", str(workspace)]
    assert run(["contract", "new", "--id", "tidy", "--file", SHAPES, *ws]) == 0
    skeleton = workspace / "contracts" / "tidy.toml"
    assert f'sha256 = "{digest(workspace / SHAPES)}"' in skeleton.read_text()
    assert run(["contract", "new", "--id", "tidy", *ws]) == 1  # never overwrites
    assert run(["contract", "check", str(skeleton), "--json", *ws]) == 3  # its TODO anchor matches nothing
    capsys.readouterr()
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER))
    assert run(["contract", "check", str(path), *ws]) == 0
    assert run(["contract", "check", str(workspace / "missing.toml"), *ws]) == 1
    assert run(["contract", "apply", str(path), "--json", *ws]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["validated"] is True
    assert run(["context", "--json", *ws]) == 0
    context = json.loads(capsys.readouterr().out)
    assert context["audit_recent"][0] == {"path": SHAPES, "last_edit": context["audit_recent"][0]["last_edit"], "language": "python"}
    assert any(r["path"] == SHAPES for r in context["recent"])


@pytest.mark.usefixtures("processes")
def test_rpc_and_mcp_expose_the_same(workspace: Path) -> None:
    import sys

    from tests.rpc_client import RpcClient
    from tests.test_mcp import _configure, _payload, _session_calls

    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER))
    process = subprocess.Popen([sys.executable, "-m", "gateway", "serve", "--workspace", str(workspace)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        client = RpcClient.over_process(process)
        assert client.request("gateway/contractCheck", {"path": "plan.toml"})["ready"] is True
        assert client.request("gateway/contractApply", {"path": str(path)})["validated"] is True
        refused = client.request("gateway/contractCheck", {"path": "plan.toml"})
        assert refused["ready"] is False and refused["problems"][0]["code"] == "stale"
    finally:
        process.kill()
        process.wait()
    path = write_contract(workspace, _step(anchor=DOC_AFTER, text=DOC_BEFORE) + '\n[[validate]]\nrun = "exit 3"\n')
    _configure(workspace, "[mcp]\ncontracts = true\n")  # the plan is not under contracts/: ask for the tools
    before = snapshot(workspace)
    _, results = _session_calls(workspace, [("contract_check", {"path": "plan.toml"}), ("contract_apply", {"path": "plan.toml"})])
    assert _payload(results[0])["ready"] is True
    applied = _payload(results[1])
    assert applied["rolled_back"] is True and applied["validations"][0]["exit_code"] == 3
    assert snapshot(workspace) == before


CRASHING_APPLY = """
import os, sys
from gateway.api import Gateway
from gateway.workspace import Workspace

real = Workspace._write_bytes
def die_after_first(self, source, data):
    real(self, source, data)
    os._exit(9)  # the process dies between the contract's first and second file
Workspace._write_bytes = die_after_first
with Gateway(sys.argv[1]) as gateway:
    gateway.contract_apply(sys.argv[2])
"""


@pytest.mark.usefixtures("processes")
def test_a_process_killed_mid_apply_is_undone_by_the_next_run(workspace: Path) -> None:
    import sys

    path = write_contract(workspace, FULL, (SHAPES, USE, "tests/test_surface.py"))
    before = snapshot(workspace)
    died = subprocess.run([sys.executable, "-c", CRASHING_APPLY, str(workspace), str(path)], capture_output=True, text=True)
    assert died.returncode == 9, died.stderr
    assert snapshot(workspace) != before  # half-applied: one file written, the process gone
    half = snapshot(workspace)
    with Gateway(workspace) as gw:
        checked = gw.contract_check(str(path)).to_json()
        assert [run["files"] for run in checked["interrupted"]] == [[SHAPES, USE, "tests/test_surface.py"]]
        assert snapshot(workspace) == half  # a check writes nothing
        assert recover(gw) == [SHAPES]  # what the next apply does first
    assert snapshot(workspace) == before
    assert not list((workspace / ".gateway" / "state" / "contract-runs").iterdir())
    log = [json.loads(line) for line in (state_dir(workspace) / "edits.jsonl").read_text().splitlines()]
    assert (log[-1]["operation"], log[-1]["audit_error"]["code"]) == ("contract_recover", "interrupted")


@pytest.mark.usefixtures("processes")
def test_recovery_refuses_to_overwrite_later_changes(workspace: Path) -> None:
    import sys

    path = write_contract(workspace, FULL, (SHAPES, USE, "tests/test_surface.py"))
    subprocess.run([sys.executable, "-c", CRASHING_APPLY, str(workspace), str(path)], capture_output=True)
    (workspace / SHAPES).write_text("# someone's own work\n")
    assert run(["contract", "apply", str(path), "--workspace", str(workspace)]) == 1
    assert (workspace / SHAPES).read_text() == "# someone's own work\n"


# One rule for removals: a remove_symbol step refuses as `gateway remove-symbol` does.


def _remove(symbol: str, force: str | None = None, step_id: str = "rm") -> str:
    return f'\n[[steps]]\nid = "{step_id}"\nfile = "{SHAPES}"\naction = "remove_symbol"\nsymbol = "{symbol}"\n' + (f"force = {force}\n" if force else "")


@pytest.mark.usefixtures("servers")
def test_a_removal_still_referenced_is_refused_and_writes_nothing(gateway: Gateway, workspace: Path) -> None:
    # A first step that would succeed: the refusal must not leave it written.
    path = write_contract(workspace, _step(anchor=DOC_BEFORE, text=DOC_AFTER).replace('"s2"', '"doc"') + _remove("area"))
    before = snapshot(workspace)
    result = gateway.contract_apply(str(path)).to_json()
    assert not result["ready"] and not result["applied"] and snapshot(workspace) == before
    (problem,) = result["problems"]
    assert (problem["code"], problem["step"], result["error"]["code"]) == ("referenced", "rm", "referenced")
    assert problem["message"] == (f"step rm: {SHAPES}: area is still referenced at {USE}:1, {USE}:5; nothing removed "
                                  "(change those places first, or remove it anyway with `force = true` in step rm)"), problem
    assert [s["status"] for s in result["steps"]] == ["ready", "refused"]


@pytest.mark.usefixtures("servers")
def test_a_forced_removal_is_applied_and_names_what_it_breaks(gateway: Gateway, workspace: Path) -> None:
    (workspace / ".gateway").mkdir(exist_ok=True)
    (workspace / ".gateway" / "config.toml").write_text("[verify]\nbudget_ms = 20000\n")
    result = gateway.contract_apply(str(write_contract(workspace, _remove("area", "true")))).to_json()
    assert result["applied"], result["problems"]
    assert "def area(" not in (workspace / SHAPES).read_text()
    assert result["verified"] == "checked", result
    assert [(e["path"], e["line"]) for e in result["new_errors"]] == [(USE, 1)], result["new_errors"]


@pytest.mark.usefixtures("servers")
def test_an_unreferenced_removal_is_applied(gateway: Gateway, workspace: Path) -> None:
    result = gateway.contract_apply(str(write_contract(workspace, _remove("perimeter")))).to_json()
    assert result["applied"], result["problems"]
    assert "def perimeter(" not in (workspace / SHAPES).read_text()


@pytest.mark.usefixtures("servers")
def test_references_an_earlier_step_removed_do_not_refuse(gateway: Gateway, workspace: Path) -> None:
    unused = "def total(sizes):\n    return sum(w * h for w, h in sizes)\n"
    body = (_step(file=USE, anchor="from pkg.shapes import area\n", text="").replace('"s2"', '"unimport"')
            + _step("replace_symbol", file=USE, symbol="total", text=unused).replace('"s2"', '"rewrite"') + _remove("area"))
    result = gateway.contract_apply(str(write_contract(workspace, body))).to_json()
    assert result["applied"], result["problems"]
    assert "def area(" not in (workspace / SHAPES).read_text() and (workspace / USE).read_text() == "\n\n" + unused


def test_force_must_be_a_boolean_of_a_removal(gateway: Gateway, workspace: Path) -> None:
    path = write_contract(workspace, _remove("area", '"yes"') + _step("replace_symbol", symbol="area", text="x").replace(
        'symbol = "area"\n', 'symbol = "area"\nforce = true\n'))
    problems = gateway.contract_check(str(path)).to_json()["problems"]
    lines = path.read_text().splitlines()
    assert [(p["code"], p["step"], lines[p["line"] - 1]) for p in problems] == [("schema", "rm", 'force = "yes"'), ("schema", "s2", "[[steps]]")]
    assert problems[0]["message"] == "[[steps]] #1 (rm): `force` must be true or false, not 'yes'"
    assert problems[1]["message"] == "[[steps]] #2 (s2): only a remove_symbol step takes `force`"


@pytest.mark.usefixtures("servers")
def test_a_text_step_removing_a_referenced_definition_is_refused_as_referenced(gateway: Gateway, workspace: Path) -> None:
    removal = "def area(width, height):\n    return width * height\n"
    result = gateway.contract_check(str(write_contract(workspace, _step("delete", anchor=removal).replace('"s1"', '"cut"')))).to_json()
    (problem,) = result["problems"]
    assert problem["code"] == "referenced" and problem["message"] == (
        f"step cut: {SHAPES}: area is still referenced at {USE}:1, {USE}:5; nothing removed "
        "(change those places first, or remove it anyway with a remove_symbol step with `force = true`)"), problem
    unreferenced = "def perimeter(width, height):\n    return 2 * (width + height)\n"
    result = gateway.contract_check(str(write_contract(workspace, _step("delete", anchor=unreferenced)))).to_json()
    assert result["problems"][0]["code"] == "structural" and 'action = "remove_symbol"' in result["problems"][0]["message"]
