"""The project's imports point the way ARCHITECTURE.md says they do, and none goes round in a circle.

Every module of every top-level package is parsed (imports inside functions
included); a failure names the file and line of each offending import.
"""

import ast
import graphlib
from pathlib import Path

import pytest

from site_build import project

ROOT = project.ROOT
SITE = {"estimators", "figures", "pyodide_widgets", "site_build"}

# Which packages (or single modules) each package may import besides itself, as
# ARCHITECTURE.md's "Data flow" and "Layout" state it: arrows point one way, and
# nothing imports the macros module but the tests that check what it registers.
MAY_IMPORT = {
    "estimators": set(),
    "figures": {"estimators"},
    "pyodide_widgets": {"estimators"},
    "site_build": {"estimators", "figures", "pyodide_widgets"},
    "macros": SITE,
    "harness": SITE,
    "bench": SITE | {"harness"},
    "tests": SITE | {"macros", "harness"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_sources() -> dict[str, Path]:
    """{module name: file} for every module of the project's packages."""
    return {
        module_name(path): path
        for package in project.packages()
        for path in sorted((ROOT / package).rglob("*.py"))
        if not {"node_modules", "__pycache__"} & set(path.parts)
    }


def imports(module: str, path: Path, known: set) -> list[tuple[int, str]]:
    """(line, project module) of each import in `module`'s source, wherever it stands in the file."""
    is_package = path.name == "__init__.py"
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                # One dot is the module's own package: a package's __init__ is that package itself.
                parts = module.split(".")
                anchor = parts[: len(parts) - node.level + is_package]
                base = ".".join(anchor + ([base] if base else []))
            # `from package import name`: the submodule when `name` is one, else the package.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name:
                found.append((node.lineno, name))
    return found


def allowed(source: str, target: str) -> bool:
    package = source.split(".")[0]
    return target.split(".")[0] == package or any(
        target == entry or target.startswith(entry + ".") for entry in MAY_IMPORT[package]
    )


def direction_offences(graph: dict) -> list[str]:
    """One line per import against MAY_IMPORT, naming its file and line."""
    offences = []
    for source, (path, edges) in graph.items():
        package = source.split(".")[0]
        for line, target in edges:
            if not allowed(source, target):
                may = ", ".join(sorted(MAY_IMPORT[package])) or "nothing of the project"
                offences.append(f"{path.relative_to(ROOT)}:{line}: {package} imports {target}; ARCHITECTURE.md lets it import only {may}")
    return offences


def cycle(graph: dict) -> str | None:
    """An import cycle of `graph`, one line per import in it, or None."""
    # TopologicalSorter takes each node's predecessors: a module's imports come before it.
    imported = {module: {target for _, target in edges if target != module} for module, (_, edges) in graph.items()}
    sorter = graphlib.TopologicalSorter(imported)
    try:
        sorter.prepare()
    except graphlib.CycleError as error:
        # Each module in the cycle is imported by the one after it; read backwards, each imports the next.
        modules = error.args[1][::-1]
    else:
        return None
    steps = []
    for module, following in zip(modules, modules[1:]):
        path, edges = graph[module]
        line = next(line for line, target in edges if target == following)
        steps.append(f"{path.relative_to(ROOT)}:{line}: {module} imports {following}")
    return "import cycle:\n  " + "\n  ".join(steps)


@pytest.fixture(scope="module")
def graph() -> dict:
    """{module: (file, [(line, project module it imports)])}."""
    sources = project_sources()
    return {module: (path, imports(module, path, set(sources))) for module, path in sources.items()}


def test_every_package_has_a_place_in_the_architecture():
    assert set(project.packages()) == set(MAY_IMPORT), (
        "add the package to ARCHITECTURE.md's layout and to MAY_IMPORT here, saying what it may import"
    )


def test_imports_follow_the_architecture(graph):
    offences = direction_offences(graph)
    assert not offences, "\n".join(offences)


def test_no_import_goes_round_a_circle(graph):
    found = cycle(graph)
    assert found is None, found
