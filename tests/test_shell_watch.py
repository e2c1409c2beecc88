"""The daemon's inotify watch of the workspace (gateway.watcher, issue 36): the check after a shell
command stats only the paths with events since the check before it, and says what the full walk
says. Every doubt falls back to the walk: a queue overflow, the watch limit, a directory created
or moved in, the ignore rules changed, the periodic full walk. Each command really runs in bash
between the host's hooks; the watch is the daemon's own class, registered in this process."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gateway import shell_record, snapshot, watcher
from gateway.typed.baseline import witness_path
from tests.test_daemon import _start, _status, _wait_for, env, gateway  # noqa: F401 (env: a fixture)
from tests.test_security_enforcement_baseline import _bodies
from tests.test_security_shell import run_through_hooks
from tests.test_shell_report import GIT, SED_HEADER, TS, hook, through_hooks
from tests.hosts.sample import SOURCE

pytestmark = [pytest.mark.usefixtures("processes"), pytest.mark.skipif(sys.platform != "linux", reason="inotify is Linux's"),
              pytest.mark.workspace(copy=None, git="commit", files={
                  "prices.py": SOURCE, "shapes.ts": TS, "README.md": "notes\n", "pkg/util.py": "def util():\n    return 1\n",
                  ".gitignore": "gen_*.py\nbuild/\n", "gen_old.py": "def old():\n    return 0\n", "build/out.py": "x = 1\n"})]
HELPER = "printf 'def helper(x):\\n    return x\\n' > {}"
ADDED_HELPER = "{} line 1: added function `helper`"


@pytest.fixture
def watched(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[watcher.Watcher]:
    """The workspace watched as the daemon watches its own."""
    watch = watcher.Watcher(workspace)
    monkeypatch.setitem(watcher._watchers, workspace, watch)
    assert watch.since(None) is not None
    watch.start_reading()
    yield watch
    watch.close()


@pytest.fixture(params=["watched", "walked"])
def either(request: pytest.FixtureRequest, workspace: Path) -> Path:
    """The workspace, watched or not: each answer is the same."""
    if request.param == "watched":
        request.getfixturevalue("watched")
    return workspace


def _stats(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the record's scans stat from now on (each by the real `lstat_at`)."""
    stat_at, seen = shell_record.lstat_at, []

    def counted(root_fd: int, path: str) -> os.stat_result | None:
        seen.append(path)
        return stat_at(root_fd, path)

    monkeypatch.setattr(shell_record, "lstat_at", counted)
    return seen


def test_only_the_paths_with_events_are_stat_ed(workspace: Path, watched: watcher.Watcher, monkeypatch: pytest.MonkeyPatch) -> None:
    assert through_hooks(workspace, "true") == ""  # the first record of the workspace stats every file
    stats = _stats(monkeypatch)
    said = through_hooks(workspace, SED_HEADER, use_id="toolu_2")
    assert "prices.py line 9: changed the header of method `PriceList/total`" in said
    assert "pkg/util.py" not in stats and "shapes.ts" not in stats
    assert "prices.py" in stats


def test_a_command_that_changes_no_source_file_writes_no_copy_of_the_index(either: Path) -> None:
    """The index (the record kept as the next command's stat cache) is written again only when
    the files it holds change; the command's own record still is, and the report is the same."""
    assert through_hooks(either, "true") == ""
    index = shell_record._directory(either) / shell_record.INDEX
    written = index.stat()
    assert through_hooks(either, "git status --porcelain", use_id="toolu_2") == ""
    assert index.stat().st_ino == written.st_ino and index.stat().st_mtime_ns == written.st_mtime_ns
    said = through_hooks(either, HELPER.format("pkg/new.py"), use_id="toolu_3")
    assert ADDED_HELPER.format("pkg/new.py") in said and index.stat().st_ino != written.st_ino


