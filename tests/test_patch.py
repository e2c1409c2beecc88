"""The `*** Begin Patch` port against Codex's own applier (`codex --codex-run-as-apply-patch`),
on files of Python's standard library with seeded random edits: the same bytes, or the same
failure, and every section the gateway writes lands exactly where meant."""

from __future__ import annotations

import difflib
import random
import subprocess
import sysconfig
from pathlib import Path

import pytest

from gateway.patch import PatchError, apply_update, extract_heredoc, net_effects, parse_patch, render_patch, replace_sections, update_section

CODEX = Path(__file__).resolve().parent.parent / ".tools" / "hosts" / "node_modules" / ".bin" / "codex"
STDLIB = Path(sysconfig.get_paths()["stdlib"])


def codex_apply(root: Path, patch: str) -> tuple[int, str]:
    done = subprocess.run([str(CODEX), "--codex-run-as-apply-patch", patch], cwd=root, capture_output=True, text=True, timeout=60)
    return done.returncode, done.stdout + done.stderr


def corpus(count: int, seed: int) -> list[tuple[str, str]]:
    """(name, text) of real files: stdlib modules, some turned CRLF or without a final newline."""
    rng = random.Random(seed)
    files = sorted(p for p in STDLIB.glob("*.py") if 2_000 < p.stat().st_size < 40_000)
    chosen = rng.sample(files, count)
    found = []
    for n, path in enumerate(chosen):
        text = path.read_text("utf-8", errors="replace")
        if n % 7 == 3:
            text = text.replace("\n", "\r\n")
        elif n % 7 == 5:
            text = text.rstrip("\n")
        found.append((f"f{n}_{path.name}", text))
    return found


def mutate(text: str, rng: random.Random) -> str:
    """The text after a few random line edits: changes, insertions, deletions, duplicates."""
    lines = text.split("\n")
    for _ in range(rng.randint(1, 4)):
        at = rng.randrange(len(lines))
        action = rng.choice(["change", "insert", "delete", "duplicate"])
        if action == "change":
            lines[at] = lines[at] + "  # changed"
        elif action == "insert":
            lines[at:at] = ["    pass", ""]
        elif action == "delete" and len(lines) > 3:
            del lines[at]
        else:
            lines[at:at] = lines[max(0, at - 2) : at]
    result = "\n".join(lines)
    return result if result.endswith("\n") else result + "\n"


def model_section(name: str, before: str, after: str, rng: random.Random) -> str:
    """A patch's section as a model writes one: small hunks, sometimes an `@@ context` line,
    sometimes trailing whitespace dropped from context lines, sometimes no context at all."""
    old, new = before.split("\n"), after.split("\n")
    context = rng.choice([0, 1, 3])
    body = []
    for group in difflib.SequenceMatcher(None, old, new, autojunk=False).get_grouped_opcodes(context):
        anchor = [line for line in old[: group[0][1]] if line.startswith(("def ", "class "))]
        body.append(f"@@ {anchor[-1]}" if anchor and rng.random() < 0.5 else "@@")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                body += [" " + (line.rstrip() if rng.random() < 0.2 else line) for line in old[i1:i2]]
            else:
                body += [f"-{line}" for line in old[i1:i2]] + [f"+{line}" for line in new[j1:j2]]
    return f"*** Update File: {name}\n" + "\n".join(body) + "\n"


def ours_applied(before: str, section: str) -> str | None:
    try:
        [change] = parse_patch(render_patch([section])).changes
        return apply_update(before, change)
    except PatchError:
        return None


def codex_applied(root: Path, cases: list[tuple[str, str, str]]) -> dict[str, tuple[str | None, str]]:
    """Codex's result for each (name, before, section), with its message: the file it wrote, or
    None where it refused. The sections run as one patch when Codex applies it whole (one
    process instead of one per case); where it refuses, each runs alone, so that a refusal
    belongs to its own section."""
    for name, before, _ in cases:
        (root / name).write_bytes(before.encode())
    if cases and codex_apply(root, render_patch([section for _, _, section in cases]))[0] == 0:
        return {name: ((root / name).read_bytes().decode(), "") for name, _, _ in cases}
    found: dict[str, tuple[str | None, str]] = {}
    for name, before, section in cases:
        (root / name).write_bytes(before.encode())
        code, message = codex_apply(root, render_patch([section]))
        found[name] = ((root / name).read_bytes().decode() if code == 0 else None, message)
    return found


