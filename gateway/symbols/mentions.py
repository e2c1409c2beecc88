"""Where a symbol's name is still spelt, read from syntax trees: what refers to it for sure
(tied: its definition, its own scope, a member access through `self` or a receiver of its
type, a Python import of its module), what may (an import, an access on an object of unknown
type, a use in a file that shares its namespace), and what is something else (another
definition, a local of the same name, a member of another type).

A rename asks this after the server's edit (or instead of one): tied places are renamed as
well, the others are reported, so a rename is called complete only when nothing may still
refer to the old name. No language server is asked here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Node

from gateway.langs import Language
from gateway.symbols.model import Target
from gateway.symbols.name_strings import EXPORT_LIST, name_strings
from gateway.symbols.python_imports import ModuleIndex
from gateway.symbols.text import byte_to_char
from gateway.syntax import Definition, definitions, parse

# Receivers that name the enclosing type's own instance (or the type itself).
SELF_NAMES = {"self", "this", "cls", "Self", "@"}
_RECEIVER_FIELDS = ("object", "operand", "receiver", "scope", "path", "value", "expression", "argument")
_MEMBER_FIELDS = ("attribute", "property", "field", "method", "name")
_FUNCTION_WORDS = ("function", "method", "lambda", "constructor", "closure", "func_literal")


@dataclass(frozen=True)
class Mention:
    """One token spelling the name: characters [start, end) of `path`'s text, 1-based line."""

    path: Path
    start: int
    end: int
    line: int
    tied: bool
    why: str

    def place(self, display: Callable[[Path], str]) -> str:
        return f"{display(self.path)}:{self.line}"


def _is_name_token(node: Node, name: bytes) -> bool:
    return node.child_count == 0 and node.text == name and ("identifier" in node.type or node.type in ("constant", "word"))


def _tokens(node: Node, name: bytes) -> Iterator[Node]:
    cursor = node.walk()
    while True:
        current = cursor.node
        if current is not None and _is_name_token(current, name):
            yield current
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return


def _receiver(node: Node) -> Node | None:
    """The object a member access reads `node` from; None when `node` is not such a member."""
    parent = node.parent
    if parent is not None and parent.type == "navigation_suffix":  # Kotlin's grammar names no fields
        access = parent.parent
        return access.named_children[0] if access is not None and access.named_children[0] != parent else None
    if parent is None or not any(parent.child_by_field_name(f) == node for f in _MEMBER_FIELDS):
        return None
    for field in _RECEIVER_FIELDS:
        found = parent.child_by_field_name(field)
        if found is not None and found != node:
            return found
    return None


def _is_receiver(node: Node) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "navigation_expression":
        return parent.named_children[0] == node
    return parent is not None and any(parent.child_by_field_name(f) == node for f in _RECEIVER_FIELDS)


def _enclosing(node: Node, words: tuple[str, ...]) -> Node | None:
    current = node.parent
    while current is not None and not any(w in current.type for w in words):
        current = current.parent
    return current


_TYPE_WORDS = ("class", "struct", "impl", "interface", "trait", "object", "module")


def _enclosing_type(node: Node) -> Node | None:
    """The type declaration around `node`: past its body (Java's and Kotlin's `class_body`),
    which starts after the declaration's name; never the file itself (Python's `module`)."""
    owner = _enclosing(node, _TYPE_WORDS)
    while owner is not None and owner.type.endswith("_body"):
        owner = _enclosing(owner, _TYPE_WORDS)
    return owner if owner is not None and owner.parent is not None else None


def _spells_in_header(owner: Node, name: str, own_name: bool) -> bool:
    """Whether a type declaration's header spells `name`: in its bases (a type deriving from it),
    or (`own_name`: where a type's name is seen beyond its file) as its name (the type reopened)."""
    body, named = owner.child_by_field_name("body"), owner.child_by_field_name("name")
    start = named.end_byte if named is not None and not own_name else owner.start_byte
    header = (owner.text or b"")[start - owner.start_byte : (body.start_byte if body is not None else owner.end_byte) - owner.start_byte]
    return re.search(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])", header) is not None


