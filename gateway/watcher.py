"""A git workspace watched with inotify in the daemon (Linux), so that the check after a shell
command (gateway.shell_record; enforcement's gateway.snapshot.scan) stats and reads again only
the paths with events since the check before it, and lists the workspace without git walking it.

Each check asks `since(root, mark)`: the watch's events are read until the queue is empty (the
kernel queues an event within the write that causes it, so a command that has exited has left
all of its own), and the answer is the listing now (`snapshot.listed`, kept current from the
events), the paths with an event since `mark`, and the mark of now. A record keeps its mark in
memory only: one read back from disk, or from another daemon, has none. In the daemon a thread
of the watch's own reads the events as they come (`Watcher.start_reading`), so that a check
finds little left to read: git's index is listed again when it changes (an agent's own `git
status` rewrites it) between commands, not in the check after them.

Any doubt answers `changed=None` (every listed file is stat-ed again, the walk the check does
without a daemon), and so does a mark whose states were last stat-ed whole more than
STAT_WALK_SECONDS ago. On doubt the watch and the listing are made again from the files: the event queue
overflowed; a directory was moved, or a `.gitignore`, `.git/config` or `.git/info/exclude`
changed (what git lists may have changed with no event on the files); a `.git` appeared below
the root; more than MAX_APPEARED new paths; FULL_WALK_SECONDS since the last walk. A watch that
cannot be added (the user's `fs.inotify.max_user_watches`, or MAX_WATCHES) leaves the workspace
unwatched: every check walks, as without a daemon. A directory created (or moved in) meanwhile is
watched, and everything under it counts as changed. Directories git ignores are not watched.

Not seen by inotify: a write through a shared memory map (`mmap`), and one through another hard
link to the file (the event names the path written). The stat walk at most STAT_WALK_SECONDS
after the last one catches those.
"""

from __future__ import annotations

import errno
import itertools
import os
import select
import stat
import threading
import time
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from gateway.gitcalls import git
from gateway.snapshot import Mark
from gateway.snapshot_paths import GATEWAY_DIR, Stats, listed, listed_and_stats, lstat_at, opened_directory
from gateway.watcher_git import Unwatched, check_ignore, ignored_directories, tracked

try:
    from inotify_simple import Event, INotify, flags
except ImportError:  # not Linux: every check walks
    INOTIFY = False
else:
    INOTIFY = True

FULL_WALK_SECONDS = 600.0
STAT_WALK_SECONDS = 60.0
READ_WAIT_SECONDS = 0.5
MAX_WATCHES = 100_000
MAX_APPEARED = 1000
MAX_CHANGED = 200_000
STATE_DIR_NAME = "state"
_tokens = itertools.count(1)


@dataclass(frozen=True)
class Since:
    """The listing now, the paths with an event since the mark asked about (None: not known, stat
    every one), and the mark of now."""

    listing: frozenset[str]
    changed: frozenset[str] | None
    mark: Mark


