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


# The engine's face: what a surface (`gateway/surfaces/**`) may import of the rest of the package.
FACE = {
    "gateway.api", "gateway.engine", "gateway.results", "gateway.errors", "gateway.config", "gateway.hostcalls",
    "gateway.langs",  # languages are data: `gateway languages`, the MCP server's list
}
# The plumbing of a process (framing, state directory, environment, progress, workers): not the
# engine's, and surfaces run on it.
PLUMBING = {
    "gateway.progress", "gateway.userstate", "gateway.callerenv", "gateway.fastjson", "gateway.framing", "gateway.roots",
    "gateway.reading", "gateway.atomic", "gateway.reaper", "gateway.workers",
}
# Each surface module that reaches past the face, for what, by name.
PAST_THE_FACE = {
    # Speed: the hook's thin client and a cold command bound or start language servers before the engine is loaded.
    ("gateway.surfaces.hooks.client", "gateway.lsp.manager"),  # waiting_at_most, for a hook answered in its own process
    ("gateway.surfaces.cli_run", "gateway.lsp.early"),  # a cold command starts its server before the engine loads
    # The daemon's own process: the servers' wait, their memory, their start ahead of the first call.
    ("gateway.surfaces.daemon", "gateway.lsp.manager"),
    ("gateway.surfaces.daemon", "gateway.lsp.session"),
    ("gateway.surfaces.daemon", "gateway.bounded"),  # its own memory: the caches settle between its requests
    ("gateway.surfaces.daemon", "gateway.symbols.servers"),
    # ... and its watch of the workspace (inotify), which the check after each shell command reads.
    ("gateway.surfaces.daemon", "gateway.watcher"),
    # ... and the order of its requests: another client's operation waits for a hook's answer being worked out.
    ("gateway.surfaces.daemon", "gateway.priority"),
    # `gateway enforce` and `gateway doctor` read and re-arm the typed-edit state, and list the servers found.
    ("gateway.surfaces.cli_enforce", "gateway.typed.service"),
    ("gateway.surfaces.cli_enforce", "gateway.typed.arming"),
    ("gateway.surfaces.cli_enforce", "gateway.typed.watch"),
    ("gateway.surfaces.cli_enforce", "gateway.workspace"),
    ("gateway.surfaces.cli_enforce", "gateway.lsp.discovery"),
    # The typed-edit kinds and declarations the `declare` operation takes.
    ("gateway.surfaces.operations", "gateway.typed.kinds"),
    ("gateway.surfaces.operations", "gateway.typed.declaration"),
}


def _module_imports() -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports (module level, inside
    functions, under `if TYPE_CHECKING`), each name taken to the module that holds it."""
    modules = {_module_of(path): path for path in PACKAGE.rglob("*.py")}

    def holder(name: str) -> str | None:
        while name not in modules and "." in name:
            name = name.rsplit(".", 1)[0]
        return name if name in modules else None

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {holder(name) for name in _imported(tree, module, path.name == "__init__.py")}
        graph[module] = {name for name in found if name not in (None, module, "gateway")}  # `from gateway import x`: x counts
    return graph


def test_a_surface_imports_only_the_engines_face() -> None:
    """Surfaces translate: they reach the engine through its face (the engine, the API, results,
    errors, configuration, host calls), and past it only where `PAST_THE_FACE` says why."""
    graph = _module_imports()
    past = {(module, target) for module, targets in graph.items() if module.startswith("gateway.surfaces")
            for target in targets if not target.startswith("gateway.surfaces") and target not in FACE | PLUMBING
            and not target.startswith("gateway.hostcalls.")}
    assert past <= PAST_THE_FACE, sorted(past - PAST_THE_FACE)
    assert past == PAST_THE_FACE, f"no longer needed: {sorted(PAST_THE_FACE - past)}"


def test_no_folder_has_an_import_circle() -> None:
    """Within each folder, no module imports (at module level, inside a function, or for type
    checking) one that imports it back, however far round."""
    graph = _module_imports()
    folders: dict[str, set[str]] = defaultdict(set)
    for module in graph:
        path = PACKAGE.parent / module.replace(".", "/")
        folders[str(path if path.is_dir() else path.parent)].add(module)
    circles = []
    for members in folders.values():
        inside = {module: graph[module] & members for module in members}
        try:
            list(TopologicalSorter(inside).static_order())
        except CycleError as error:
            circles.append(" -> ".join(error.args[1]))
    assert circles == []
