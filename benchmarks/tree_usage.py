"""A command run as a child process and measured as a whole tree: CPU seconds of the child and every
descendant, peak RSS of the largest single process, wall time.

`time` counts only the processes its child waits for: pyspark never waits for its JVM, so a Spark
stage read 1.8 CPU s under `/usr/bin/time` while its tree used 51 s (issue 37). Here two lower
bounds are taken and the larger kept: the kernel's account of the child and every descendant reaped
inside the tree (`os.wait4`), and the largest sum, over the tree's living processes at one instant,
of each one's CPU and its reaped children's (`/proc/<pid>/stat` utime + stime + cutime + cstime,
sampled every SAMPLE_S), which holds processes nobody waits for. Peak RSS: the largest VmHWM of
one process, sampled by process_memory.TreeMemorySampler (a rise in its last 0.5 s is missed). Not
wait4's ru_maxrss: the kernel keeps the forked copy of this process's peak across exec, so every
child reported this process's size (398 MB of a 300-document run, whatever the stage).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from proc_tree import PeriodicSampler, descendants, own_cpu_s, processes, tree_cpu
from process_memory import TreeMemorySampler

SAMPLE_S = 0.2


@dataclass(frozen=True)
class TreeUsage:
    returncode: int
    cpu_s: float
    peak_rss_mb: float
    wall_s: float


def run_measured(command: list[str], log: Path, env: dict[str, str] | None = None) -> TreeUsage:
    """Run `command` (its output to `log`) and measure its process tree."""
    started = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    sampled = 0.0
    with TreeMemorySampler(child.pid) as memory:
        while True:
            # wait4, not Popen.poll: poll reaps the child and its resource usage with it.
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            sampled = max(sampled, tree_cpu(child.pid))
            time.sleep(SAMPLE_S)
    child.returncode = os.waitstatus_to_exitcode(status)
    return TreeUsage(
        returncode=child.returncode,
        cpu_s=max(sampled, usage.ru_utime + usage.ru_stime),
        peak_rss_mb=max(memory.peaks.hwm_mb.values()),
        wall_s=time.perf_counter() - started,
    )


class SeenProcessesCpu(PeriodicSampler):
    """`with SeenProcessesCpu(roots) as seen: ...`, then `seen.cpu_s`: the CPU seconds (utime + stime,
    each process's own, last sampled every SAMPLE_S) of every process seen in the trees under
    `roots` while it ran, less what the processes living at the start had used by then. Not the
    children's account (cutime): pyspark's daemon ignores SIGCHLD, so the kernel reaps its Python
    workers and their CPU, most of an executor's, reaches no one's account (at 100k documents the
    accounts of a cluster's processes held 111 CPU s of the executors' work, which one process did in
    377). A process misses its last SAMPLE_S, and one shorter than that is missed whole."""

    interval_s = SAMPLE_S

    def __init__(self, roots: list[int]):
        self.roots = roots
        self._start: dict[tuple[int, str], float] | None = None  # the first sample's
        self._last: dict[tuple[int, str], float] = {}

    @property
    def cpu_s(self) -> float:
        return sum(self._last.values()) - sum((self._start or {}).values())

    def sample(self) -> None:
        seen = self._sample()
        if self._start is None:
            self._start = dict(seen)
        self._last.update(seen)

    def _sample(self) -> dict[tuple[int, str], float]:
        table = processes()
        tree = set().union(*(descendants(root, table) for root in self.roots))
        # keyed with its start time (field 19): a pid used again is another process
        return {(pid, table[pid][19]): own_cpu_s(table[pid]) for pid in tree if pid in table}
