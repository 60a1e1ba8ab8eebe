"""No import cycle among ragcli's modules, lazy (function-level) imports included, nor
among its top-level parts (a package such as evaluation/ and a module such as service).

A function-level import hides a cycle from the interpreter until the function runs; it
still ties the two modules together, so every import at any depth counts here."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ragcli"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imported(path: Path, name: str, known: set[str]) -> set[str]:
    """The ragcli modules one file imports, anywhere in it, by an import statement or by
    name (a string such as the mode registry's, which importlib imports)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from .x import y, from .. import z
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            for alias in node.names:  # `from pkg import mod` imports the module pkg.mod
                submodule = f"{base}.{alias.name}"
                found.add(submodule if submodule in known else base)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)  # a module named for importlib.import_module
    return {target for target in found if target in known and target != name}


def import_graph() -> dict[str, set[str]]:
    files = modules()
    known = set(files)
    return {name: imported(path, name, known) for name, path in files.items()}


def part_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The module graph folded to ragcli's top-level parts (ragcli.bm25.index ->
    ragcli.store); imports inside one part are left out."""

    def part(name: str) -> str:
        return ".".join(name.split(".")[:2])

    parts: dict[str, set[str]] = {part(name): set() for name in graph}
    for name, targets in graph.items():
        parts[part(name)].update(part(t) for t in targets if part(t) != part(name))
    return parts


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path that returns to its start, or None."""
    done: set[str] = set()
    for root in sorted(graph):
        if root in done:
            continue
        trail: list[str] = [root]
        on_trail = {root}
        stack = [iter(sorted(graph[root]))]
        while stack:
            step = next(stack[-1], None)
            if step is None:
                stack.pop()
                done.add(trail[-1])
                on_trail.discard(trail.pop())
            elif step in on_trail:
                return [*trail[trail.index(step) :], step]
            elif step not in done:
                trail.append(step)
                on_trail.add(step)
                stack.append(iter(sorted(graph[step])))
    return None


def test_the_cycle_finder_sees_a_lazy_import_and_names_the_cycle(tmp_path):
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
    source = tmp_path / "m.py"
    source.write_text(
        "from ragcli import config\n"
        "def f():\n"
        "    from ragcli.pipeline.modes import registry\n"
        "    import ragcli.errors\n"
        "    from . import overrides\n"
        "RUNS = {'standard': 'ragcli.pipeline.modes.standard'}\n"
    )
    known = {
        "ragcli.config",
        "ragcli.pipeline.modes.registry",
        "ragcli.errors",
        "ragcli.overrides",
        "ragcli.pipeline.modes.standard",
    }
    assert imported(source, "ragcli.m", known) == known


def test_the_graph_covers_ragcli():
    graph = import_graph()
    assert "ragcli.cli.ask" in graph["ragcli.cli"]
    assert "ragcli.service" in graph["ragcli.cli.ask"]  # imported inside the command


def test_ragcli_has_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_ragcli_s_parts_import_each_other_one_way():
    cycle = find_cycle(part_graph(import_graph()))
    assert cycle is None, "import cycle between parts: " + " -> ".join(cycle or [])