def test_a_commands_record_names_the_files_it_shares_and_a_change_writes_them_once(either: Path) -> None:
    """The command's record is a small head naming the bodies of files the index already holds: a
    command that changes nothing writes no copy of the files; one that changes a file writes the
    one body that holds it."""
    assert through_hooks(either, "true") == ""
    directory = shell_record._directory(either)
    bodies = {p.name: p.stat().st_ino for p in directory.glob("files-*.json")}
    payload = {"tool_name": "Bash", "tool_use_id": "toolu_2", "session_id": "s", "cwd": str(either),
               "tool_input": {"command": "git status --porcelain"}}
    assert hook("claude-code", {**payload, "hook_event_name": "PreToolUse"}) is None
    heads = [json.loads(p.read_text()) for p in directory.glob("*.json") if len(p.stem) == 32]
    assert len(heads) == 1 and "files" not in heads[0] and set(heads[0]["bodies"]) <= bodies.keys()
    assert hook("claude-code", {**payload, "hook_event_name": "PostToolUse"}) is None
    assert {p.name: p.stat().st_ino for p in directory.glob("files-*.json")} == bodies
    said = through_hooks(either, HELPER.format("pkg/new.py"), use_id="toolu_3")
    assert ADDED_HELPER.format("pkg/new.py") in said
    assert len(set(p.name for p in directory.glob("files-*.json")) - bodies.keys()) == 1


@pytest.mark.parametrize("mode", ["created", "moved in"])
def test_a_directory_made_during_the_command_counts_whole(either: Path, tmp_path: Path, mode: str) -> None:
    if mode == "created":
        command = f"mkdir -p lib/deep && {HELPER.format('lib/deep/mod.py')}"
    else:
        (tmp_path / "outside" / "deep").mkdir(parents=True)
        (tmp_path / "outside" / "deep" / "mod.py").write_text("def helper(x):\n    return x\n")
        command = f"mv {tmp_path / 'outside'} lib"
    assert through_hooks(either, "true") == ""
    said = through_hooks(either, command, use_id="toolu_2")
    assert ADDED_HELPER.format("lib/deep/mod.py") in said


def test_what_git_ignores_stays_out(either: Path) -> None:
    assert through_hooks(either, "true") == ""
    command = f"{HELPER.format('gen_new.py')} && {HELPER.format('build/made.py')} && mkdir -p build/sub && {HELPER.format('build/sub/m.py')}"
    assert through_hooks(either, command, use_id="toolu_2") == ""


def test_ignore_rules_changed_by_the_command_list_what_git_lists(either: Path) -> None:
    assert through_hooks(either, "true") == ""
    said = through_hooks(either, "printf 'build/\\n' > .gitignore", use_id="toolu_2")
    assert "gen_old.py line 1: added function `old`" in said  # git lists it now: as the walk says


def test_a_queue_overflow_falls_back_to_the_walk(workspace: Path, watched: watcher.Watcher) -> None:
    assert through_hooks(workspace, "true") == ""
    events = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text()) + 1000
    flood = (f"python3 -c \"import os; a, b = (os.open(p, os.O_WRONLY | os.O_APPEND) for p in ('README.md', 'notes.txt'))\n"
             f"for i in range({events // 2}): os.write(a, b'x'); os.write(b, b'y')\"")
    (workspace / "notes.txt").write_text("")
    said = through_hooks(workspace, f"{flood} && {SED_HEADER}", use_id="toolu_2")
    assert "prices.py line 9: changed the header of method `PriceList/total`" in said
    assert not watched.unwatched


