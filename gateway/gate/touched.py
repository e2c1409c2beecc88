"""What a write touched, for the verifier (`gateway.verify`), beside the gate's verdict and
without changing it: the definitions it adds, removes or renames or whose header it changes,
one-line writes included (the gate lets a one-line header change through, and its
classification of an allowed write lists nothing), and the module-level bindings it renames or
removes (constants and variables other files import: `queries/<lang>/bindings.scm`)."""

from __future__ import annotations

from collections import Counter

from tree_sitter import QueryCursor, Tree

from gateway.bounded import Bounded
from gateway.gate.classify import _touched, _windows
from gateway.gate.effect import write_effect
from gateway.gate.judgement import judge
from gateway.gate.verdict import TouchedDefinition
from gateway.langs import Language
from gateway.syntax import extra_query


def touched_by(lang: Language, path: str, before: str, after: str) -> tuple[TouchedDefinition, ...]:
    """The definitions and top-level bindings the write from `before` to `after` touched;
    empty for a body-only write (and for a language without a symbol backend)."""
    key = (lang, path, before, after)
    found = _TOUCHED.get(key)
    if found is None:
        found = _touched_by(lang, path, before, after)
        _TOUCHED.put(key, found, len(before) + len(after))
    return found


# The last few writes' (a host's write is asked whether it is verified, then verified), by
# their texts: between a daemon's requests only the newest long one's (`settle_all`).
_TOUCHED: Bounded[tuple[Language, str, str, str], tuple[TouchedDefinition, ...]] = Bounded(4)


def _touched_by(lang: Language, path: str, before: str, after: str) -> tuple[TouchedDefinition, ...]:
    if before == after or not lang.symbol_backend or not before.strip():
        return ()
    effect = write_effect(path, before, after)
    old, new, regions = _windows(effect)
    judgement = judge(lang, old, new, regions)
    listed = [touched for touched, _ in _touched(judgement)]
    named = {t.name for t in listed}
    window_b = (min(b0 for (b0, _), _ in regions), max(b1 for (_, b1), _ in regions))
    window_a = (min(a0 for _, (a0, _) in regions), max(a1 for _, (_, a1) in regions))
    listed += [b for b in changed_bindings(lang, (judgement.tree_b, window_b), (judgement.tree_a, window_a)) if b.name not in named]
    return tuple(listed)


def _bindings(lang: Language, tree: Tree, window: tuple[int, int]) -> list[tuple[str, int]]:
    """(name, line) of each top-level binding the language's bindings query captures in the
    statements that meet the bytes `window`."""
    query = extra_query(lang, "bindings")
    if query is None:
        return []
    found = []
    cursor = QueryCursor(query)
    cursor.set_byte_range(*window)
    for _, captures in cursor.matches(tree.root_node):
        for node in captures.get("name", []):
            found.append(((node.text or b"").decode("utf-8", "replace"), node.start_point[0] + 1))
    return found


def changed_bindings(lang: Language, b: tuple[Tree, tuple[int, int]], a: tuple[Tree, tuple[int, int]]) -> list[TouchedDefinition]:
    """Top-level bindings the changed statements of B bind and those of A no longer do (each
    side a tree and the changed bytes in it): renamed where A binds a new name on the same line
    (`LIMIT = 30` → `MAX_LIMIT = 30`), removed otherwise."""
    before, after = _bindings(lang, *b), _bindings(lang, *a)
    left = Counter(name for name, _ in before) - Counter(name for name, _ in after)
    new = Counter(name for name, _ in after) - Counter(name for name, _ in before)
    added_at = {line: name for name, line in after if new[name] > 0}
    touched = []
    for name, line in before:
        if left[name] <= 0:
            continue
        left[name] -= 1
        renamed_to = added_at.get(line)
        change = "renamed" if renamed_to is not None else "removed"
        touched.append(TouchedDefinition("variable", name, name, line, change, renamed_to))
    return touched
