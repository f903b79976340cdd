"""How much CPU *other* processes took while we measured: this machine may be shared, and a
benchmark is only worth its numbers on an otherwise idle machine.

A separate process (so it never competes with the measured code for the GIL) samples /proc every
second. Ours = the benchmark process and all its descendants (Spark's JVM and Python workers, the
datatrove subprocesses, this monitor). Others = all busy CPU time - ours. Steal = time the
hypervisor gave our virtual CPUs to someone else. Both in core-seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import proc_tree
from proc_tree import TICK

# Processes of ours that tree_cpu() leaves out: the monitor itself.
EXCLUDED: set[int] = set()


class CpuMonitor:
    """Parent side: start() the sampler, snapshot() the cumulative (others_s, steal_s)."""

    def __init__(self, state_file: Path):
        self.state_file = state_file
        self.process: subprocess.Popen | None = None

    def start(self) -> CpuMonitor:
        if proc_tree.has_proc():
            self.state_file.write_text("0 0\n")
            self.process = subprocess.Popen([sys.executable, __file__, str(os.getpid()), str(self.state_file)])
            EXCLUDED.add(self.process.pid)
        return self

    def snapshot(self) -> tuple[float, float]:
        try:
            others, steal = self.state_file.read_text().split()
            return float(others), float(steal)
        except (OSError, ValueError):
            return 0.0, 0.0

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait()


def tree_cpu() -> float:
    """CPU seconds of this process and all its descendants, living or reaped (utime + stime +
    cutime + cstime), e.g. Spark's JVM and its Python workers; the monitor left out. The difference
    of two readings is the CPU the whole tree used between them, as long as every child is reaped by
    a process of the tree."""
    return proc_tree.tree_cpu(os.getpid(), exclude=EXCLUDED)


def _sample(root: int) -> tuple[float, float, dict[int, float]]:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[:8])
    table = proc_tree.processes()
    ours = proc_tree.descendants(root, table)
    busy = (user + nice + system + irq + softirq) / TICK
    return busy, steal / TICK, {pid: proc_tree.own_cpu_s(table[pid]) for pid in ours if pid in table}


def main(root: int, state_file: str) -> None:
    others = steal = 0.0
    last = _sample(root)
    while os.path.exists(f"/proc/{root}"):
        time.sleep(1.0)
        now = _sample(root)
        ours = sum(t - last[2][pid] for pid, t in now[2].items() if pid in last[2])
        others += max(0.0, now[0] - last[0] - ours)
        steal += now[1] - last[1]
        last = now
        tmp = state_file + ".tmp"
        Path(tmp).write_text(f"{others:.2f} {steal:.2f}\n")
        os.replace(tmp, state_file)


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
