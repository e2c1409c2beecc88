"""Pure: which reading of a C or C++ file a write's definitions are judged on.

tree-sitter reads the text as written; where the preprocessor makes it read otherwise (a
conditional splitting a statement, `extern "C" {` under `#ifdef __cplusplus`, a macro call
on a line of its own), the file's definitions are misread, and a body edit looks like one
that removes or adds them. Such a write is judged on a view of B and A instead
(gateway/preprocessor.py): one that reads them with fewer errors, that B and A share outside
the changed regions (so it pairs the same definitions), and that keeps some of the change.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from tree_sitter import Node, Tree

from gateway.gate.judgement import _Judgement, judge
from gateway.gate.tree_errors import ErrorNode, error_total, errors_meeting, tree_errors
from gateway.langs import Language, Preprocessor
from gateway.preprocessor import View, in_macro_body, openings, prefix_macros, views
from gateway.gate.view_trees import carry_macros, carry_views, view_tree
from gateway.syntax import definitions

Span = tuple[int, int]
_AROUND = 200  # bytes either side of the judged window: a few lines
_CLOSERS = ("}", "#endif")
_CONDITIONAL_LINE = re.compile(rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|else|endif)\b", re.MULTILINE)


def _errors(lang: Language, judgement: _Judgement) -> int:
    return error_total(lang, judgement.tree_b) + error_total(lang, judgement.tree_a)


def _regroups(tree: Tree, source: bytes, start: int, end: int, missing: str | None) -> bool:
    """Whether an error at [start, end) of `source` may put text far from it in another block
    than the one it is in: a block the parser closed where the text does not (a missing `}` or
    `#endif`, also inside an ERROR), or text it skipped that opens or closes one (braces
    unbalanced, a conditional directive)."""
    if missing is not None:
        return missing in _CLOSERS
    skipped = source[start:end]
    if skipped.count(b"{") != skipped.count(b"}") or _CONDITIONAL_LINE.search(skipped) is not None:
        return True
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and not node.is_error and node.parent is not None and (node.parent.start_byte, node.parent.end_byte) == (start, end):
        node = node.parent
    if node is None or not node.is_error:
        return True  # not found as read: it may regroup
    inside = [node]
    while inside:
        current = inside.pop()
        if current.is_missing and current.type in _CLOSERS:
            return True
        inside += [child for child in current.children if child.has_error]
    return False


def _a_body(lang: Language, tree: Tree, node: Node) -> bool:
    """Whether `node` is the body of one of the tree's definitions (a namespace's, a class's)."""
    return any(d.body_start_byte == node.start_byte and d.body_end_byte == node.end_byte
               for d in definitions(lang, tree, (node.start_byte, node.start_byte)))


# What views blank, in order; the conditionals' opening lines among it, with what each spans; where an
# error it may have caused stands, at most (`_reach`).
_Masks = tuple[list[Span], dict[Span, Span], list[Span]]
_CAUSE_LINES = 12  # how far before an error what a view blanks may have caused it (gtest-death-test.cc: a split `if`, 5 lines)


def _masked(source: bytes, masks: _Masks, start: int, end: int) -> bool:
    """Whether [start, end) meets what a view blanks (`masks`), or the line after it, or the
    `_CAUSE_LINES` lines before it: tree-sitter recovers from what the preprocessor makes valid
    a few tokens on (a branch's `if (...) { }` and the `else {` after the `#endif` read as a
    block missing its `}` lines later). The opening line of a conditional that holds [start,
    end) does not count: the text it holds reads alike with or without it (a header guard)."""
    spans, opening, reach = masks
    at = bisect.bisect_right(reach, (end, len(source) + 1))
    if at == 0 or reach[at - 1][1] < start:
        return False  # no blanked span within reach
    low = _lines_back(source, start, _CAUSE_LINES + 1)
    high = source.find(b"\n", source.find(b"\n", end) + 1)
    high = len(source) if high < 0 else high
    at = bisect.bisect_left(spans, (low, low))
    for span in [s for s in spans[:at] if s[1] >= low] + spans[at : bisect.bisect_left(spans, (high + 1, 0))]:
        held = opening.get(span)
        if held is None or not held[0] <= start <= end <= held[1]:
            return True
    return False


