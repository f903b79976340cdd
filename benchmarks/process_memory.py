"""Peak memory of a process tree (a Spark driver: its Python, its JVM, the JVM's Python workers),
sampled from /proc every 0.5 s by a thread of the watching process (psutil is not in the venv).

Per sample and per kind of process, the sum of RSS and of PSS (proportional set size: a page shared
by n processes counts 1/n in each). The Python workers are forked from one daemon and share most of
their pages, so their RSS sum over-counts and their PSS sum does not. Beside the samples, the
kernel's own peak RSS of each process (VmHWM) catches a peak shorter than the sampling interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from proc_tree import PeriodicSampler, process_tree

INTERVAL_S = 0.5
KINDS = ("driver_python", "driver_jvm", "python_workers", "other")


@dataclass
class MemoryPeaks:
    samples: int = 0
    rss_mb: dict[str, float] = field(default_factory=lambda: dict.fromkeys(KINDS, 0.0))
    pss_mb: dict[str, float] = field(default_factory=lambda: dict.fromkeys(KINDS, 0.0))
    hwm_mb: dict[str, float] = field(default_factory=lambda: dict.fromkeys(KINDS, 0.0))  # largest single process
    tree_rss_mb: float = 0.0
    tree_pss_mb: float = 0.0
    most_workers: int = 0
    jvm_max_heap: str = ""  # the JVM's -Xmx as launched: what spark.driver.memory became

    def to_dict(self) -> dict:
        return {
            "samples": self.samples,
            "interval_s": INTERVAL_S,
            "peak_rss_mb_by_kind": {k: round(v, 1) for k, v in self.rss_mb.items()},
            "peak_pss_mb_by_kind": {k: round(v, 1) for k, v in self.pss_mb.items()},
            "peak_vmhwm_mb_largest_process_by_kind": {k: round(v, 1) for k, v in self.hwm_mb.items()},
            "peak_tree_rss_mb": round(self.tree_rss_mb, 1),
            "peak_tree_pss_mb": round(self.tree_pss_mb, 1),
            "most_python_workers": self.most_workers,
            "jvm_max_heap": self.jvm_max_heap,
        }


def _command(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def _kind(pid: int, root: int, command: list[str]) -> str:
    if pid == root:
        return "driver_python"
    if command and command[0].endswith("java"):
        return "driver_jvm"
    if any(part in ("pyspark.daemon", "pyspark.worker") for part in command):
        return "python_workers"
    return "other"


def _memory_kb(pid: int) -> tuple[int, int, int]:
    """(RSS, PSS, VmHWM) in KiB; zeros for a process that is gone."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return 0, 0, 0

    def field_kb(text: str, name: str) -> int:
        for line in text.splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1])
        return 0

    return field_kb(status, "VmRSS"), field_kb(rollup, "Pss"), field_kb(status, "VmHWM")


class TreeMemorySampler(PeriodicSampler):
    """`with TreeMemorySampler(pid) as sampler: ...`, then `sampler.peaks`."""

    interval_s = INTERVAL_S

    def __init__(self, root: int):
        self.root = root
        self.peaks = MemoryPeaks()

    def sample(self) -> None:
        rss, pss = dict.fromkeys(KINDS, 0), dict.fromkeys(KINDS, 0)
        workers = 0
        for pid in process_tree(self.root):
            command = _command(pid)
            kind = _kind(pid, self.root, command)
            if kind == "driver_jvm":
                self.peaks.jvm_max_heap = next((part for part in command if part.startswith("-Xmx")), "default")
            pid_rss, pid_pss, pid_hwm = _memory_kb(pid)
            rss[kind] += pid_rss
            pss[kind] += pid_pss
            workers += kind == "python_workers"
            self.peaks.hwm_mb[kind] = max(self.peaks.hwm_mb[kind], pid_hwm / 1024)
        peaks = self.peaks
        peaks.samples += 1
        peaks.most_workers = max(peaks.most_workers, workers)
        for kind in KINDS:
            peaks.rss_mb[kind] = max(peaks.rss_mb[kind], rss[kind] / 1024)
            peaks.pss_mb[kind] = max(peaks.pss_mb[kind], pss[kind] / 1024)
        peaks.tree_rss_mb = max(peaks.tree_rss_mb, sum(rss.values()) / 1024)
        peaks.tree_pss_mb = max(peaks.tree_pss_mb, sum(pss.values()) / 1024)
