"""Contracts under attack: planted journals, option-like bases, catastrophic regexes, escaping
validation children, validations writing elsewhere. Nothing is written outside the workspace."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from gateway.api import Gateway
from gateway.surfaces.cli import run
from gateway.contracts.journal import SIGNED_AS
from gateway.userstate import sign

FIXTURES = Path(__file__).parent / "fixtures"
DOC = '"""A shape."""'


def contract(root: Path, body: str = "", steps: bool = True, name: str = "plan.toml", cid: str = "c") -> Path:
    text = f'[contract]\nid = "{cid}"\nsummary = "s"\n\n[[files]]\npath = "pkg/shapes.py"\n'
    if steps:
        text += f'\n[[steps]]\nid = "doc"\nfile = "pkg/shapes.py"\naction = "replace"\nanchor = {json.dumps(DOC)}\ntext = {json.dumps(chr(34) * 3 + "A figure." + chr(34) * 3)}\n'
    path = root / name
    path.write_text(text + body)
    return path


def plant(root: Path, entries: list[dict], signed: bool) -> Path:
    runs = root / ".gateway" / "state" / "contract-runs"
    runs.mkdir(parents=True, exist_ok=True)
    record = {"run": "r1", "contract": "x", "pid": 999_999_999, "started": "", "files": entries}
    path = runs / "r1.json"
    path.write_text(json.dumps(sign(record, SIGNED_AS) if signed else record))
    return path


def entry(path: str, data: bytes = b"owned\n", mode: int | None = 0o644) -> dict:
    return {"path": path, "original": base64.b64encode(data).decode(), "mode": mode, "written_sha256": "0" * 64}


@pytest.mark.parametrize(
    ("entries", "signed", "says"),
    [
        ([entry("../outside.txt")], False, "forged"),
        ([entry("../outside.txt")], True, "leaves the workspace"),
        ([entry("pkg/evil", mode=0o4755)], True, "setuid"),
        ([entry("link/evil")], True, "symlink"),
        ([entry(".gateway/config.toml")], True, "state"),
    ],
)
def test_a_planted_journal_is_refused_and_never_acted_on(workspace: Path, tmp_path: Path, entries: list, signed: bool, says: str, capsys: pytest.CaptureFixture[str]) -> None:
    (workspace / "link").symlink_to(tmp_path)
    plant(workspace, entries, signed)
    plan = contract(workspace)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert run(["contract", "check", str(plan), "--workspace", str(workspace)]) != 0
    assert run(["contract", "apply", str(plan), "--workspace", str(workspace)]) != 0
    assert says in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written outside
    assert not (workspace / "pkg" / "evil").exists()
    assert DOC in (workspace / "pkg" / "shapes.py").read_text()  # and nothing applied


@pytest.mark.usefixtures("processes")
def test_an_option_like_base_is_refused_and_creates_nothing(workspace: Path, tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workspace, check=True)
    target = tmp_path / "made-by-git-diff"
    plan = contract(workspace)
    plan.write_text(plan.read_text().replace('summary = "s"', f'summary = "s"\nbase = "--output={target}"'))
    with Gateway(workspace) as gateway:
        checked = gateway.contract_check(str(plan)).to_json()
    assert not checked["ready"] and "is not a commit" in checked["problems"][0]["message"]
    assert not target.exists()


@pytest.mark.parametrize(("pattern", "code"), [("(a+)+b", "anchor_missing"), ("(a|aa)+b", "anchor_too_slow")])
def test_a_catastrophic_anchor_regex_is_cut_off(workspace: Path, pattern: str, code: str) -> None:
    (workspace / "pkg" / "shapes.py").write_text("a" * 60 + "\n")
    plan = contract(workspace, steps=False)
    plan.write_text(plan.read_text() + f'\n[[steps]]\nid = "r"\nfile = "pkg/shapes.py"\naction = "delete"\nanchor_regex = "{pattern}"\n')
    with Gateway(workspace) as gateway:
        checked = gateway.contract_check(str(plan)).to_json()
    assert checked["problems"][0]["code"] == code  # anchor_too_slow: the regex's own time limit cut it off


def _sleepers(marker: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        if marker in " ".join(process.info["cmdline"] or []):
            found.append(process)
    return found


@pytest.mark.usefixtures("processes")
def test_a_validation_child_that_left_the_session_is_killed_at_the_timeout(workspace: Path) -> None:
    marker = f"{uuid.uuid4().int % 1000}.{uuid.uuid4().int % 997 + 1}"
    plan = contract(workspace, f'\n[[validate]]\nrun = "setsid sleep {marker} & sleep {marker}"\ntimeout = 2\n')
    with Gateway(workspace) as gateway:
        result = gateway.contract_apply(str(plan)).to_json()
    validation = result["validations"][0]
    assert validation["timed_out"] and validation["duration_s"] < 3.0 and result["rolled_back"]
    assert _sleepers(f"sleep {marker}") == []


@pytest.mark.usefixtures("processes")
def test_a_daemonised_validation_child_does_not_outlive_apply(workspace: Path) -> None:
    marker = f"{uuid.uuid4().int % 1000}.{uuid.uuid4().int % 991 + 1}"
    plan = contract(workspace, f'\n[[validate]]\nrun = "(setsid sh -c \'sleep {marker}\' > /dev/null 2>&1 &) ; true"\ntimeout = 20\n')
    with Gateway(workspace) as gateway:
        result = gateway.contract_apply(str(plan)).to_json()
    assert result["validated"] and result["validations"][0]["duration_s"] < 5
    assert _sleepers(f"sleep {marker}") == []


@pytest.mark.usefixtures("processes")
def test_a_validation_that_changes_an_unlisted_file_fails_and_everything_is_put_back(workspace: Path) -> None:
    use = (workspace / "pkg" / "use.py").read_bytes()
    plan = contract(workspace, '\n[[validate]]\nrun = "echo tampered >> pkg/use.py && touch pkg/new.py && mkdir -p .gateway && echo x > .gateway/config.toml"\ntimeout = 10\n')
    with Gateway(workspace) as gateway:
        result = gateway.contract_apply(str(plan)).to_json()
    assert not result["validated"] and result["rolled_back"]
    assert result["validations"][-1]["changed_unlisted"] == [".gateway/config.toml (created)", "pkg/new.py (created)", "pkg/use.py (changed)"]
    assert (workspace / "pkg" / "use.py").read_bytes() == use
    assert not (workspace / "pkg" / "new.py").exists() and not (workspace / ".gateway" / "config.toml").exists()
    assert DOC in (workspace / "pkg" / "shapes.py").read_text()


def test_a_contract_cannot_list_the_gateway_config(workspace: Path) -> None:
    plan = contract(workspace, '\n[[files]]\npath = ".gateway/config.toml"\n')
    with Gateway(workspace) as gateway:
        checked = gateway.contract_check(str(plan)).to_json()
    assert checked["problems"][0]["code"] == "protected"


def test_a_contract_outside_the_workspace_is_refused(workspace: Path, tmp_path: Path) -> None:
    outside = contract(tmp_path, '\n[[validate]]\nrun = "touch marker"\ntimeout = 5\n')
    assert run(["contract", "apply", str(outside), "--workspace", str(workspace)]) == 1
    assert not (workspace / "marker").exists() and not (tmp_path / "marker").exists()


APPLY_SLOWLY = """
import sys
from gateway.api import Gateway
with Gateway(sys.argv[1]) as gateway:
    print(gateway.contract_apply(sys.argv[2]).to_json()["validated"])
