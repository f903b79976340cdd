"""A process tree read from /proc: which processes descend from a root, and the CPU seconds they
used. The one place the benchmarks read /proc/<pid>/stat; the CPU monitor, the memory sampler and
the measured child runs (tree_usage.py) all count a tree this way.

A process's stat fields, after its command name: [1] the parent's pid, [11] utime, [12] stime,
[13] cutime, [14] cstime (the last two: its reaped children's), in clock ticks.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

TICK = os.sysconf("SC_CLK_TCK")


def has_proc() -> bool:
    return Path("/proc/stat").exists()


def stat_fields(pid: int) -> list[str] | None:
    """The stat fields of `pid` after its command name; None for a process that is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def processes() -> dict[int, list[str]]:
    """Every living process's stat fields, by pid."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := stat_fields(int(entry))) is not None:
            found[int(entry)] = fields
    return found


def descendants(root: int, table: dict[int, list[str]]) -> set[int]:
    """`root` and every process of `table` below it."""
    children: dict[int, list[int]] = {}
    for pid, fields in table.items():
        children.setdefault(int(fields[1]), []).append(pid)
    tree, frontier = {root}, [root]
    while frontier:
        for child in children.get(frontier.pop(), []):
            tree.add(child)
            frontier.append(child)
    return tree


def process_tree(root: int) -> set[int]:
    """`root` and all its descendants, living now."""
    return descendants(root, processes())


def own_cpu_s(fields: list[str]) -> float:
    """utime + stime: what the process itself used."""
    return (int(fields[11]) + int(fields[12])) / TICK


def cpu_with_reaped_s(fields: list[str]) -> float:
    """utime + stime + cutime + cstime: the process and the children it reaped."""
    return sum(int(value) for value in fields[11:15]) / TICK


def tree_cpu(root: int, exclude: set[int] | frozenset[int] = frozenset()) -> float:
    """CPU seconds of `root` and its living descendants (but `exclude`), each with the children it
    reaped; 0 where there is no /proc."""
    if not has_proc():
        return 0.0
    table = processes()
    return sum(cpu_with_reaped_s(table[pid]) for pid in descendants(root, table) - exclude if pid in table)


class PeriodicSampler:
    """`with Sampler(...) as sampler: ...`: the subclass's `sample()` when the block starts, then
    every `interval_s` on a thread of this process until the block ends. The one sampling lifecycle
    of the process-tree samplers (process_memory.TreeMemorySampler, tree_usage.SeenProcessesCpu)."""

    interval_s: float

    def __enter__(self):
        self._stop = threading.Event()
        self.sample()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.sample()
