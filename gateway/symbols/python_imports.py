"""Python's imports, resolved by path inside the workspace: which module a name or a module
alias in a file comes from, and which modules re-export a symbol (`from .ctx import name` in a
package's `__init__.py`). Resolution stays within the workspace's roots (the root and `src/`);
an import it cannot resolve binds the name to something else."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tree_sitter import Node, Tree

from gateway.langs import Language
from gateway.syntax import parse

if TYPE_CHECKING:
    from gateway.symbols.model import Target


def _module_file(roots: list[Path], base: Path, dotted: str, level: int) -> Path | None:
    parts = [p for p in dotted.split(".") if p]
    if level:
        folder = base.parent
        for _ in range(level - 1):
            folder = folder.parent
        candidates = [folder]
    else:
        candidates = roots
    for folder in candidates:
        stem = folder.joinpath(*parts) if parts else folder
        for candidate in (stem.with_suffix(".py") if parts else None, stem / "__init__.py"):
            if candidate is not None and candidate.is_file():
                return candidate.resolve()
    return None


def _statements(tree: Tree) -> Iterator[Node]:
    """Import statements anywhere in the file (imports inside functions count too)."""
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type in ("import_statement", "import_from_statement"):
            yield node
        elif node.type not in ("string", "comment"):
            stack.extend(reversed(node.children))


def _text(node: Node | None) -> str:
    return (node.text or b"").decode("utf-8", "replace") if node is not None else ""


class ModuleIndex:
    """Imports of the Python files given, resolved against the workspace's roots."""

    def __init__(self, root: Path, lang: Language, texts: dict[Path, str], renamed_to: str | None = None) -> None:
        """`renamed_to`: the texts are those of a rename under way (the server's edit made), in
        which an import of the new name binds the target as one of the old did."""
        self.roots = [root.resolve(), (root / "src").resolve()]
        self.renamed_to = renamed_to
        self.lang = lang
        self.trees = {path.resolve(): parse(lang, text.encode("utf-8", "surrogatepass")) for path, text in texts.items()}
        self._exports: dict[tuple[Path, str], set[Path]] = {}

    def _from_module(self, path: Path, statement: Node) -> Path | None:
        module = statement.child_by_field_name("module_name")
        if module is None:
            return None
        if module.type == "relative_import":
            prefix = next((c for c in module.children if c.type == "import_prefix"), None)
            dotted = next((c for c in module.children if c.type == "dotted_name"), None)
            return _module_file(self.roots, path, _text(dotted), len(_text(prefix)))
        return _module_file(self.roots, path, _text(module), 0)

    def _imported_names(self, statement: Node) -> Iterator[tuple[str, str]]:
        """(name, local name) of a `from m import ...` statement; ("*", "*") for a star."""
        for child in statement.children_by_field_name("name"):
            if child.type == "aliased_import":
                yield _text(child.child_by_field_name("name")), _text(child.child_by_field_name("alias"))
            else:
                yield _text(child), _text(child)
        if any(c.type == "wildcard_import" for c in statement.children):
            yield "*", "*"

    def _names(self, target: Target) -> set[str]:
        return {target.name, self.renamed_to} if self.renamed_to else {target.name}

    def exports(self, target: Target) -> set[Path]:
        """The modules through which the target's name can be imported: its own, and re-exporters."""
        key = (target.path.resolve(), target.name)
        if key in self._exports:
            return self._exports[key]
        found = {key[0]}
        grew = True
        while grew:
            grew = False
            for path, tree in self.trees.items():
                if path in found:
                    continue
                for statement in _statements(tree):
                    if statement.type == "import_from_statement" and self._from_module(path, statement) in found:
                        names = self._names(target) | {"*"}
                        if any(name in names and local in names for name, local in self._imported_names(statement)):
                            found.add(path)
                            grew = True
                            break
        self._exports[key] = found
        return found

    def binding(self, path: Path, tree: Tree, target: Target) -> bool | None:
        """True when the file imports the target's name from a module that exports it, False
        when it imports that name from elsewhere, None when no import binds the name."""
        exporters, bound = self.exports(target), None
        for statement in _statements(tree):
            if statement.type != "import_from_statement":
                continue
            for name, local in self._imported_names(statement):
                if local in self._names(target) or (name == "*" and bound is None):
                    origin = self._from_module(path.resolve(), statement)
                    if origin in exporters:
                        return True
                    if name != "*":
                        bound = False
        return bound

    def is_module_of(self, path: Path, receiver: str, target: Target) -> bool | None:
        """Whether `receiver` (a name or dotted name in `path`) is a module exporting the target:
        None when the file does not bind it to a module."""
        tree = self.trees.get(path.resolve())
        if tree is None:
            return None
        exporters = self.exports(target)
        for statement in _statements(tree):
            for module, local in self._modules_bound(path.resolve(), statement):
                if local == receiver:
                    return module in exporters if module is not None else False
        return None

    def _modules_bound(self, path: Path, statement: Node) -> Iterator[tuple[Path | None, str]]:
        """(module file or None, the local name bound to it) for each module a statement binds."""
        if statement.type == "import_statement":
            for child in statement.children_by_field_name("name"):
                dotted = child.child_by_field_name("name") if child.type == "aliased_import" else child
                local = _text(child.child_by_field_name("alias")) if child.type == "aliased_import" else _text(dotted)
                yield _module_file(self.roots, path, _text(dotted), 0), local
            return
        origin = self._from_module(path, statement)
        if origin is None or origin.name != "__init__.py":
            return
        for name, local in self._imported_names(statement):
            if name != "*":
                yield _module_file([origin.parent], path, name, 0), local
