"""A warm operation's command line read without argparse (gateway.surfaces.cli_words) has the
meaning argparse gives it, or is left to argparse: one meaning, and one usage error, whichever
reads it. Nothing is started here."""

from __future__ import annotations

import itertools
import random

import pytest

from gateway.errors import UsageError
from gateway.surfaces import cli_words
from gateway.surfaces.cli import build_parser
from gateway.surfaces.operations import OPERATIONS

# What agents and people type: each is read without argparse.
READ_HERE = [
    ["symbols", "a.py"], ["symbols", "a.py", "--json"], ["symbols", "--json", "a.py", "--depth", "2"], ["symbols", "a.py", "--depth=0"],
    ["find-symbol", "Shape/describe"], ["find-symbol", "Shape/describe", "pkg/a b.py", "--body", "--workspace", "/w"],
    ["find-symbol", "--body", "f[1]", "a.py"],
    ["replace-symbol", "A/f", "a.py", "--body", "def f():\n    pass\n"], ["replace-symbol", "A/f", "a.py", "--body-file", "new.py", "--dry-run"],
    ["replace-symbol", "A/f", "a.py", "--body=-x", "--token", "t"], ["replace-symbol", "A/f", "a.py"],
    ["insert-code", "/", "a.py", "--position", "after", "--code", "x = 1\n"], ["remove-symbol", "f", "a.py", "--force"],
    ["rename-symbol", "Cart/total", "cart.go", "sum", "--dry-run"], ["classify", "a.py", "--old", "a", "--new", ""],
    ["edit", "a.py", "--old", "a", "--new", "b", "--route"], ["edit", "--stdin"], ["edit", "--stdin", "--json"], ["edit"],
    ["create-file", "n.py", "--content", "x = 1\n"], ["symbols", ""],
]
# Left to argparse: help, usage errors, and forms whose reading is argparse's own.
LEFT_TO_ARGPARSE = [
    [], ["symbols"], ["symbols", "--help"], ["symbols", "-h"], ["symbols", "a.py", "b.py"], ["symbols", "a.py", "--depth", "x"],
    ["symbols", "a.py", "--dep", "1"], ["symbols", "a.py", "--json", "--json"], ["symbols", "a.py", "--json=1"], ["symbols", "--", "a.py"],
    ["symbols", "-a.py"], ["symbols", "a.py", "--depth"], ["symbols", "a.py", "--depth", "-1"], ["find-symbol", "f", "--body", "a.py"],
    ["replace-symbol", "A/f", "a.py", "--body", "x", "--body-file", "y"], ["replace-symbol", "A/f", "a.py", "--body", "-x"],
    ["insert-code", "/", "a.py", "--code", "x"], ["insert-code", "/", "a.py", "--position", "middle", "--code", "x"],
    ["rename-symbol", "f", "a.py"], ["audit", "log"], ["servers"], ["daemon", "status"], ["hook", "claude-code"], ["--version"],
    ["edit", "a.py", "b.py"], ["symbols", "a.py", "--workspace"],
]


def _argparse(words: list[str]) -> dict[str, object] | None:
    """argparse's namespace for `words`; None for a usage error (or help: argparse exits)."""
    try:
        return vars(build_parser().parse_args(words))
    except (UsageError, SystemExit):
        return None


@pytest.mark.parametrize("words", READ_HERE, ids=" ".join)
def test_a_warm_command_line_is_read_as_argparse_reads_it(words: list[str]) -> None:
    thin = cli_words.parse(words)
    assert thin is not None
    assert vars(thin) == _argparse(words)


@pytest.mark.parametrize("words", LEFT_TO_ARGPARSE, ids=" ".join)
def test_what_it_cannot_read_unambiguously_is_left_to_argparse(words: list[str]) -> None:
    assert cli_words.parse(words) is None


def test_any_mix_of_words_it_reads_means_what_argparse_says() -> None:
    """Random command lines of each warm command's own words: whatever is read here is exactly
    argparse's namespace (never a line argparse refuses)."""
    chooser = random.Random(36)
    pool = ["a.py", "Shape/f", "x", "", "-", "-x", "--", "--json", "--workspace", "--depth", "1", "--body", "--body-file", "--body=x",
            "--dry-run", "--force", "--token", "--position", "after", "--code", "--old", "--new", "--route", "--stdin", "--content",
            "--body-fi", "--depth=2", "-h", "--replace-all"]
    read = 0
    for spec, size in itertools.product([op for op in OPERATIONS.values() if op.warm], range(1, 7)):
        for _ in range(150):
            words = [str(spec.command), *chooser.choices(pool, k=size)]
            thin = cli_words.parse(words)
            if thin is not None:
                read += 1
                assert vars(thin) == _argparse(words), words
    assert read > 200  # the mix is not all left to argparse
