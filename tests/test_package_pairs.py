"""No two packages of corpus_pipeline import each other (beside test_import_cycles.py, which finds
cycles among modules). A package here is a room: a subpackage (`engine`, `quality`) or a top-level
module (`failures`, `gates`). Two rooms that import each other have no floor between them: each
change to one may break the other, and neither can be read, tested or replaced alone.

`ALLOWED` lists the pairs that remain, each with what it would take to remove it; a pair removed
must leave the list too (the test fails on a stale entry), and a new pair fails the test.

    python tests/test_package_pairs.py [PACKAGE_DIR]

prints, for this checkout or another's `corpus_pipeline/`, the pairs with their imports each way,
the imports that run back up (in each pair, those of the direction with fewer), and the largest
set of rooms that reach each other (a knot).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

from test_import_cycles import PACKAGE_ROOT, cycles, import_graph

ALLOWED: set[tuple[str, str]] = set()
# engine/'s own floors, bottom up: the store (a stage directory's lifecycle) imports nothing else of
# engine/, the executors only the store; registry, lifecycle and run stand above both. A nested
# package is part of its room above (engine.store is the room engine); these floors are inside it.
ENGINE_FLOORS = ("store", "exec")


def room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def room_imports(graph: dict[str, set[str]]) -> Counter:
    """(room, room it imports): how many module imports, between two rooms only."""
    counts: Counter = Counter()
    for module, targets in graph.items():
        for target in targets:
            if "." in module and "." in target and room(module) != room(target):
                counts[(room(module), room(target))] += 1
    return counts


def mutual_pairs(counts: Counter) -> set[tuple[str, str]]:
    return {tuple(sorted(pair)) for pair in counts if (pair[1], pair[0]) in counts}


def back_up_imports(counts: Counter) -> int:
    """In each mutual pair, the imports of the direction with fewer: those that run back up."""
    return sum(min(counts[(a, b)], counts[(b, a)]) for a, b in mutual_pairs(counts))


def largest_knot(counts: Counter) -> list[str]:
    graph: dict[str, set[str]] = {}
    for a, b in counts:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    return max(cycles(graph), key=len, default=[])


def test_the_counts_find_a_pair_and_its_back_up_imports():
    counts = Counter({("a", "b"): 3, ("b", "a"): 1, ("b", "c"): 2})
    assert mutual_pairs(counts) == {("a", "b")} and back_up_imports(counts) == 1
    assert largest_knot(counts) == ["a", "b"]


def test_no_two_packages_import_each_other_but_the_listed_ones():
    pairs = mutual_pairs(room_imports(import_graph()))
    assert pairs - ALLOWED == set(), "new packages that import each other"
    assert ALLOWED - pairs == set(), "no longer import each other: leave them out of ALLOWED"


def engine_floor(module: str) -> int:
    """A module's floor inside engine/: 0 for store, 1 for exec, 2 for the rest of engine/."""
    name = module.removeprefix("corpus_pipeline.engine.")
    return next((i for i, floor in enumerate(ENGINE_FLOORS) if name.split(".")[0] == floor), len(ENGINE_FLOORS))


def upward_engine_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    inside = [m for m in graph if m.startswith("corpus_pipeline.engine.")]
    return sorted(
        (module, target)
        for module in inside
        for target in graph[module]
        if target.startswith("corpus_pipeline.engine.") and engine_floor(target) > engine_floor(module)
    )


def test_the_engine_floors_import_down_only():
    graph = {"corpus_pipeline.engine.store.a": {"corpus_pipeline.engine.exec.b", "corpus_pipeline.engine.store.c"}}
    graph |= {"corpus_pipeline.engine.exec.b": {"corpus_pipeline.engine.store.c", "corpus_pipeline.engine.lifecycle"}}
    assert upward_engine_imports(graph) == [
        ("corpus_pipeline.engine.exec.b", "corpus_pipeline.engine.lifecycle"),
        ("corpus_pipeline.engine.store.a", "corpus_pipeline.engine.exec.b"),
    ]
    assert upward_engine_imports(import_graph()) == []


if __name__ == "__main__":
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else PACKAGE_ROOT
    counts = room_imports(import_graph(root))
    rooms = {name for pair in counts for name in pair}
    for a, b in sorted(mutual_pairs(counts)):
        print(f"pair {a} <-> {b}: {counts[(a, b)]} imports {a} -> {b}, {counts[(b, a)]} back")
    print(f"pairs: {len(mutual_pairs(counts))}, imports that run back up: {back_up_imports(counts)}")
    print(f"largest knot: {len(largest_knot(counts))} of {len(rooms)} rooms")