class Watcher:
    """One workspace's directories under inotify, and its listing kept current from their events."""

    def __init__(self, root: Path, max_watches: int = MAX_WATCHES) -> None:
        self.root = root
        self.max_watches = max_watches
        self._lock = threading.Lock()
        self._inotify: INotify | None = None
        self._dirs: dict[int, str] = {}  # watch descriptor -> directory relative to root ("" the root)
        self._seq = 0
        self._valid_from = 0  # marks before it are of no use
        self._changed: dict[str, int] = {}  # path -> seq of its last event
        self._backlog: list[Event] = []  # events read ahead, not taken in yet
        self._ahead: tuple[set[str], set[str], set[str]] | None = None  # git's index listed since its last change: held, taken in, let go
        self._listing: set[str] = set()
        self._frozen: frozenset[str] | None = None  # the listing given out, while unchanged
        self._tracked: set[str] = set()
        self._walked_at = 0.0
        self._doubt = "not watched yet"
        self._unwatched = ""
        self._token = next(_tokens)

    def close(self) -> None:
        with self._lock:
            self._give_up("closed")

    def since(self, mark: Mark | None) -> Since | None:
        """What changed since `mark` (see the module); None when the workspace is not watched."""
        with self._lock:
            if self._unwatched:
                return None
            try:
                if not self._doubt:
                    self._read()
                if not self._doubt and time.monotonic() - self._walked_at > FULL_WALK_SECONDS:
                    self._doubt = "the periodic full walk"
                if self._doubt:
                    self._rebuild()
            except Unwatched as error:
                self._give_up(str(error))
                return None
            clock = time.monotonic()
            if mark is not None and mark.watch == self._token and mark.seq >= self._valid_from and clock - mark.stat_at <= STAT_WALK_SECONDS:
                changed: frozenset[str] | None = frozenset(p for p, seq in self._changed.items() if seq > mark.seq)
                now = Mark(self._token, self._seq, mark.stat_at)
            else:
                changed, now = None, Mark(self._token, self._seq, clock)
            if self._frozen is None:
                self._frozen = frozenset(self._listing)
            return Since(self._frozen, changed, now)

    def _give_up(self, why: str) -> None:
        self._unwatched = why
        if self._inotify is not None:
            self._inotify.close()
            self._inotify = None

    def start_reading(self) -> None:
        """Take the events in as they come, between checks (`_reading`)."""
        threading.Thread(target=self._reading, daemon=True, name="gateway-watch").start()

    def _reading(self) -> None:
        """The events read as they come, on a thread of their own (`_read_ahead`), so that a check
        finds little left to do: an agent's own git command, or its thinking, gives the time.
        Ends once the watch is closed or given up; while in doubt, the next check makes it again."""
        while True:
            with self._lock:
                if self._unwatched:
                    return
                fd = self._inotify.fileno() if self._inotify is not None and not self._doubt else None
            if fd is None:
                time.sleep(READ_WAIT_SECONDS)
                continue
            try:
                ready = select.select([fd], [], [], READ_WAIT_SECONDS)[0]
            except (OSError, ValueError):  # closed meanwhile (made again, or the watch closed)
                continue
            with self._lock:
                if ready and self._inotify is not None and self._inotify.fileno() == fd and not self._doubt and not self._unwatched:
                    self._read_ahead()

    @property
    def unwatched(self) -> str:
        """Why the workspace is not watched ("" while it is)."""
        return self._unwatched

    def _rebuild(self) -> None:
        """Watch every directory again and list the workspace (git walks it): the answer is a full walk."""
        if self._inotify is not None:
            self._inotify.close()
        self._inotify = None
        try:
            self._inotify = INotify()
        except OSError as error:  # the user's fs.inotify.max_user_instances
            raise Unwatched(f"no inotify instance ({error.strerror or error})") from None
        self._dirs = {}
        self._seq += 1
        self._valid_from = self._seq
        self._changed = {}
        self._backlog, self._ahead = [], None
        ignored = ignored_directories(self.root)
        self._watch_tree("", ignored, ())
        self._watch_git()
        self._listing = set(listed(self.root))
        self._frozen = None
        self._tracked = tracked(self.root) or set()
        self._walked_at = time.monotonic()
        self._doubt = ""

    def _add(self, relative: str, mask: int) -> bool:
        assert self._inotify is not None
        if len(self._dirs) >= self.max_watches:
            raise Unwatched(f"more than {self.max_watches} directories to watch")
        try:
            wd = self._inotify.add_watch(self.root / relative if relative else self.root, mask)
        except OSError as error:
            if error.errno == errno.ENOSPC:
                raise Unwatched("the user's inotify watches are used up (fs.inotify.max_user_watches)") from None
            return False  # gone meanwhile, or not a directory
        self._dirs[wd] = relative
        return True

    def _watch_tree(self, top: str, ignored: set[str], found: list[str] | tuple[()]) -> None:
        """Watch `top` and the directories under it (not `.git`, the gateway's state, another
        repository, nor what git ignores); each file found under it is added to `found` (when a list)."""
        pending = [top]
        while pending:
            relative = pending.pop()
            if not self._add(relative, _MASK):
                continue
            try:
                entries = list(os.scandir(self.root / relative if relative else self.root))
            except OSError:
                continue
            for entry in entries:
                path = f"{relative}/{entry.name}" if relative else entry.name
                if entry.is_dir(follow_symlinks=False):
                    if _watched_directory(path, entry.path, ignored):
                        pending.append(path)
                elif isinstance(found, list):
                    found.append(path)

    def _watch_git(self) -> None:
        """`.git` itself (its index, config), `.git/info` and `.git/hooks`: what the listing depends on or watches."""
        git_dir = self.root / ".git"
        if git_dir.is_dir() and not git_dir.is_symlink():
            self._add(".git", _MASK)
            self._add(".git/info", _MASK)
            self._watch_tree(".git/hooks", set(), ())

    def _read(self) -> None:
        """Every queued event (those read ahead first), taken into the listing and the changed paths."""
        assert self._inotify is not None
        appeared: set[str] = set()
        index = False
        events, self._backlog = self._backlog, []
        while True:
            read = self._inotify.read(timeout=0)
            if not read:
                break
            if any(self._names_index(event) for event in read):
                self._ahead = None  # listed before this change
            events.extend(read)
        for event in events:
            index = self._event(event.wd, event.mask, event.name, appeared) or index
            if self._doubt:
                return
        if len(self._changed) > MAX_CHANGED or len(appeared) > MAX_APPEARED:
            self._doubt = "too many changes"
            return
        self._update_listing(appeared, index)

    def _read_ahead(self) -> None:
        """Between checks: the queued events kept for the next check (taken in as it reads the
        rest, so that a file a running command made and removed is not listed meanwhile), and
        git's index listed again now where one says it changed."""
        assert self._inotify is not None
        read = self._inotify.read(timeout=0)
        self._backlog.extend(read)
        if len(self._backlog) > MAX_CHANGED:
            self._doubt, self._backlog = "too many changes", []
        elif any(self._names_index(event) for event in read):
            held = tracked(self.root)  # None: the check asks git again
            self._ahead = (held, held - self._tracked, self._tracked - held) if held is not None else None

    def _names_index(self, event: Event) -> bool:
        return event.name == "index" and self._dirs.get(event.wd) == ".git"

    def _event(self, wd: int, mask: int, name: str, appeared: set[str]) -> bool:
        """Take one event in; True when it says git's index changed."""
        if mask & flags.Q_OVERFLOW:
            self._doubt = "the event queue overflowed"
            return False
        directory = self._dirs.get(wd)
        if mask & flags.IGNORED:
            self._dirs.pop(wd, None)
            return False
        if directory is None:
            return False
        if mask & (flags.DELETE_SELF | flags.MOVE_SELF) and directory == "":
            self._doubt = "the workspace's directory was moved or deleted"
            return False
        if not name:
            return False
        path = f"{directory}/{name}" if directory else name
        if directory == ".git" or directory.startswith(".git/info"):
            return self._git_event(path, mask)
        if name in (".gitignore", ".git"):
            self._doubt = f"{path} changed (what git lists may have changed)"
            return False
        self._seq += 1
        if mask & flags.ISDIR:
            if mask & flags.MOVED_FROM:
                self._doubt = f"the directory {path} was moved"
            elif mask & (flags.CREATE | flags.MOVED_TO):
                found: list[str] = []
                self._watch_tree(path, set(), found)
                for file in found:
                    self._changed[file] = self._seq
                appeared.update(found)
            return False
        self._changed[path] = self._seq
        if mask & (flags.CREATE | flags.MOVED_TO) and path not in self._listing:
            appeared.add(path)
        return False

    def _git_event(self, path: str, mask: int) -> bool:
        if path == ".git/index":
            return True
        if path == ".git/config" or path.startswith(".git/info/exclude") or path == ".git/info" and mask & flags.ISDIR:
            self._doubt = f"{path} changed (what git lists may have changed)"
        return False

    def _update_listing(self, appeared: set[str], index: bool) -> None:
        """The paths that appeared (and those git's index took in or let go) listed as `listed` would."""
        taken_in: set[str] = set()
        let_go: set[str] = set()
        if index:
            ahead, self._ahead = self._ahead, None
            held = ahead[0] if ahead is not None else tracked(self.root)
            if held is None:
                self._doubt = "git could not list its index"
                return
            taken_in, let_go = ahead[1:] if ahead is not None else (held - self._tracked, self._tracked - held)
            self._tracked = held
        candidates = sorted(p for p in appeared | let_go if (p in let_go or p not in self._listing) and _present(self.root / p))
        direct = [p for p in candidates if p in self._tracked or p.startswith((f"{GATEWAY_DIR}/", ".git/hooks/"))]
        asked = [p for p in candidates if p not in self._tracked and not p.startswith((f"{GATEWAY_DIR}/", ".git/hooks/"))]
        ignored = check_ignore(self.root, asked)
        if ignored is None:
            self._doubt = "git could not say which new files it ignores"
            return
        listed_now = {*direct, *(p for p in asked if p not in ignored)}
        added, removed = (taken_in | listed_now) - self._listing, (let_go - listed_now) & self._listing
        if added or removed:
            self._listing = (self._listing | added) - removed
            self._frozen = None