def _in_import(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if "import" in current.type or "export_clause" in current.type or current.type == "use_declaration":
            return True
        current = current.parent
    return False


# Definitions named by the type they belong to (Rust's `impl Buf`, `impl Default for Buf`): their
# name refers to that type, as any other use of it does.
_NAMED_AFTER_ANOTHER = frozenset({"impl"})

_DECLARATIONS = ("var_spec", "variable_declarator", "typed_parameter", "variable_declaration")
# Declared "types" that leave the type to the compiler.
_INFERRED = {"var", "val", "auto", "let", "_"}


def _declared_type(declaration: Node) -> Node | None:
    kind = declaration.child_by_field_name("type")
    if kind is None:  # Kotlin's grammar names no fields: `cart: Cart`
        kind = next((c for c in declaration.named_children if c.type in ("user_type", "nullable_type")), None)
    return kind


def _constructed_type(declaration: Node) -> str | None:
    """Kotlin's `val cart = Cart()`: the class a local is initialised with an instance of
    (a capitalised callee, by the language's naming of classes and of factory functions)."""
    holder = declaration.parent
    if declaration.type != "variable_declaration" or holder is None or holder.type != "property_declaration":
        return None
    call = next((c for c in holder.named_children if c.type == "call_expression"), None)
    callee = call.named_children[0] if call is not None else None
    if callee is None or callee.type != "simple_identifier" or not (callee.text or b"")[:1].isupper():
        return None
    return (callee.text or b"").decode("utf-8", "replace")


def _binding_type(function: Node, variable: bytes) -> str | None:
    """The declared type's text of `variable` among `function`'s parameters and declarations."""
    for token in _tokens(function, variable):
        declaration = token.parent
        while declaration is not None and declaration != function:
            kind = _declared_type(declaration)
            if kind is not None and kind != token:
                return kind.text.decode("utf-8", "replace") if kind.text else None
            if "parameter" not in declaration.type and "pattern" not in declaration.type and declaration.type not in _DECLARATIONS:
                break
            constructed = _constructed_type(declaration)
            if constructed is not None:
                return constructed
            declaration = declaration.parent
    return None


def _base_type(text: str) -> str:
    for mark in ("*", "&", "mut ", "const ", ":"):
        text = text.replace(mark, " ")
    return text.strip().split("<")[0].split("[")[0].strip().rsplit(".", 1)[-1]


def _binds_locally(node: Node, name: bytes) -> bool:
    """Whether the function around `node` declares a parameter or local spelt `name` (`node`
    itself among them: a parameter of the name is not the symbol, nor are its uses)."""
    function = _enclosing(node, _FUNCTION_WORDS)
    while function is not None:
        if any(_declares(token) for token in _tokens(function, name)):
            return True
        function = _enclosing(function, _FUNCTION_WORDS)
    return False


def _declares(token: Node) -> bool:
    """Whether the token is the name a parameter or local declaration binds."""
    parent = token.parent
    if parent is None:
        return False
    if parent.type == "arrow_function":  # `helper => helper + 1`
        return parent.child_by_field_name("parameter") == token
    if "parameter" in parent.type:  # its default value is a use
        return token not in (parent.child_by_field_name("value"), parent.child_by_field_name("default_value"))
    if parent.type in ("variable_declarator", "var_spec", "short_var_declaration", "let_declaration"):
        return True
    if "assignment" in parent.type and parent.child_by_field_name("left") == token:
        return True
    return parent.type == "expression_list" and parent.parent is not None and parent.parent.type == "short_var_declaration"


class MentionFinder:
    """Mentions of one target's name across files, each file parsed once."""

    def __init__(self, target: Target, modules: ModuleIndex | None) -> None:
        self.target = target
        self.modules = modules

    def in_file(self, path: Path, lang: Language, text: str) -> list[Mention]:
        source = text.encode("utf-8", "surrogatepass")
        name = self.target.name.encode()
        if name not in source:
            return []
        tree = parse(lang, source)
        own = {d.name_start_byte: d for d in definitions(lang, tree) if d.kind not in _NAMED_AFTER_ANOTHER}
        imported = self.modules.binding(path, tree, self.target) if self.modules is not None else None
        to_char = byte_to_char(text)
        found = []
        for token in _tokens(tree.root_node, name):
            verdict = self._judge(path, token, own, imported)
            if verdict is not None:
                tied, why = verdict
                found.append(Mention(path, to_char(token.start_byte), to_char(token.end_byte), token.start_point[0] + 1, tied, why))
        if lang.own_parser == "python":
            namesake = path != self.target.path and any(d.name_path == self.target.name for d in own.values())
            found += self._in_strings(path, tree.root_node, None if namesake else imported, to_char, namesake)
        return found

    def _in_strings(self, path: Path, root: Node, imported: bool | None, to_char: Callable[[int], int],
                    namesake: bool) -> list[Mention]:
        """Strings that name the target: an `__all__` entry of its own module, or of a module
        that imports it from there, is tied to it; one of a module that may (or a string a
        lookup or an import is given) may refer to it. A module defining a namesake exports its own."""
        target, found = self.target, []
        for string in name_strings(root, target.name):
            if string.exported and (target.parent_name is not None or namesake):
                continue  # a member is not exported by name
            tied = string.exported and (path == target.path or imported is True)
            if string.exported and not tied and imported is False:
                continue  # exports a namesake imported from elsewhere
            why = f"{EXPORT_LIST} entry" if string.exported else "string naming it"
            found.append(Mention(path, to_char(string.start_byte), to_char(string.end_byte), string.line, tied, why))
        return found

    def _judge(self, path: Path, token: Node, own: dict[int, Definition], imported: bool | None) -> tuple[bool, str] | None:
        target, same_file = self.target, path == self.target.path
        if same_file and self._is_target_definition(token):
            return True, "definition"
        if token.start_byte in own:
            return self._namesake(own, own[token.start_byte]) if same_file else None
        if token.type == "property_identifier" and token.parent is not None and token.parent.type == "pair" \
                and token.parent.child_by_field_name("key") == token:
            return None  # an object literal's key (`{helper: assist}`) names a property, not what is in scope
        receiver = _receiver(token)
        if receiver is not None:
            return self._member(path, token, receiver)
        if target.parent_name is not None and (_is_receiver(token) or _in_import(token)):
            return None  # a member is neither imported by name nor the object of an access
        if _in_import(token):
            if imported is not None:
                return (True, "import") if imported else None
            return (False, "import")
        if target.parent_name is not None:
            owner = _enclosing_type(token)
            inside = same_file and owner is not None and owner.start_byte <= self._parent_start() < owner.end_byte
            if inside and owner is not None and not target.lang.bare_members:  # a method's body reaches members through a receiver
                function = _enclosing(token, _FUNCTION_WORDS)
                inside = function is None or function.start_byte < owner.start_byte
            return (True, "member in its type") if inside and not _binds_locally(token, token.text or b"") else None
        if _binds_locally(token, token.text or b""):
            return None
        if same_file or imported:
            return True, "same scope"
        if imported is False or target.lang.rename_scope == "module":
            return None
        return (True, "same package") if target.lang.rename_scope == "package" and path.parent == target.path.parent else (False, "use")

    def _member(self, path: Path, token: Node, receiver: Node) -> tuple[bool, str] | None:
        target = self.target
        text = (receiver.text or b"").decode("utf-8", "replace")
        if target.parent_name is None:
            if self.modules is not None:
                tied = self.modules.is_module_of(path, text, target)
                return (True, "module attribute") if tied else None if tied is False else (False, "attribute")
            return False, "attribute"
        if text in SELF_NAMES or text == target.parent_name:
            owner = _enclosing_type(token)
            if path != target.path:  # through its class's name, or `self` in that class or one naming it (reopened, derived)
                ours = owner is None or text == target.parent_name or _spells_in_header(owner, target.parent_name,
                                                                                       target.lang.rename_scope != "module")
            else:
                ours = owner is None or owner.start_byte <= self._parent_start() < owner.end_byte
            if ours:
                return True, "member through self"
        function = _enclosing(token, _FUNCTION_WORDS)
        declared = _binding_type(function, receiver.text or b"") if function is not None and receiver.child_count == 0 else None
        if declared is not None and declared.strip() not in _INFERRED:
            return (True, "member through its type") if _base_type(declared) == target.parent_name else None
        return False, "member of an object of unknown type"

    def _namesake(self, own: dict[int, Definition], other: Definition) -> tuple[bool, str] | None:
        """Another definition of the target's name path in its file: where one of the two is a
        declaration (a C++ member declared in its class and defined outside it, a prototype),
        they may be one thing, so it is reported; otherwise it is something else (an overload)."""
        mine = next((d for d in own.values() if d.name_start_byte <= self.target.name_byte < d.name_end_byte), None)
        if other.name_path != self.target.symbol.name_path or mine is None:
            return None
        return (False, "a declaration of the same name") if None in (other.body_start_byte, mine.body_start_byte) else None

    def _is_target_definition(self, token: Node) -> bool:
        """The target's own name: the token where it starts, or the last part of a scoped name
        that starts there (Ruby's `class RDoc::Markup::Attributes`, C++'s `void A::f()`)."""
        if token.start_byte == self.target.name_byte:
            return True
        node = token.parent
        while node is not None and node.start_byte > self.target.name_byte:
            node = node.parent
        return node is not None and node.start_byte == self.target.name_byte and node.end_byte == token.end_byte

    def _parent_start(self) -> int:
        return self.target.parent_byte
