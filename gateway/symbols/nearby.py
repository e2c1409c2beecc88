"""The lift of a write to a long file over the definitions near its change only.

A write's changed regions usually lie within a few of the file's outermost definitions. The
lift looks at a definition only where a region cuts it, holds it or lies beside it, so it is
run on the outermost definitions that meet the regions and one kept on each side of them (the
siblings an insertion is placed beside), with everything they hold, when the incremental parse
says the syntax changed only between those two; A's symbols are then needed only there
(`structure_near`), not carried over for the whole file. Where the result could
depend on what lies further away (a patch that reaches past those neighbours, or a rename,
whose namesake may be anywhere among the file's definitions), the caller lifts on the whole
file instead.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from tree_sitter import Tree

from gateway.langs import Language
from gateway.symbols.lift import Patch, Span, lift
from gateway.symbols.model import Symbol
from gateway.symbols.structure import outermost, structure_near, within
from gateway.symbols.text import char_to_byte
from gateway.syntax import base_of


def _window(blocks: list[tuple[int, int]], low: int, high: int, length: int) -> tuple[Span, Span]:
    """(the window, the part of it between the neighbours) around [low, high] of B."""
    ends, starts = [end for _, end in blocks], [start for start, _ in blocks]
    before = bisect_left(ends, low)  # the outermost blocks that end before the regions begin
    after = bisect_right(starts, high)  # the first that begins after they end
    window = (blocks[before - 1][0] if before else 0, blocks[after][1] if after < len(blocks) else length)
    inner = (blocks[before - 1][1] if before else 0, blocks[after][0] if after < len(blocks) else length)
    return window, inner


def lift_near(lang: Language, before: str, tree_b: Tree, symbols_b: list[Symbol], after: str, tree_a: Tree,
              regions: Sequence[tuple[Span, Span]], most: float = 0.5) -> list[Patch] | None:
    """`lift` on the definitions near the regions, the same patches as on the whole file; None
    when that cannot be told, or when they make up more than `most` of the file (nothing would
    be saved): lift on the whole file then."""
    blocks = outermost(lang, before, tree_b)
    if not blocks or not regions:
        return None
    low, high = min(b0 for (b0, _), _ in regions), max(b1 for (_, b1), _ in regions)
    window, inner = _window(blocks, low, high, len(before))
    if window[1] - window[0] > most * len(before):
        return None
    parsed = base_of(lang, tree_a)  # the syntax changed only between the neighbours, so A's symbols beyond them are B's
    if parsed is None or parsed[0] is not tree_b:
        return None
    to_byte = char_to_byte(after)
    low_a, high_a = to_byte(inner[0]), to_byte(inner[1] + len(after) - len(before))
    if any(start < low_a or end > high_a for start, end in parsed[1]):
        return None
    near_a = structure_near(lang, after, tree_a, (window[0], window[1] + len(after) - len(before)))
    if near_a is None:
        return None
    near_b = within(symbols_b, window)
    patches = lift(before, near_b, after, near_a, regions)
    for patch in patches:
        if not inner[0] <= patch.before[0] <= patch.before[1] <= inner[1]:
            return None
        if any(operation.renamed_to is not None for operation in patch.operations):
            return None
    return patches
