"""The stage benchmarks (extract, langid, pii, quality, tokenize): each a module with
`run(ctx, config, log) -> StageReport`; one or several run in one process with one Context (one
work folder, one CPU monitor, one peer venv), a table per stage, a warning when the machine was busy.

    run_all.py extract langid --reps 3   # what a plain `make bench` runs, with 2 reps
"""

from __future__ import annotations

import importlib
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from common import Context, end_run
from cpu_monitor import CpuMonitor
from harness import Results, Spec
from peer_env import PeerEnvError, ensure_peer_env

from corpus_pipeline.config import load_config

# Other processes using more than this many cores on average make the run untrustworthy.
BUSY_CORES = 0.1
# Every stage benchmark takes these; --no-peer only where a stage has a datatrove column.
SHARED = ("quick", "reps", "work", "config")


@dataclass(frozen=True)
class StageBench:
    """What a stage module declares beside its run(): the data it needs and whether it has a peer."""

    name: str
    data: tuple[Path, ...]  # the input files it reads; refused early when missing
    peer: bool = True


def spec(names: list[str], modules: dict[str, str]) -> Spec:
    """One Spec for the stage benchmarks `names` (each by its module), run together in one process."""
    stages = [importlib.import_module(modules[name]) for name in names]
    shared = SHARED + (("no_peer",) if any(m.STAGE.peer for m in stages) else ())
    doc = "\n\n".join(m.__doc__ for m in stages)
    return Spec("+".join(names), doc, lambda opts, results: run_stages(names, modules, opts, results), shared)


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run_stages(names: list[str], modules: dict[str, str], opts, results: Results) -> int:
    stages = [importlib.import_module(modules[name]) for name in names]
    missing = [str(path) for m in stages for path in m.STAGE.data if not path.exists()]
    if missing:
        print(f"no benchmark data: {', '.join(missing)} missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    reps = opts.reps or (1 if opts.quick else 2)
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    config = load_config(opts.config)
    work = Path(opts.work) if opts.work else Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    monitor = CpuMonitor(work / "cpu-monitor.txt").start()
    ctx = Context(work=work, reps=reps, quick=opts.quick, monitor=monitor)
    started = time.perf_counter()
    log(f"benchmarks: stages {names}, {reps} rep(s){', quick' if opts.quick else ''}; work in {work}")
    if getattr(opts, "no_peer", False):
        ctx.peer_error = "skipped (--no-peer)"
    elif any(m.STAGE.peer for m in stages):
        try:
            log(f"peer venv: {ensure_peer_env(log)}")
        except PeerEnvError as error:
            ctx.peer_error = f"the datatrove venv could not be built: {error}"
            log(ctx.peer_error)
    tables, missed = [], []
    try:
        for module in stages:
            report = module.run(ctx, config, log)
            results.add_report(report)
            missed += [t for t in report.targets if not t.passed]
            tables.append(report.table())
            print("\n" + tables[-1] + "\n", flush=True)
    finally:
        others_s, steal_s = end_run(monitor, work, keep=bool(opts.work))
    duration = time.perf_counter() - started
    results.details.update(
        duration_s=duration,
        others_cpu_s=others_s,
        steal_s=steal_s,
        spark_session_start_s=ctx.spark_start_s,
        peer_error=ctx.peer_error,
    )
    print("\n\n".join(tables))
    spark_starts = ", ".join(f"{s:.1f} s" for s in ctx.spark_start_s)
    print(f"\nSpark session start (excluded from the Spark columns): {spark_starts or 'none'}")
    print(
        f"other processes used {others_s:.1f} CPU core-s during the {duration:.0f} s run "
        f"({others_s / duration:.2f} cores on average; 'others' column: per measurement); steal {steal_s:.1f} s"
    )
    if others_s / duration > BUSY_CORES:
        print(
            f"WARNING: the machine was not idle ({others_s / duration:.2f} cores used by other processes on "
            "average): the figures are lower than this machine can do, and ratios between columns measured at "
            "different times are skewed; rerun on an idle machine"
        )
    print(f"{len(missed)} target(s) missed; {duration / 60:.1f} min in all")
    return 0