def _lines_back(source: bytes, at: int, count: int) -> int:
    """Where `count` steps back from `at` land, each to the start of the line that holds the
    byte before the last step's end (from a line's start, the line before it)."""
    for _ in range(count):
        at = source.rfind(b"\n", 0, max(at - 1, 0)) + 1 if at > 0 else 0
    return at


def _reach(source: bytes, spans: Sequence[Span]) -> list[Span]:
    """Where an error `_masked` may count stands, at most: each span from two lines before it
    to `_CAUSE_LINES` + 1 lines after it, those that meet joined (in order, apart)."""
    found: list[Span] = []
    for start, end in spans:
        low = _lines_back(source, start, 3)
        high = end
        for _ in range(_CAUSE_LINES + 2):
            high = source.find(b"\n", high + 1)
            if high < 0:
                high = len(source)
                break
        if found and low <= found[-1][1]:
            found[-1] = (found[-1][0], max(found[-1][1], high))
        else:
            found.append((low, high))
    return found


def _masks(spec: Preprocessor, source: bytes) -> _Masks:
    """Every span some view of `source` blanks, in order, but for macro calls in a `#define`'s
    continued lines (the tree reads a macro's body as its text, views or not); and the
    conditionals' opening lines among them, with what each conditional spans."""
    spans = sorted({span for view in views(spec, source) for span in view.blanked if not in_macro_body(source, span[0])})
    return spans, openings(spec, source), _reach(source, spans)


def _at_masks(errors: Sequence[ErrorNode], source: bytes, masks: _Masks) -> list[ErrorNode]:
    """Those of `errors` that meet what a view of `source` blanks (`masks`), or the line either side."""
    return [e for e in errors if _masked(source, masks, e.start_byte, e.end_byte)]


def _views_regroup(lang: Language, tree: Tree, source: bytes, masks: _Masks) -> bool:
    """Whether a view of `source` may read some block otherwise than `tree` does: an error that
    regroups blocks (`_regroups`) stands at what a view blanks (`masks`: a directive, a branch
    it does not take, a macro line), or the line either side. Where none does, what the views
    blank is read as complete, or as errors that stay in their declarations (a missing `;`
    after a macro line), and every view nests each block as the tree does; an error elsewhere,
    even one that regroups blocks (`LLVM_NODISCARD` on a line of its own before a method, the
    macro defined in another header), stands in text every view keeps as written, and is read
    there as the tree reads it."""
    return any(_regroups(tree, source, e.start_byte, e.end_byte, e.missing) for e in _at_masks(tree_errors(lang, tree), source, masks))


def _misnested(lang: Language, tree: Tree, source: bytes, start: int, end: int) -> bool:
    """Whether an error lies in a node (other than the file) that holds [start, end): an
    `extern "C" {` whose `}` is in another `#if` block nests everything after it in a block
    whose error (a missing `#endif`) may stand far from the change. In a definition's body,
    only an error that regroups blocks counts: any other (a missing `;`, an unexpected token)
    stays in the declaration that holds it, and the change is read in the same block either
    way. Elsewhere (a conditional's branch, a function's body holding what reads as
    definitions) any error may mean the block itself is misread."""
    node = tree.root_node.descendant_for_byte_range(start, end)
    while node is not None and node.parent is not None and not node.has_error:
        node = node.parent
    if node is None or node.parent is None:
        return False
    errors = errors_meeting(lang, tree, node.start_byte, node.end_byte)
    if not errors or not _a_body(lang, tree, node):
        return bool(errors)
    return any(_regroups(tree, source, e.start_byte, e.end_byte, e.missing) for e in errors)


