"""Writes that lose nothing: another process's appends, read-only files, encodings that do not
round-trip, and the temporary files of a write killed half-way."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gateway.api import Gateway
from gateway.errors import Stale, Unencodable, WriteFailed
from gateway.workspace import Workspace

SOURCE = "def f():\n    x = 1\n    return x\n"

APPEND = """
import random, sys, time
for i in range(int(sys.argv[2])):
    with open(sys.argv[1], "a") as handle:
        handle.write(f"# appended {i}\\n")
    time.sleep(random.uniform(0, 0.01))
"""


@pytest.mark.usefixtures("processes")
def test_appends_by_another_process_during_edits_are_never_lost(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    workspace, edits, value = Workspace(tmp_path), 0, 1
    appender = subprocess.Popen([sys.executable, "-c", APPEND, str(path), "600"])
    while appender.poll() is None:
        source = workspace.read("m.py")
        try:
            workspace.write(source, source.text.replace(f"x = {value}\n", f"x = {value + 1}\n"))
            edits, value = edits + 1, value + 1
        except Stale:
            pass
    assert appender.wait() == 0
    text = path.read_text()
    lost = [i for i in range(600) if f"# appended {i}\n" not in text]
    assert edits >= 50, f"the race needs edits to overlap the appends; only {edits} were made"
    assert lost == [], f"{len(lost)} of 600 appends lost over {edits} edits"
    assert text.startswith(f"def f():\n    x = {value}\n    return x\n")


@pytest.mark.usefixtures("processes")
def test_a_read_only_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text(SOURCE)
    path.chmod(0o444)
    with pytest.raises(WriteFailed, match=r"m.py: read-only \(mode 0444\)"):
        Gateway(tmp_path).edit("m.py", "x = 1", "x = 2")
    done = subprocess.run([sys.executable, "-m", "gateway", "edit", "m.py", "--old", "x = 1", "--new", "x = 2"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (1, "gateway: m.py: read-only (mode 0444); the file is unchanged\n")
    assert path.read_text() == SOURCE and (path.stat().st_mode & 0o777) == 0o444
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".gateway-tmp")]


def test_an_encoding_that_does_not_round_trip_is_refused_not_re_encoded(tmp_path: Path) -> None:
    data = b"# coding: utf-7\nx = 1\ny = 'a+AGE-b'\n"  # '+AGE-' decodes to 'a', which encodes back as 'a'
    path = tmp_path / "m.py"
    path.write_bytes(data)
    with pytest.raises(Unencodable, match="utf-7"):
        Gateway(tmp_path).edit("m.py", "x = 1", "x = 2")
    assert path.read_bytes() == data


def test_a_round_tripping_cookie_encoding_is_still_written(tmp_path: Path) -> None:
    data = "# -*- coding: latin-1 -*-\nx = 1\ns = 'café'\n".encode("latin-1")
    (tmp_path / "m.py").write_bytes(data)
    Gateway(tmp_path).edit("m.py", "x = 1", "x = 2")
    assert (tmp_path / "m.py").read_bytes() == data.replace(b"x = 1", b"x = 2")


KILLED_MID_WRITE = """
import os, sys, time
import gateway.atomic
from gateway.api import Gateway

def stop_before_renaming(*args):
    print("written aside", flush=True)
    time.sleep(60)

gateway.atomic.os.replace = stop_before_renaming
Gateway(sys.argv[1]).edit("m.py", "x = 1", "x = 2")
"""


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".gateway-tmp"))


def _killed_mid_write(workspace: Path) -> str:
    process = subprocess.Popen([sys.executable, "-c", KILLED_MID_WRITE, str(workspace)], stdout=subprocess.PIPE, text=True)
    assert process.stdout and process.stdout.readline() == "written aside\n"
    left = _temps(workspace)
    assert left and all(f".gw{process.pid}-" in name for name in left)
    process.send_signal(signal.SIGKILL)
    process.wait()
    return left[0]


@pytest.mark.usefixtures("processes")
def test_the_temp_file_of_a_killed_write_is_removed_by_the_next_check(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    _killed_mid_write(tmp_path)
    assert (tmp_path / "m.py").read_text() == SOURCE
    Gateway(tmp_path).classify("m.py", "x = 1", "x = 3")
    assert _temps(tmp_path) == []


@pytest.mark.usefixtures("processes")
def test_the_temp_file_of_a_killed_write_is_removed_by_the_next_write(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(SOURCE)
    (tmp_path / "n.py").write_text(SOURCE)
    _killed_mid_write(tmp_path)
    live = tmp_path / f".n.py.gw{os.getpid()}-live.gateway-tmp"  # a write in progress, by a live process
    live.write_text("")
    Gateway(tmp_path).edit("m.py", "x = 1", "x = 3")
    Gateway(tmp_path).edit("n.py", "x = 1", "x = 3")
    assert _temps(tmp_path) == [live.name]