def test_past_the_watch_limit_every_check_walks(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    counted = watcher.Watcher(workspace)
    counted.since(None)
    directories = len(counted._dirs)
    counted.close()
    limited = watcher.Watcher(workspace, max_watches=directories)  # full: the next directory cannot be watched
    monkeypatch.setitem(watcher._watchers, workspace, limited)
    assert limited.since(None) is not None
    assert through_hooks(workspace, "true") == ""
    said = through_hooks(workspace, f"mkdir lib && {HELPER.format('lib/mod.py')} && {SED_HEADER}", use_id="toolu_2")
    assert ADDED_HELPER.format("lib/mod.py") in said and "changed the header of method `PriceList/total`" in said
    assert "more than" in limited.unwatched and limited.since(None) is None
    limited.close()


def test_a_write_inotify_misses_is_caught_by_the_periodic_walk(workspace: Path, watched: watcher.Watcher, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A write through another hard link (here from outside the workspace) raises no event for it; the stat
    walk at most STAT_WALK_SECONDS after the last one sees it."""
    link = tmp_path / "prices-link.py"
    os.link(workspace / "prices.py", link)
    assert through_hooks(workspace, "true") == ""
    monkeypatch.setattr(watcher, "STAT_WALK_SECONDS", 0.0)
    write = f"python3 -c \"p = '{link}'; s = open(p).read(); open(p, 'w').write(s.replace('def total(self, tax):', 'def total(self, tax, rate=1):'))\""
    said = through_hooks(workspace, write, use_id="toolu_2")
    assert "prices.py line 9: changed the header of method `PriceList/total`" in said


@pytest.mark.workspace(enforce=True, git="commit", files={"prices.py": SOURCE, "pkg/util.py": "def util():\n    return 1\n"})
def test_enforcement_puts_back_each_command_while_watched(workspace: Path, watched: watcher.Watcher) -> None:
    original = (workspace / "prices.py").read_bytes()
    for number, command in enumerate([SED_HEADER, SED_HEADER, f"mkdir -p lib/deep && {HELPER.format('lib/deep/mod.py')}"]):
        ran, answer = run_through_hooks(workspace, command)
        assert ran == "ran" and answer is not None, (number, answer)
        assert "without a live grant" in str(answer), (number, answer)
        assert (workspace / "prices.py").read_bytes() == original
    assert not (workspace / "lib" / "deep" / "mod.py").exists()
    shutil.rmtree(workspace / "lib")
    assert run_through_hooks(workspace, "git status --porcelain") == ("ran", None)


@pytest.mark.workspace(enforce=True, git="commit", files={"prices.py": SOURCE, "pkg/util.py": "def util():\n    return 1\n"})
def test_a_file_put_back_is_not_stored_again_while_watched(workspace: Path, watched: watcher.Watcher) -> None:
    """The file put back has a new stat and its old bytes: the checks after it write the head alone."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    bodies, witness = _bodies(workspace), witness_path(workspace).stat()
    ran, answer = run_through_hooks(workspace, SED_HEADER)
    assert ran == "ran" and answer is not None and "prices.py (changed)" in answer["reason"]
    assert run_through_hooks(workspace, "true") == ("ran", None)
    assert _bodies(workspace) == bodies and witness_path(workspace).stat().st_ino == witness.st_ino


@pytest.mark.workspace(enforce=True, git="commit", files={"prices.py": SOURCE, "pkg/util.py": "def util():\n    return 1\n"})
def test_enforcement_stats_only_the_paths_with_events_while_watched(workspace: Path, watched: watcher.Watcher,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """Both checks around a command (the one before it records it, the one after compares) look
    only at the paths with events: the record keeps the watch's moment it holds at."""
    assert run_through_hooks(workspace, "true") == ("ran", None)
    seen: list[str] = []
    for module in (snapshot, watcher):
        stat_at = module.lstat_at
        monkeypatch.setattr(module, "lstat_at", lambda root_fd, path, stat_at=stat_at: (seen.append(path), stat_at(root_fd, path))[1])
    ran, answer = run_through_hooks(workspace, SED_HEADER)
    assert ran == "ran" and answer is not None and "prices.py (changed)" in answer["reason"]
    assert "pkg/util.py" not in seen and "prices.py" in seen


@pytest.mark.workspace(enforce=True, git="commit", files={"prices.py": SOURCE, "pkg/util.py": "def util():\n    return 1\n"})
def test_a_touched_file_changed_later_is_still_put_back_while_watched(workspace: Path, watched: watcher.Watcher) -> None:
    """A watched check keeps a touched file's earlier stat (its content is the same); the write
    after it is an event, and is caught, as is one found by the periodic stat walk."""
    original = (workspace / "prices.py").read_bytes()
    assert run_through_hooks(workspace, "touch prices.py") == ("ran", None)
    assert run_through_hooks(workspace, "true") == ("ran", None)
    ran, answer = run_through_hooks(workspace, "echo 'evil = 1' >> prices.py")
    assert ran == "ran" and answer is not None and "prices.py (changed)" in answer["reason"]
    assert (workspace / "prices.py").read_bytes() == original
    assert run_through_hooks(workspace, "touch prices.py") == ("ran", None)
    watched._walked_at = 0.0  # the periodic walk: the listing and every stat taken again
    assert run_through_hooks(workspace, "true") == ("ran", None)


def test_git_index_changes_list_what_git_lists(either: Path) -> None:
    """`git add -f` takes an ignored file in without an event on it; `git rm --cached` lets one go."""
    assert through_hooks(either, "true") == ""
    said = through_hooks(either, f"git add -f gen_old.py && {GIT[0]} rm -q --cached pkg/util.py", use_id="toolu_2")
    assert "gen_old.py line 1: added function `old`" in said
    assert "- pkg/util.py" not in said and "other source file" not in said  # untracked now, not ignored: listed, unchanged


def test_the_watch_lists_git_index_changes_as_they_come_not_in_the_check(workspace: Path, watched: watcher.Watcher,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Between checks the watch's own thread reads the events: git's index, rewritten by `git add
    -f`, is listed there; the check after it asks git nothing and lists the file git took in."""
    listed_by, listing = [], watcher.tracked
    monkeypatch.setattr(watcher, "tracked", lambda root: (listed_by.append(threading.current_thread().name), listing(root))[1])
    subprocess.run(["git", "add", "-f", "gen_old.py"], cwd=workspace, check=True)
    assert _wait_for(lambda: listed_by, 10)
    found = watched.since(None)
    assert found is not None and "gen_old.py" in found.listing
    assert listed_by == ["gateway-watch"]


def test_a_file_a_command_made_and_removed_is_not_listed_though_read_ahead(workspace: Path, watched: watcher.Watcher) -> None:
    """`sed -i` writes a file aside and renames it over the one it edits: the watch's thread may
    read its creation before the rename; the check takes the events in together, as git would
    list the workspace after the command: the file aside is not listed."""
    first = watched.since(None)
    assert first is not None
    aside = workspace / "pkg" / "sedAbC123"
    aside.write_text("def util():\n    return 2\n")
    assert _wait_for(lambda: watched._backlog, 10)  # read ahead, not taken in yet
    aside.replace(workspace / "pkg" / "util.py")
    found = watched.since(first.mark)
    assert found is not None and "pkg/sedAbC123" not in found.listing and found.listing is first.listing
    assert found.changed is not None and "pkg/util.py" in found.changed


def _watches(pid: int) -> bool:
    """Whether the process holds an inotify descriptor."""
    with contextlib.suppress(OSError):
        return any(os.readlink(fd) == "anon_inode:inotify" for fd in Path(f"/proc/{pid}/fd").iterdir())
    return False


def test_the_daemon_watches_its_workspace_and_answers_through_the_watch(env: dict[str, str], workspace: Path) -> None:  # noqa: F811
    """A real daemon, the hooks as the host runs them: it watches the workspace as it starts."""
    pid = _start(env, workspace)["pid"]
    assert _wait_for(lambda: _watches(pid))
    command = f"mkdir -p lib/deep && {HELPER.format('lib/deep/mod.py')} && {SED_HEADER}"
    for number, (run, expected) in enumerate([("true", []), (command, [ADDED_HELPER.format("lib/deep/mod.py"), "changed the header"])]):
        payload = {"tool_name": "Bash", "tool_use_id": f"toolu_{number}", "session_id": "s", "cwd": str(workspace), "tool_input": {"command": run}}
        before = gateway(env, "hook", "claude-code", stdin=json.dumps({**payload, "hook_event_name": "PreToolUse"}))
        assert before.returncode == 0 and before.stdout == ""
        subprocess.run(["bash", "-c", run], cwd=workspace, check=True, timeout=60)
        after = gateway(env, "hook", "claude-code", stdin=json.dumps({**payload, "hook_event_name": "PostToolUse"}))
        assert after.returncode == 0 and all(line in after.stdout for line in expected), after.stdout
    assert (_status(workspace) or {}).get("requests", 0) >= 4  # the hooks were answered by the daemon


@pytest.mark.workspace(enforce=True, git="commit", files={"prices.py": SOURCE, ".gitignore": ".gateway/\n"})
def test_the_gateways_own_configuration_is_watched_even_where_git_ignores_it(workspace: Path, watched: watcher.Watcher) -> None:
    config = (workspace / ".gateway" / "config.toml").read_bytes()
    assert run_through_hooks(workspace, "true") == ("ran", None)  # the checks after it are the watch's
    ran, answer = run_through_hooks(workspace, "printf '[typed_edits]\\nenforce = false\\n' > .gateway/config.toml")
    assert ran == "ran" and ".gateway/config.toml" in str(answer), answer
    assert (workspace / ".gateway" / "config.toml").read_bytes() == config