_MASK = 0
if INOTIFY:
    _MASK = (flags.CREATE | flags.DELETE | flags.MODIFY | flags.ATTRIB | flags.CLOSE_WRITE | flags.MOVED_FROM | flags.MOVED_TO
             | flags.DELETE_SELF | flags.MOVE_SELF | flags.ONLYDIR | flags.DONT_FOLLOW | flags.EXCL_UNLINK)


def _watched_directory(path: str, full: str, ignored: set[str]) -> bool:
    """Whether to watch the directory at `path`: not `.git`, the gateway's state nor another
    repository; not what git ignores, but for `.gateway/` (the snapshot lists it whatever git says)."""
    own = path == GATEWAY_DIR or path.startswith(f"{GATEWAY_DIR}/")
    return path.rsplit("/", 1)[-1] != ".git" and (own or path not in ignored) and path != f"{GATEWAY_DIR}/{STATE_DIR_NAME}" \
        and not os.path.lexists(os.path.join(full, ".git"))


def _present(path: Path) -> bool:
    """Whether something that is not a directory is at `path` (git lists files and links)."""
    try:
        return not stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


_watchers: dict[Path, Watcher] = {}


def watch(root: Path) -> Watcher | None:
    """Start watching the git workspace `root` (the daemon, at its start); None where inotify
    is not there (not Linux) or `root` is not in a git work tree."""
    if not INOTIFY or git(root, "rev-parse", "--is-inside-work-tree") is None:
        return None
    watcher = Watcher(root)
    _watchers[root] = watcher
    watcher.since(None)
    watcher.start_reading()
    return watcher


