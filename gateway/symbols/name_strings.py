"""Python strings that name a definition: the entries of `__all__` (a module's export list, and
a package's re-export list), and the names `getattr`-like calls and `importlib` look up.

An `__all__` entry is the definition's name for `from module import *`: left behind by a rename,
that import raises. A string given to `getattr(module, "name")` or `importlib.import_module`
may name it: a rename reports those as places it did not change.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from tree_sitter import Node

EXPORT_LIST = "__all__"
_LOOKUPS = {"getattr", "hasattr", "setattr", "delattr"}
_IMPORTS = ("import_module", "__import__")
_CONTAINERS = ("list", "tuple", "set", "parenthesized_expression")


@dataclass(frozen=True)
class NameString:
    """The characters of one string literal's content that spell the name (byte offsets)."""

    start_byte: int
    end_byte: int
    line: int
    exported: bool  # an entry of `__all__`; else a string a lookup or an import is given


def _strings(node: Node) -> Iterator[Node]:
    cursor = node.walk()
    while True:
        current = cursor.node
        if current is not None and current.type == "string":
            yield current
        elif cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _in_export_list(string: Node) -> bool:
    """`__all__ = [...]`, `__all__ += (...)`, `__all__.extend([...])`, `__all__.append("...")`."""
    node = string.parent
    while node is not None and node.type in _CONTAINERS:
        node = node.parent
    if node is not None and node.type in ("assignment", "augmented_assignment"):
        left = node.child_by_field_name("left")
        return left is not None and left.text == EXPORT_LIST.encode()
    if node is not None and node.type == "argument_list" and node.parent is not None and node.parent.type == "call":
        function = node.parent.child_by_field_name("function")
        receiver = function.child_by_field_name("object") if function is not None and function.type == "attribute" else None
        return receiver is not None and receiver.text == EXPORT_LIST.encode()
    return False


def _called_with(string: Node) -> str | None:
    """The name of the function a call passes `string` to directly, if it is one."""
    arguments = string.parent
    if arguments is None or arguments.type != "argument_list" or arguments.parent is None:
        return None
    function = arguments.parent.child_by_field_name("function")
    if function is None:
        return None
    if function.type == "attribute":
        function = function.child_by_field_name("attribute")
    return (function.text or b"").decode("utf-8", "replace") if function is not None else None


def name_strings(root: Node, name: str) -> list[NameString]:
    """The strings under `root` (a Python tree) that name `name`: exported or looked up."""
    found = []
    for string in _strings(root):
        content = [c for c in string.named_children if c.type == "string_content"]
        if len(content) != 1:
            continue
        text = (content[0].text or b"").decode("utf-8", "replace")
        called = _called_with(string)
        if text == name and _in_export_list(string):
            found.append(NameString(content[0].start_byte, content[0].end_byte, content[0].start_point[0] + 1, True))
        elif (text == name and called in _LOOKUPS) or (called in _IMPORTS and text.rpartition(".")[2] == name):
            found.append(NameString(content[0].start_byte, content[0].end_byte, content[0].start_point[0] + 1, False))
    return found
