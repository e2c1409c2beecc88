"""The package's floors: no import cycle between top-level modules and packages of `gateway`,
counting every import (module level, inside functions, and type-only ones), so no arrow runs
back up; the ground floor imports nothing of the package, and the surfaces are on top."""

from __future__ import annotations

import ast
from collections import defaultdict
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gateway"
GROUND = ("errors",)


def _unit(module: str) -> str | None:
    """`gateway.symbols.service` -> `symbols`; None outside the package."""
    parts = module.split(".")
    return parts[1] if parts[0] == "gateway" and len(parts) > 1 else None


def _module_of(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")[: len(module.split(".")) - node.level + (1 if is_package else 0)]
                node_module = ".".join(base + ([node.module] if node.module else []))
            else:
                node_module = node.module or ""
            found.add(node_module)
            found.update(f"{node_module}.{alias.name}" for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    units = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    graph: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        module = _module_of(path)
        source = _unit(module)
        if source is None:
            continue
        graph[source]
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")), module, path.name == "__init__.py"):
            target = _unit(name)
            if target in units and target != source:
                graph[source].add(target)
    return graph


def test_no_import_cycle_between_top_level_modules_and_packages() -> None:
    graph = import_graph()
    assert len(graph) > 30
    try:
        floors = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle: {' -> '.join(error.args[1])}") from None
    assert floors.index("errors") < floors.index("engine") < floors.index("api") < floors.index("surfaces")


def test_only_the_command_entry_imports_the_surfaces() -> None:
    """The gate, the symbols, the engine and the rest say what to do as values; spelling them
    for a surface (a `gateway` command line) is the surfaces' own business."""
    graph = import_graph()
    assert {unit for unit, targets in graph.items() if "surfaces" in targets} == {"entry"}


def test_the_ground_floor_imports_nothing_of_the_package() -> None:
    graph = import_graph()
    for unit in GROUND:
        assert graph[unit] == set(), (unit, graph[unit])
