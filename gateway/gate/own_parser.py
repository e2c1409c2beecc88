"""Pure: Python's own parser (`compile`) as the judge of whether a text has a syntax error,
at the cost of what a write changed rather than of the whole file.

Compiling a whole file costs about as much as parsing it. When B is known to compile and
tree-sitter reads A without an error, only A's top-level statements that meet the changed
regions are compiled, at their own line numbers and under the file's `from __future__`
flags: the rest of A is B's text, and a statement at module level compiles alone exactly as
it does in its file (whether `return` or `await` may stand there depends only on the
statements around it, which the chunk holds). A chunk that does not compile is never the
verdict: the whole text is compiled then, so the error reported is Python's own. Whole-text
verdicts are kept by text, so the next write to the same file finds its B known.
"""

from __future__ import annotations

import __future__
import re
import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence

from tree_sitter import Node, Tree

Span = tuple[int, int]
Verdict = tuple[int, int, str] | None  # (line, column, message) of the first error; None: it compiles


class Undecided(Exception):
    """The parser itself failed (too deep to compile here): tree-sitter decides."""


_KEPT = 16
_verdicts: OrderedDict[str, Verdict | Undecided] = OrderedDict()
_lock = threading.Lock()
_PROLOGUE = frozenset({"comment", "string", "expression_statement", "future_import_statement"})


def _compile(text: str, flags: int = 0) -> Verdict:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<gateway>", "exec", flags=flags, dont_inherit=True)
    except SyntaxError as error:
        return error.lineno or 1, max(error.offset or 1, 1), (error.msg or "invalid syntax").rstrip(".")
    except ValueError as error:  # a NUL character
        return 1, 1, str(error)
    except (RecursionError, MemoryError) as error:
        raise Undecided(type(error).__name__) from None
    return None


class _Unknown:
    pass


_UNKNOWN = _Unknown()


def _known(text: str) -> Verdict | Undecided | _Unknown:
    with _lock:
        found = _verdicts.get(text, _UNKNOWN)
        if found is not _UNKNOWN:
            _verdicts.move_to_end(text)
        return found


def known_to_compile(text: str) -> bool:
    """Whether a kept verdict says `text` compiles (nothing is compiled here)."""
    return _known(text) is None


def _keep(text: str, verdict: Verdict | Undecided) -> None:
    with _lock:
        _verdicts[text] = verdict
        while len(_verdicts) > _KEPT or (len(_verdicts) > 2 and sum(map(len, _verdicts)) > 8 << 20):
            _verdicts.popitem(last=False)


def verdict(text: str) -> Verdict:
    """Python's verdict on the whole text (kept); Undecided when it cannot say."""
    found = _known(text)
    if isinstance(found, _Unknown):
        try:
            found = _compile(text)
        except Undecided as undecided:
            found = undecided
        _keep(text, found)
    if isinstance(found, Undecided):
        raise found
    return found


def _statement(scope: Node, offset: int) -> Node | None:
    """The statement directly in `scope` (the module, or a class's body) that holds `offset`
    (None: between statements)."""
    node = scope.descendant_for_byte_range(offset, offset)
    while node is not None and node != scope and node.parent is not None and node.parent != scope:
        node = node.parent
    return None if node is None or node == scope else node


def _future_flags(root: Node) -> tuple[int, int]:
    """The compiler flags of the file's `from __future__` imports, and where the last one ends."""
    flags, end, child = 0, 0, root.child(0) if root.child_count else None
    while child is not None and child.type in _PROLOGUE:
        if child.type == "future_import_statement":
            end = child.end_byte
            for name in child.children[3:]:
                feature = getattr(__future__, (name.text or b"").decode(errors="replace").split(" ")[0], None)
                flags |= getattr(feature, "compiler_flag", 0)
        child = child.next_sibling
    return flags, end


def _beside(node: Node | None, forward: bool) -> Node | None:
    """The next (or previous) statement in the same scope, comments stepped over."""
    while node is not None:
        node = node.next_sibling if forward else node.prev_sibling
        if node is not None and node.type != "comment":
            return node
    return None


def _around(scope: Node, offset: int) -> tuple[Node | None, Node | None]:
    """The statements of `scope` before and after `offset` (None: the scope's end)."""
    cursor = scope.walk()
    if cursor.goto_first_child_for_byte(offset) is None:
        cursor.goto_last_child()
        return cursor.node, None
    after = cursor.node
    return (cursor.node if cursor.goto_previous_sibling() else None), after


