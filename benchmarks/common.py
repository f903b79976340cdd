"""What every benchmark shares: data paths, timing, rates, targets and the printed tables."""

from __future__ import annotations

import json
import os
import platform
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from cpu_monitor import CpuMonitor, tree_cpu

REPO = Path(__file__).resolve().parent.parent
# The real data lives beside the repository (../shared/data); CORPUS_BENCH_DATA overrides it.
DATA = Path(os.environ.get("CORPUS_BENCH_DATA", REPO.parent / "shared" / "data"))
PAGES_WARC = DATA / "web" / "pages.warc.gz"
SENTENCES = DATA / "langid" / "sentences"
RESULTS = Path(__file__).resolve().parent / "results"

MB = 1e6


@dataclass
class Column:
    """One measured way of doing the same work: its times over the reps, and the work done."""

    key: str  # "a", "b", ... as in the README
    label: str
    seconds: list[float]  # one per rep; the best (min) is what rates use
    docs: int  # the unit docs/s counts (records in, documents in)
    mb: float | None  # input MB (HTML payload or text); None when not comparable
    note: str = ""
    # CPU seconds of the timed work, per rep (None for Spark, whose work is spread over processes):
    # unlike wall time it barely moves when other processes compete for the cores
    cpu_seconds: list[float] | None = None
    # CPU core-seconds other processes used while this column (and its set-up) ran: ~0 on an idle machine
    others_cpu_s: float | None = None

    @property
    def best(self) -> float:
        return min(self.seconds)

    @property
    def best_cpu(self) -> float | None:
        return min(self.cpu_seconds) if self.cpu_seconds else None

    @property
    def docs_per_s(self) -> float:
        return self.docs / self.best

    @property
    def mb_per_s(self) -> float | None:
        return None if self.mb is None else self.mb / self.best

    def to_dict(self) -> dict:
        return {
            "label": self.label,
            "seconds": self.seconds,
            "best_s": self.best,
            "cpu_seconds": self.cpu_seconds,
            "best_cpu_s": self.best_cpu,
            "docs": self.docs,
            "mb": self.mb,
            "docs_per_s": self.docs_per_s,
            "mb_per_s": self.mb_per_s,
            "note": self.note,
            "others_cpu_s": self.others_cpu_s,
        }


@dataclass
class Target:
    name: str
    value: float
    goal: float
    higher_is_better: bool = True
    unit: str = "x"
    why: str = ""
    cpu_value: float | None = None  # the same comparison on CPU seconds, where both sides have them

    @property
    def passed(self) -> bool:
        return self.value >= self.goal if self.higher_is_better else self.value <= self.goal

    def describe(self) -> str:
        op = ">=" if self.higher_is_better else "<="
        goal = _fmt_unit(self.goal, self.unit)
        on_cpu = "" if self.cpu_value is None else f"; on CPU seconds {_fmt_unit(self.cpu_value, self.unit)}"
        return f"{self.name}: {_fmt_unit(self.value, self.unit)} (target {op} {goal}{on_cpu})"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "value": self.value,
            "goal": self.goal,
            "unit": self.unit,
            "higher_is_better": self.higher_is_better,
            "passed": self.passed,
            "why": self.why,
            "cpu_value": self.cpu_value,
        }


class Ratio(NamedTuple):
    """How many times faster `fast` is than `slow` per document, on wall time (and on CPU time when
    both columns have it). A plain (name, value, how) tuple is accepted in its place."""

    name: str
    value: float
    how: str
    cpu_value: float | None = None

    @classmethod
    def of(cls, name: str, fast: Column, slow: Column, how: str) -> Ratio:
        cpu = None
        if fast.best_cpu and slow.best_cpu:
            cpu = (fast.docs / fast.best_cpu) / (slow.docs / slow.best_cpu)
        return cls(name, fast.docs_per_s / slow.docs_per_s, how, cpu)


def spark_cpu_bound(one_process: Column, spark: Column, cores: int = 2) -> str:
    """What CPU seconds say about a Spark speed-up, whatever else ran on the machine meanwhile."""
    if not (one_process.best_cpu and spark.best_cpu):
        return ""
    bound = cores * one_process.best_cpu / spark.best_cpu
    return (
        f"Spark ({spark.key}) used {spark.best_cpu:.1f} CPU s (driver + JVM + Python workers) for what "
        f"({one_process.key}) does in {one_process.best_cpu:.1f}: on {cores} idle cores its speed-up over "
        f"({one_process.key}) is at most {cores} x {one_process.best_cpu:.1f} / {spark.best_cpu:.1f} = {bound:.2f}x"
    )


def clocks() -> tuple[float, float]:
    """(wall, CPU of this process) now; subtract two to time something both ways."""
    return time.perf_counter(), time.process_time()


def tree_clocks() -> tuple[float, float]:
    """(wall, CPU of this process and all its descendants: Spark's JVM and Python workers) now."""
    return time.perf_counter(), tree_cpu()


def _fmt_unit(value: float, unit: str) -> str:
    if unit == "%":
        return f"{value:+.1f}%"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "pp":
        return f"{value:+.2f} pp"
    return f"{value:.4f}{unit}"