def since(root: Path, mark: Mark | None) -> Since | None:
    """`Watcher.since` of the watch on `root`; None when it is not watched (no daemon, or in doubt's stead)."""
    watcher = _watchers.get(root)
    if watcher is None:
        resolved = root.resolve()
        watcher = next((w for r, w in _watchers.items() if r == resolved), None)
    return watcher.since(mark) if watcher is not None else None


@dataclass(frozen=True)
class Look:
    """What a check starts from: the listing; the lstat of the paths to stat again (every one
    asked about when `changed` is None); the paths with an event since the mark asked about
    (None: not known); the mark of now (None: the workspace is not watched)."""

    listing: AbstractSet[str]
    stats: Stats
    changed: frozenset[str] | None
    mark: Mark | None


def look(root: Path, paths: AbstractSet[str], mark: Mark | None) -> Look:
    """The listing and what to stat again of `paths` since `mark`: from the watch on `root`,
    else as without one (`listed_and_stats`: git lists, every path is stat-ed)."""
    found = since(root, mark)
    if found is None:
        listing, stats = listed_and_stats(root, paths)
        return Look(listing, stats, None, None)
    if found.changed is None:
        with opened_directory(root) as root_fd:
            return Look(found.listing, {path: lstat_at(root_fd, path) for path in paths}, None, found.mark)
    return Look(found.listing, {}, found.changed, found.mark)
