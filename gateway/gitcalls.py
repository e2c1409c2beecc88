"""Running git on a workspace: user input always after `--end-of-options` or `--`, never as an option."""

from __future__ import annotations

import subprocess
from pathlib import Path

GIT_TIMEOUT_SECONDS = 60


def git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes] | None:
    """git's result in `root`; None when git is missing, times out or fails."""
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, timeout=GIT_TIMEOUT_SECONDS, input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done if done.returncode == 0 else None


def git_all(root: Path, *commands: tuple[str, ...]) -> list[subprocess.CompletedProcess[bytes] | None]:
    """Several read-only git commands run at once; each result as `git` gives it."""
    try:
        running = [(args, subprocess.Popen(["git", *args], cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE)) for args in commands]
    except OSError:
        return [None] * len(commands)
    results: list[subprocess.CompletedProcess[bytes] | None] = []
    for args, process in running:
        try:
            out, err = process.communicate(timeout=GIT_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            results.append(None)
            continue
        done = subprocess.CompletedProcess(["git", *args], process.returncode, out, err)
        results.append(done if done.returncode == 0 else None)
    return results


def git_text(root: Path, *args: str) -> str | None:
    done = git(root, *args)
    return done.stdout.decode("utf-8", "surrogateescape") if done is not None else None


def resolve_commit(root: Path, revision: str) -> str | None:
    """The commit `revision` names, or None: never read as an option, whatever it looks like."""
    out = git_text(root, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    return out.strip() if out else None
