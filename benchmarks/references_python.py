"""Python's own scope resolution as a reference oracle: `ast` for where each name is, `symtable`
(the compiler's symbol tables) for which scope binds it.

Resolved: names (loads, stores, deletes), parameters, `def`/`class` names, `global` and
`nonlocal` names, and `self.x`/`cls.x` inside a method when the method's class binds `x`
itself. Not resolved (left to either side of a rename): other attribute accesses, keyword
arguments, imported names' spellings in `import` lines. Errors: names loaded that no scope
binds and that are not builtins (as a compiler that checks names would report them).
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from pathlib import Path

from benchmarks.references import Resolution, char_offsets

_BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__",
                                  "__path__", "__annotations__", "__dict__", "__module__", "__qualname__", "__class__"}
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class PythonScopes:
    name = "python symtable"

    def resolve(self, path: Path, text: str) -> Resolution | None:
        try:
            tree = ast.parse(text)
            module = symtable.symtable(text, str(path), "exec")
        except (SyntaxError, ValueError):
            return None
        return _Resolver(text, tree, module).run()


class _Resolver:
    def __init__(self, text: str, tree: ast.Module, module: symtable.SymbolTable) -> None:
        self.text, self.tree, self.module = text, tree, module
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self.chars = char_offsets(text, "utf-8")
        self.tables: dict[tuple[int, str], list[symtable.SymbolTable]] = {}
        self.parent: dict[int, symtable.SymbolTable] = {}
        self._index(module)
        self.names: dict[int, str] = {}
        self.errors = 0
        self.star_import = any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names) for n in ast.walk(tree))

    def _index(self, table: symtable.SymbolTable) -> None:
        for child in table.get_children():
            self.tables.setdefault((child.get_lineno(), child.get_name()), []).append(child)
            self.parent[id(child)] = table
            self._index(child)

    def offset(self, line: int, column: int) -> int:
        """Character offset of a (1-based line, UTF-8 byte column) position."""
        start = self.line_starts[line - 1]
        byte = len(self.text[:start].encode()) + column
        return self.chars[byte] if byte < len(self.chars) else len(self.text)

    def run(self) -> Resolution:
        self.visit(self.tree, self.module, None)
        return Resolution(self.names, self.errors)

    def key(self, table: symtable.SymbolTable, name: str) -> str:
        """The scope that binds `name` as seen from `table` (class scopes are skipped from inside)."""
        current: symtable.SymbolTable | None = table
        first = True
        while current is not None:
            try:
                symbol = current.lookup(name)
            except KeyError:
                symbol = None
            if symbol is not None and (first or current.get_type() != "class"):
                if symbol.is_global() or symbol.is_declared_global():
                    return self._global(name)
                if symbol.is_local() or symbol.is_parameter() or symbol.is_imported():
                    return f"{id(current)}:{name}"
            first = False
            current = self.parent.get(id(current))
        return self._global(name)

    def _global(self, name: str) -> str:
        try:
            symbol = self.module.lookup(name)
            if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
                return f"{id(self.module)}:{name}"
        except KeyError:
            pass
        return f"builtin:{name}"

    def table_of(self, node: ast.AST, name: str) -> symtable.SymbolTable | None:
        tables = self.tables.get((getattr(node, "lineno", 0), name)) or []
        return tables.pop(0) if tables else None

    def visit(self, node: ast.AST, table: symtable.SymbolTable, method_class: tuple[str, symtable.SymbolTable] | None) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found = re.compile(r"(?:async\s+)?(?:def|class)\s+(\w+)").match(self.text, self.offset(node.lineno, node.col_offset))
            if found:
                self.names[found.start(1)] = self.key(table, node.name)
            for part in node.decorator_list + (node.bases + [k.value for k in node.keywords] if isinstance(node, ast.ClassDef) else []):
                self.visit(part, table, method_class)
            if not isinstance(node, ast.ClassDef):
                self._visit_defaults(node.args, table, method_class)
                if node.returns:
                    self.visit(node.returns, table, method_class)
            inner = self.table_of(node, node.name) or table
            inner_method = self._method_class(node, table, inner, method_class)
            if not isinstance(node, ast.ClassDef):
                self._visit_parameters(node.args, inner, inner_method)
            for statement in node.body:
                self.visit(statement, inner, inner_method)
            return
        if isinstance(node, _SCOPES):
            self._visit_expression_scope(node, table, method_class)
            return
        self._resolve_names(node, table, method_class)
        for child in ast.iter_child_nodes(node):
            self.visit(child, table, method_class)

    def _method_class(self, node: ast.AST, table: symtable.SymbolTable, inner: symtable.SymbolTable,
                      method_class: tuple[str, symtable.SymbolTable] | None) -> tuple[str, symtable.SymbolTable] | None:
        """Inside a method, (its first parameter's name, its class's table); nested functions keep it."""
        if isinstance(node, ast.ClassDef):
            return None
        assert isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        arguments = node.args.posonlyargs + node.args.args
        if table.get_type() == "class" and arguments:
            return arguments[0].arg, table
        return method_class

    def _visit_defaults(self, args: ast.arguments, table: symtable.SymbolTable, method_class: tuple[str, symtable.SymbolTable] | None) -> None:
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default, table, method_class)
        for argument in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            if argument.annotation:
                self.visit(argument.annotation, table, method_class)

    def _visit_parameters(self, args: ast.arguments, inner: symtable.SymbolTable, method_class: tuple[str, symtable.SymbolTable] | None) -> None:
        for argument in args.posonlyargs + args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a]:
            self.names[self.offset(argument.lineno, argument.col_offset)] = self.key(inner, argument.arg)

    def _visit_expression_scope(self, node: ast.AST, table: symtable.SymbolTable, method_class: tuple[str, symtable.SymbolTable] | None) -> None:
        if isinstance(node, ast.Lambda):
            self._visit_defaults(node.args, table, method_class)
            inner = self.table_of(node, "lambda") or table
            self._visit_parameters(node.args, inner, method_class)
            self.visit(node.body, inner, method_class)
            return
        assert isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        names = {ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp", ast.GeneratorExp: "genexpr"}
        inner = self.table_of(node, names[type(node)]) or table
        self.visit(node.generators[0].iter, table, method_class)  # evaluated in the enclosing scope
        for number, generator in enumerate(node.generators):
            self.visit(generator.target, inner, method_class)
            if number:
                self.visit(generator.iter, inner, method_class)
            for condition in generator.ifs:
                self.visit(condition, inner, method_class)
        for part in (node.key, node.value) if isinstance(node, ast.DictComp) else (node.elt,):
            self.visit(part, inner, method_class)

    def _resolve_names(self, node: ast.AST, table: symtable.SymbolTable, method_class: tuple[str, symtable.SymbolTable] | None) -> None:
        if isinstance(node, ast.Name):
            key = self.key(table, node.id)
            self.names[self.offset(node.lineno, node.col_offset)] = key
            unbound = key.startswith("builtin:") and node.id not in _BUILTINS and not self.star_import
            self.errors += isinstance(node.ctx, ast.Load) and unbound
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            start = self.offset(node.lineno, node.col_offset)
            end = self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
            for name in node.names:
                found = re.compile(r"(?<!\w)" + re.escape(name) + r"(?!\w)").search(self.text, start, end)
                if found:
                    self.names[found.start()] = self.key(table, name)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and method_class:
            receiver, class_table = method_class
            if node.value.id == receiver and self._binds(class_table, node.attr):
                end = self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)
                self.names[end - len(node.attr)] = f"{id(class_table)}:{node.attr}"

    @staticmethod
    def _binds(table: symtable.SymbolTable, name: str) -> bool:
        try:
            return table.lookup(name).is_local()
        except KeyError:
            return False