@pytest.mark.usefixtures("processes")
def test_model_like_patches_apply_exactly_as_codex_applies_them(tmp_path: Path) -> None:
    rng = random.Random(21)
    rounds: list[list[tuple[str, str, str]]] = [[], []]  # each file twice: once in each round
    for name, before in corpus(60, 7):
        for turn in range(2):
            after = mutate(before.replace("\r\n", "\n") if rng.random() < 0.5 else before, rng)
            rounds[turn].append((name, before, model_section(name, before, after, rng)))
    agreed = 0
    for cases in rounds:
        ours = {name: ours_applied(before, section) for name, before, section in cases}
        theirs = codex_applied(tmp_path, [case for case in cases if ours[case[0]] is not None])
        theirs |= codex_applied(tmp_path, [case for case in cases if ours[case[0]] is None])
        for name, _, section in cases:
            assert ours[name] == theirs[name][0], (name, theirs[name][1][:300], section[:600])
            agreed += 1
    assert agreed == 120


@pytest.mark.usefixtures("processes")
def test_update_sections_land_byte_for_byte_with_codex(tmp_path: Path) -> None:
    rng = random.Random(5)
    sections, expected = [], {}
    for name, before in corpus(80, 11):
        crlf = "\r\n" in before  # added lines take the file's line ending, as Codex writes them
        after = mutate(before.replace("\r\n", "\n"), rng).replace("\n", "\r\n") if crlf else mutate(before, rng)
        section = update_section(name, before, after)
        sections.append(section)
        expected[name] = after
        (tmp_path / name).write_bytes(before.encode())
    code, message = codex_apply(tmp_path, render_patch(sections))
    assert code == 0, message[:500]
    assert {name: (tmp_path / name).read_bytes().decode() for name in expected} == expected


def test_a_section_is_widened_until_it_can_only_land_where_meant() -> None:
    block = "    x = 1\n    y = 2\n    z = 3\n    w = 4\n"
    before = "def a():\n" + block + "\n\ndef b():\n" + block
    after = "def a():\n" + block + "\n\ndef b():\n" + block.replace("z = 3", "z = 30")
    [change] = parse_patch(render_patch([update_section("m.py", before, after)])).changes
    assert apply_update(before, change) == after