"""


@pytest.mark.usefixtures("processes")
def test_another_contracts_apply_does_not_undo_a_run_still_validating(workspace: Path) -> None:
    slow = contract(workspace, '\n[[validate]]\nrun = "sleep 4"\ntimeout = 30\n', name="slow.toml", cid="slow")
    other = workspace / "other.toml"
    other.write_text('[contract]\nid = "other"\nsummary = "s"\n\n[[files]]\npath = "pkg/new.txt"\n\n'
                     '[[steps]]\nid = "n"\nfile = "pkg/new.txt"\naction = "create"\ntext = "n\\n"\n')
    process = subprocess.Popen([sys.executable, "-c", APPLY_SLOWLY, str(workspace), str(slow)], stdout=subprocess.PIPE, text=True)
    runs = workspace / ".gateway" / "state" / "contract-runs"
    deadline = time.monotonic() + 60
    shapes = workspace / "pkg" / "shapes.py"
    while not ('"""A figure."""' in shapes.read_text() and runs.is_dir() and any(runs.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.05)  # the slow run has written and is validating
    with Gateway(workspace) as gateway:
        assert gateway.contract_apply(str(other)).to_json()["validated"]
        assert '"""A figure."""' in (workspace / "pkg" / "shapes.py").read_text()  # the live run's write stands
    assert process.communicate(timeout=60)[0].strip() == "True"
    assert '"""A figure."""' in (workspace / "pkg" / "shapes.py").read_text()


def test_a_run_that_ends_while_another_reads_the_runs_folder_still_counts_as_writing(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Listed while running, its journal gone and its `.done` written before it is read: the
    files it wrote are still another run's, not changes to put back (a CI failure under load)."""
    from gateway.contracts import journal

    since = time.time()
    journal.write_journal(workspace, "other", "c", [journal.JournalEntry("pkg/new.txt", None, None, "0" * 64)])
    runs = workspace / ".gateway" / "state" / "contract-runs"
    listing = [runs / "other.json"]  # the folder as listed while the run was still going ...
    journal.finish_journal(workspace, "other")  # ... which ended before its journal was read
    real_iterdir = Path.iterdir
    monkeypatch.setattr(Path, "iterdir", lambda self: iter(listing) if self == runs else real_iterdir(self))
    assert journal.written_by_others(workspace, "mine", since) == {"pkg/new.txt"}
