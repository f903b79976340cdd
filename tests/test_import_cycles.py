"""No import cycle among corpus_pipeline's modules: a cycle makes what a module holds depend on
which module a caller happened to import first (a partly initialized module), and two modules that
need each other are one concept split in two.

Every import counts, also one inside a function (it only defers the cycle to the first call).
`from package import name` is an edge to `package` (the name is looked up there, in a package
that may be half initialized) and to `package.name` when that is a module; `import package.module`
is an edge to the module only, and so is the implicit import of a module's parent package (else
every package would be a cycle with the submodules its __init__ imports).
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parents[1] / "corpus_pipeline"


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules(root: Path) -> dict[str, Path]:
    return {_module_name(path, root): path for path in root.rglob("*.py")}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.add(base)
                if submodule in modules:
                    found.add(submodule)
    return {target for target in found if target in modules and target != name}


def import_graph(root: Path = PACKAGE_ROOT) -> dict[str, set[str]]:
    """Every module of the package at `root` (another checkout's too) and the modules it imports."""
    modules = _modules(root)
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            following = next(edges, None)
            if following is not None:
                if following not in index:
                    index[following] = low[following] = len(index)
                    stack.append(following)
                    on_stack.add(following)
                    work.append((following, iter(sorted(graph[following]))))
                elif following in on_stack:
                    low[node] = min(low[node], index[following])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_the_checker_finds_a_cycle_and_its_members():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_graph_resolves_from_imports_to_modules():
    graph = import_graph()
    assert "corpus_pipeline.engine.registry" in graph["corpus_pipeline.pipeline.steps"]
    assert "corpus_pipeline.report.html_page" in graph["corpus_pipeline.report.write"]


def test_corpus_pipeline_has_no_import_cycle():
    assert cycles(import_graph()) == []