def _class_body(node: Node | None, low: int, high: int) -> Node | None:
    """The body of the class `node` is, when [low, high] lies inside it, below the header's line."""
    if node is not None and node.type == "decorated_definition":
        node = node.child_by_field_name("definition")
    if node is None or node.type != "class_definition":
        return None
    body = node.child_by_field_name("body")
    if body is None or body.start_point[0] == node.start_point[0] or not body.start_byte <= low <= high <= body.end_byte:
        return None
    return body


def _line_start(source: bytes, offset: int) -> int:
    return source.rfind(b"\n", 0, offset) + 1


def _binds_across(source: bytes, scope: Node) -> bool:
    """Whether a `global` or `nonlocal` statement stands directly in `scope`: Python then checks
    uses of the name in statements the chunk leaves out."""
    indent = b"" if scope.parent is None else source[_line_start(source, scope.start_byte) : scope.start_byte]
    pattern = re.compile(rb"(?m)^" + re.escape(indent) + rb"(?:global|nonlocal)\b")
    return pattern.search(source, scope.start_byte, scope.end_byte) is not None


def _pieces(root: Node, source: bytes, low: int, high: int) -> list[tuple[int, int]] | None:
    """The byte spans of A to compile: the headers of the classes whose body holds the whole
    change, then whole lines from the statement before the one at `low` to the statement
    after the one at `high`, in the innermost of them. The neighbours are taken in because
    tree-sitter may read a line Python refuses (an indentation that matches no block, a body
    left empty) as a statement of its own beside the change, and Python reports the error
    there. None: no chunk will do (a `global` or `nonlocal` in the scope)."""
    pieces, scope = [], root
    while True:
        first, last = _statement(scope, low), _statement(scope, high)
        body = _class_body(first, low, high) if first is not None and first == last else None
        if body is None:
            break
        pieces.append((_line_start(source, first.start_byte), _line_start(source, body.start_byte)))  # type: ignore[union-attr]
        scope = body
    if _binds_across(source, scope):
        return None
    first = _beside(first, False) if first is not None else _beside(_around(scope, low)[1], False)
    last = _beside(last, True) if last is not None else _beside(_around(scope, high)[0], True)
    start = _line_start(source, first.start_byte) if first is not None else (pieces[-1][1] if pieces else 0)
    newline = source.find(b"\n", last.end_byte) if last is not None else -1
    end = newline + 1 if newline >= 0 else len(source)
    if last is None and scope.parent is not None:
        end = source.find(b"\n", scope.end_byte) + 1 or len(source)
    return [*pieces, (start, end)]


def _chunk_text(source: bytes, pieces: list[tuple[int, int]]) -> str:
    """The pieces at their own line numbers (blank lines stand for what is left out)."""
    parts, line = [], 0
    for start, end in pieces:
        at = source.count(b"\n", 0, start)
        parts.append("\n" * (at - line) + source[start:end].decode("utf-8", "surrogatepass"))
        line = at + source.count(b"\n", start, end)
    return "".join(parts)


def changed_compile(text_b: str, tree_a: Tree, source_a: bytes, regions: Sequence[Span]) -> bool:
    """True when A is known to compile from its changed statements alone: B compiles (its
    verdict is taken, or made once and kept), tree-sitter reads A without an error, and the
    chunk compiles. False means only "not known this way"."""
    root = tree_a.root_node
    if root.has_error or not regions:
        return False
    try:
        if verdict(text_b) is not None:
            return False
    except Undecided:
        return False
    flags, prologue = _future_flags(root)
    pieces = _pieces(root, source_a, min(a for a, _ in regions), max(b for _, b in regions))
    if pieces is None or pieces[-1][0] < prologue:
        return False  # a `from __future__` import's place is checked in context
    try:
        return _compile(_chunk_text(source_a, pieces), flags) is None
    except (Undecided, UnicodeDecodeError):
        return False


def accepted(text_a: str, tree_a: Tree, source_a: bytes, text_b: str | None, regions: Sequence[Span] | None) -> Verdict:
    """Python's verdict on A: from its changed statements when that settles it, else from the
    whole text (kept either way). Undecided when Python cannot say."""
    if isinstance(_known(text_a), _Unknown) and text_b is not None and regions is not None and changed_compile(text_b, tree_a, source_a, regions):
        _keep(text_a, None)
        return None
    return verdict(text_a)