@pytest.mark.usefixtures("processes")
def test_every_kind_of_change_against_codex(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n\n\ndef g():\n    return f()\n")
    (tmp_path / "old.py").write_text("X = 1\n")
    patch = (
        "*** Begin Patch\n*** Add File: pkg/new_mod.py\n+def h():\n+    return 3\n*** Update File: app.py\n*** Move to: app2.py\n"
        "@@ def f():\n-    return 1\n+    return 2\n@@ def g():\n-    return f()\n+    return f() + 1\n*** Delete File: old.py\n*** End Patch\n"
    )
    read = {tmp_path / "app.py": (tmp_path / "app.py").read_text(), tmp_path / "old.py": "X = 1\n"}
    found = net_effects(parse_patch(patch), tmp_path, read.get)
    assert found.failure is None
    assert [(e.path.name, e.moved_to.name if e.moved_to else None, e.after) for e in found.paths] == [
        ("new_mod.py", None, "def h():\n    return 3\n"),
        ("app.py", "app2.py", None),
        ("app2.py", None, "def f():\n    return 2\n\n\ndef g():\n    return f() + 1\n"),
        ("old.py", None, None),
    ]
    assert codex_apply(tmp_path, patch)[0] == 0
    assert (tmp_path / "app2.py").read_text() == found.paths[2].after and not (tmp_path / "app.py").exists()
    assert (tmp_path / "pkg" / "new_mod.py").read_text() == found.paths[0].after and not (tmp_path / "old.py").exists()


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("text", [
    "*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n",
    "*** Begin Patch\n*** Frobnicate File: a.py\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: a.py\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n",
])
def test_a_malformed_patch_is_refused_by_both(tmp_path: Path, text: str) -> None:
    (tmp_path / "a.py").write_text("x\n")
    with pytest.raises(PatchError):
        parse_patch(text)
    assert codex_apply(tmp_path, text)[0] != 0 and (tmp_path / "a.py").read_text() == "x\n"


@pytest.mark.usefixtures("processes")
def test_end_of_file_anchors_the_hunk_at_the_end(tmp_path: Path) -> None:
    before = "a\nb\na\nb\n"
    patch = "*** Begin Patch\n*** Update File: e.txt\n@@\n a\n-b\n+c\n*** End of File\n*** End Patch\n"
    (tmp_path / "e.txt").write_text(before)
    assert codex_apply(tmp_path, patch)[0] == 0
    [change] = parse_patch(patch).changes
    assert apply_update(before, change) == (tmp_path / "e.txt").read_text() == "a\nb\na\nc\n"


def test_replace_sections_keeps_everything_else_as_written() -> None:
    patch = "*** Begin Patch\n*** Add File: n.py\n+X = 1\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\n"
    replaced = replace_sections(patch, {1: "*** Update File: a.py\n@@\n-x\n+z\n"})
    assert replaced == "*** Begin Patch\n*** Add File: n.py\n+X = 1\n*** Update File: a.py\n@@\n-x\n+z\n*** End Patch\n"


def test_a_result_without_a_final_newline_cannot_be_written_by_a_patch() -> None:
    with pytest.raises(PatchError, match="newline"):
        update_section("a.py", "x\n", "y")


def test_heredoc_invocations_are_recognised() -> None:
    patch = "*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n"
    assert extract_heredoc(f"apply_patch <<'EOF'\n{patch}EOF\n") == (None, patch)
    assert extract_heredoc(f"cd sub && apply_patch <<\"EOF\"\n{patch}EOF") == ("sub", patch)
    assert extract_heredoc("apply_patch") is None and extract_heredoc("echo <<EOF\nx\nEOF") is None


SEQUENCES = {
    "move over a file": "*** Update File: notes.py\n*** Move to: app.py\n@@\n-x = 1\n+x = 2\n",
    "move onto itself": "*** Update File: app.py\n*** Move to: app.py\n@@\n-    return 1\n+    return 2\n",
    "delete then add": "*** Delete File: app.py\n*** Add File: app.py\n+x = 3\n",
    "add then delete": "*** Add File: new.py\n+x = 4\n*** Delete File: new.py\n",
    "add over a file, then update": "*** Add File: app.py\n+x = 4\n*** Update File: app.py\n@@\n-x = 4\n+x = 5\n",
    "move away and back": "*** Update File: app.py\n*** Move to: sub/../b.py\n@@\n-    return 1\n+    return 2\n"
                          "*** Update File: b.py\n*** Move to: app.py\n@@\n-    return 2\n+    return 3\n",
    "failing partway": "*** Update File: app.py\n@@\n-    return 1\n+    return 2\n*** Update File: missing.py\n@@\n-a\n+b\n",
}


@pytest.mark.usefixtures("processes")
@pytest.mark.parametrize("name", SEQUENCES)
def test_each_paths_net_effect_is_what_codex_leaves(name: str, tmp_path: Path) -> None:
    """Whatever the sequence of Add, Delete, Update and Move, each path's text after the patch is
    the file Codex leaves there (None: no file), and a patch that fails partway is known to, with
    the sections before the failing one written."""
    files = {"app.py": "def f():\n    return 1\n", "notes.py": "x = 1\n"}
    for file, text in files.items():
        (tmp_path / file).write_text(text)
    patch = render_patch([SEQUENCES[name]])
    found = net_effects(parse_patch(patch), tmp_path, lambda p: p.read_text() if p.exists() else None)
    code, message = codex_apply(tmp_path, patch)
    assert (found.failure is not None) == (code != 0), message
    for effect in found.paths:
        assert effect.after == (effect.path.read_text() if effect.path.exists() else None), (name, effect.path.name)
        assert effect.before == files.get(effect.path.name)
