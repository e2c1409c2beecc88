"""Pure: definitions a write takes away without deleting their text, as the language sees them.

Two ways, each judged like the definition's removal or replacement:
- a statement that unbinds or replaces it, named by `queries/<lang>/shadows.scm` (@shadow in
  @statement): `del f`, `#define f g`, Ruby's `define_method(:f)`, `undef f`;
- a change of the conditions it is defined under: wrapped in `if False:` or `#if 0`, moved
  out of an `#ifdef`, put under a `try:`. The chain of enclosing conditional statements,
  with their conditions, is part of a definition's header.
"""

from __future__ import annotations

from dataclasses import dataclass

from tree_sitter import Node, QueryCursor, Tree

from gateway.gate.judgement import _Judgement
from gateway.langs import Language
from gateway.syntax import Definition, definitions, extra_query

# Statements that decide whether, or which, definitions inside them exist.
_CONDITIONAL = {
    "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause", "finally_clause",
    "while_statement", "for_statement", "with_statement", "match_statement", "case_clause",
    "preproc_if", "preproc_ifdef", "preproc_elif", "preproc_elifdef", "preproc_else",
    "if", "unless", "elsif", "else", "begin", "rescue", "if_expression", "if_let_expression",
}


@dataclass(frozen=True)
class Hidden:
    """A definition of B that A takes away: `how` says by what, `line` is where (in A)."""

    definition: Definition
    how: str
    line: int


def _node_of(tree: Tree, definition: Definition) -> Node | None:
    return tree.root_node.descendant_for_byte_range(definition.start_byte, max(definition.start_byte, definition.end_byte - 1))


def _guarded_name(node: Node) -> str | None:
    """X for `#ifndef X` or `#if !defined(X)`."""
    condition = node.child_by_field_name("name") or node.child_by_field_name("condition")
    if condition is None:
        return None
    text = "".join((condition.text or b"").decode("utf-8", "replace").split())
    if node.type == "preproc_ifdef":
        return text if (node.text or b"").startswith(b"#ifndef") else None
    for form in ("!defined(", "!defined"):
        if text.startswith(form):
            return text[len(form) :].rstrip(")")
    return None


def _include_guard(node: Node) -> bool:
    """Whether `node` is a header's include guard: the file's one statement outside comments,
    `#ifndef X` or `#if !defined(X)` followed by `#define X`. It decides nothing about which
    definitions exist, so renaming it (X_H to _X_H_) moves no definition under a condition."""
    parent = node.parent
    if node.type not in ("preproc_ifdef", "preproc_if") or parent is None or parent.parent is not None:
        return False
    if any(other != node and "comment" not in other.type for other in parent.named_children):
        return False
    name = _guarded_name(node)
    body = [child for child in node.named_children[1:] if "comment" not in child.type]
    defined = body[0].child_by_field_name("name") if body and body[0].type == "preproc_def" else None
    return name is not None and defined is not None and (defined.text or b"").decode("utf-8", "replace") == name


def _guards(tree: Tree, definition: Definition) -> tuple[tuple[str, str], ...]:
    """The conditional statements around a definition, outermost first, with their conditions."""
    node, chain = _node_of(tree, definition), []
    while node is not None:
        if node.type in _CONDITIONAL and not _include_guard(node):
            condition = node.child_by_field_name("condition") or node.child_by_field_name("name")
            chain.append((node.type, " ".join((condition.text or b"").decode("utf-8", "replace").split()) if condition else ""))
        node = node.parent
    return tuple(reversed(chain))


def _describe_guard(tree: Tree, definition: Definition) -> tuple[str, int]:
    node = _node_of(tree, definition)
    while node is not None and (node.type not in _CONDITIONAL or _include_guard(node)):
        node = node.parent
    if node is None:
        return "no longer under the conditions it was defined under", definition.start_line
    head = (node.text or b"").decode("utf-8", "replace").split("\n", 1)[0].strip()
    return f"now under `{head[:60]}`", node.start_point[0] + 1


def guarded(judgement: _Judgement) -> list[Hidden]:
    """Paired definitions whose enclosing conditions the write changed."""
    found = []
    for b, a in judgement.matching.pairs:
        if _guards(judgement.tree_b, b) != _guards(judgement.tree_a, a):
            how, line = _describe_guard(judgement.tree_a, a)
            found.append(Hidden(b, how, line))
    return found


def _shadows(lang: Language, tree: Tree, window: tuple[int, int]) -> list[tuple[str, Node]]:
    query = extra_query(lang, "shadows")
    if query is None:
        return []
    cursor = QueryCursor(query)
    cursor.set_byte_range(*window)
    found = []
    for _, captures in cursor.matches(tree.root_node):
        names, statements = captures.get("shadow", []), captures.get("statement", [])
        for name in names:
            found.append(((name.text or b"").decode("utf-8", "replace").lstrip(":").strip("\"'"), statements[0] if statements else name))
    return found


def _scope(definitions: list[Definition], node: Node) -> str:
    """The name path of the innermost definition around `node` ("" at the top), other than one
    the statement itself makes (`define_method(:f)` is a definition of `f`)."""
    around = [d for d in definitions if d.start_byte <= node.start_byte and node.end_byte <= d.end_byte
              and not node.start_byte <= d.name_start_byte < node.end_byte]
    return max(around, key=lambda d: d.start_byte).name_path if around else ""


def shadowed(judgement: _Judgement) -> list[Hidden]:
    """B's definitions that a statement new in A unbinds or replaces in the same scope."""
    lang = judgement.lang
    new = _shadows(lang, judgement.tree_a, judgement.window_a)
    if not new:
        return []
    old = {(name, node.start_byte) for name, node in _shadows(lang, judgement.tree_b, (0, judgement.tree_b.root_node.end_byte))}
    defs_b, defs_a = definitions(lang, judgement.tree_b), definitions(lang, judgement.tree_a)
    found, back = [], judgement.mapping.reversed()
    for name, statement in new:
        start = back(statement.start_byte)
        if start is not None and (name, start) in old:
            continue
        scope = _scope(defs_a, statement)
        path = f"{scope}/{name}" if scope else name
        target = next((d for d in defs_b if d.name_path == path), None)
        if target is not None:
            text = " ".join((statement.text or b"").decode("utf-8", "replace").split())
            found.append(Hidden(target, f"`{text[:60]}`", statement.start_point[0] + 1))
    return found