@dataclass
class StageReport:
    stage: str
    title: str
    columns: list[Column] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    ratios: list[Ratio | tuple[str, float, str]] = field(default_factory=list)
    info: dict = field(default_factory=dict)  # anything else worth keeping (counts, versions, accuracy)
    notes: list[str] = field(default_factory=list)
    log: Callable[[str], None] | None = None
    monitor: CpuMonitor | None = None
    _others_mark: float = 0.0

    def __post_init__(self) -> None:
        self._others_mark = self.monitor.snapshot()[0] if self.monitor else 0.0

    def add(self, *columns: Column) -> None:
        """Record measured columns, with the CPU others used since the previous ones, and say each
        one as it comes (the tables print at the end)."""
        if self.monitor is not None:
            others = self.monitor.snapshot()[0]
            for c in columns:
                c.others_cpu_s = others - self._others_mark
            self._others_mark = others
        self.columns.extend(columns)
        for c in columns:
            if self.log is not None:
                self.log(f"  {self.stage} ({c.key}) {c.label}: best {c.best:.2f} s, {c.docs_per_s:,.1f} docs/s")

    def column(self, key: str) -> Column | None:
        return next((c for c in self.columns if c.key == key), None)

    def to_dict(self) -> dict:
        return {
            "title": self.title,
            "columns": {c.key: c.to_dict() for c in self.columns},
            "targets": [t.to_dict() for t in self.targets],
            "ratios": [Ratio(*r)._asdict() for r in self.ratios],
            "info": self.info,
            "notes": self.notes,
        }

    def table(self) -> str:
        width = max([len(c.label) for c in self.columns] + [4]) + 1
        lines = [
            f"== {self.stage}: {self.title}",
            f"  {'col':<7}{'what':<{width}}{'docs':>7}{'best s':>9}{'cpu s':>8}{'docs/s':>10}{'MB/s':>8}{'others':>8}"
            "  each rep s (wall)",
        ]
        for c in self.columns:
            mbs = f"{c.mb_per_s:8.2f}" if c.mb_per_s is not None else f"{'':>8}"
            reps = ", ".join(f"{s:.2f}" for s in c.seconds)
            others = f"{c.others_cpu_s:8.1f}" if c.others_cpu_s is not None else f"{'':>8}"
            cpu = f"{c.best_cpu:8.2f}" if c.best_cpu is not None else f"{'':>8}"
            rate = f"{c.docs:>7,}{c.best:>9.2f}{cpu}{c.docs_per_s:>10,.1f}{mbs}{others}"
            lines.append(f"  {c.key:<7}{c.label:<{width}}{rate}  {reps}")
            if c.note:
                lines.append(f"  {'':<7}  {c.note}")
        if self.ratios:
            lines.append("  ratios:")
            for r in map(lambda r: Ratio(*r), self.ratios):
                on_cpu = "" if r.cpu_value is None else f", on CPU seconds {r.cpu_value:.2f}x"
                lines.append(f"    {r.name}: {r.value:.2f}x{on_cpu}  ({r.how})")
        if self.targets:
            lines.append("  targets:")
            for t in self.targets:
                lines.append(f"    [{'PASS' if t.passed else 'MISS'}] {t.describe()}")
                if t.why:
                    lines.append(f"           {t.why}")
        for note in self.notes:
            lines.append(f"  note: {note}")
        return "\n".join(lines)


def end_run(monitor: CpuMonitor, work: Path, keep: bool) -> tuple[float, float]:
    """Stop a benchmark's CPU monitor: (CPU seconds other processes used, steal seconds) over the
    run; the run's work folder is removed unless `keep` (the user named it with --work)."""
    others_s, steal_s = monitor.snapshot()
    monitor.stop()
    if not keep:
        shutil.rmtree(work, ignore_errors=True)
    return others_s, steal_s


def write_results(path: str | Path, results: dict) -> Path:
    """A benchmark's figures as indented JSON at `path` (its folder made if missing)."""
    output = Path(path)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return output


def machine() -> dict:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        pages = 0
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "ram_gib": round(pages / 2**30, 1),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


@dataclass
class Context:
    """What one `run_all.py` run hands every benchmark."""

    work: Path  # the run's temporary folder (inputs, outputs, caches)
    reps: int
    quick: bool
    peer_error: str | None = None  # why the datatrove columns are missing, when they are
    monitor: CpuMonitor | None = None
    spark_start_s: list[float] = field(default_factory=list)  # each session start, JVM included

    def spark(self, master: str = "local[2]"):
        """A fresh SparkSession, its start-up timed apart from the measured work."""
        from corpus_pipeline.config import SparkConfig
        from corpus_pipeline.engine.exec.session import get_spark

        started = time.perf_counter()
        config = SparkConfig(
            master=master, app_name="corpus_pipeline-bench", conf={"spark.ui.showConsoleProgress": "false"}
        )
        session = get_spark(config)
        session.sparkContext.setLogLevel("ERROR")
        self.spark_start_s.append(time.perf_counter() - started)
        return session


def check_fresh_run(result, expected_docs: int) -> None:
    """A timing counts only if the stage really ran (not skipped as already done) on every document."""
    if result.skipped or result.stats.docs_in != expected_docs:
        raise RuntimeError(
            f"{result.stats.stage} into {result.output}: skipped={result.skipped}, "
            f"{result.stats.docs_in} in, expected {expected_docs}"
        )


def seconds_of_fresh_run(run_stage: Callable, input_dir: Path, output: Path, config, executor, docs: int) -> float:
    """Wall seconds of one `run_stage(input_dir, output, config, executor)`; the output is removed after."""
    import shutil

    started = time.perf_counter()
    result = run_stage(input_dir, output, config, executor)
    seconds = time.perf_counter() - started
    check_fresh_run(result, docs)
    shutil.rmtree(output)
    return seconds