def _pairs(lang: Language, before: bytes, after: bytes, regions: list[tuple[Span, Span]]) -> list[tuple[View, View]]:
    assert lang.preprocessor is not None
    carry_views(lang.preprocessor, before, after, regions)
    views_b, views_a = views(lang.preprocessor, before), views(lang.preprocessor, after)
    if not views_b and not views_a:
        return []
    views_b, views_a = views_b or [View("first", before, ())], views_a or [View("first", after, ())]
    return [(next((b for b in views_b if b.kind == a.kind), views_b[0]), a) for a in views_a]


def _worth_views(lang: Language, texts: tuple[bytes, bytes], regions: list[tuple[Span, Span]], raw: _Judgement) -> bool:
    """Whether the preprocessor may matter to the write (`judged_reading`)."""
    spec, (before, after) = lang.preprocessor, texts
    assert spec is not None
    low = min(b0 for (b0, _), _ in regions)
    high_b, high_a = max(b1 for (_, b1), _ in regions), max(a1 for _, (_, a1) in regions)
    near_a = (max(0, min(low, raw.window_a[0]) - _AROUND), max(high_a, raw.window_a[1]) + _AROUND)
    near_b = (near_a[0], max(high_b, raw.window_a[1] - raw.delta) + _AROUND)
    carry_macros(spec, before, after, regions)
    errors_a, errors_b = errors_meeting(lang, raw.tree_a, *near_a), errors_meeting(lang, raw.tree_b, *near_b)
    macros = bool((spec.macro_line.pattern and (spec.macro_line.search(after, *near_a) or spec.macro_line.search(before, *near_b)))
                  or any(near_a[0] <= start <= near_a[1] for start, _ in prefix_macros(after)))
    if not (errors_a or errors_b or macros or _misnested(lang, raw.tree_b, before, low, high_b) or _misnested(lang, raw.tree_a, after, low, high_a)):
        return False
    carry_views(spec, before, after, regions)
    masks_b, masks_a = _masks(spec, before), _masks(spec, after)
    if (macros or _masked(before, masks_b, low, high_b) or _masked(after, masks_a, low, high_a)
            or _views_regroup(lang, raw.tree_b, before, masks_b) or _views_regroup(lang, raw.tree_a, after, masks_a)):
        return True  # the views read the change itself otherwise, or may nest it otherwise
    return bool(_at_masks(errors_a, after, masks_a) or _at_masks(errors_b, before, masks_b))


def judged_reading(lang: Language, before: bytes, after: bytes, regions: list[tuple[Span, Span]], raw: _Judgement) -> _Judgement:
    """`raw` (the text as written), or the judgement on a view that reads the file better.
    Views are tried only where the preprocessor may matter: an error of B or A, or a line
    that holds only a macro call, meets the definitions the change reaches (a line around
    them), or an error lies in a block that holds the change; and, where the change meets
    nothing a view blanks (a line either side) and no view may nest a block otherwise
    (`_views_regroup`), only for a macro line or an error at what a view blanks among those. Among equals, a view that sees a structural change wins."""
    if lang.preprocessor is None or not _worth_views(lang, (before, after), regions, raw):
        return raw
    low = min(b0 for (b0, _), _ in regions)
    high_b, high_a = max(b1 for (_, b1), _ in regions), max(a1 for _, (_, a1) in regions)
    raw_errors = _errors(lang, raw)
    found: list[tuple[int, bool, _Judgement]] = []
    parsed: list[View] = []
    for view_b, view_a in _pairs(lang, before, after, regions):
        shared = view_b.text[:low] == view_a.text[:low] and view_b.text[high_b:] == view_a.text[high_a:]
        hidden = view_b.hides(low, high_b) and view_a.hides(low, high_a)
        if not shared or hidden or view_b.text[low:high_b] == view_a.text[low:high_a]:
            continue  # pairs other definitions, or the change lies in branches it does not take
        view_tree(lang, before, view_b, parsed)
        parsed.append(view_b)
        judgement = judge(lang, view_b.text, view_a.text, regions)
        errors = _errors(lang, judgement)
        if errors <= raw_errors:
            found.append((errors, not judgement.structural, judgement))
    return min(found, key=lambda item: item[:2])[2] if found else raw
