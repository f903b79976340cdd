"""dedup's fixed cost: Spark jobs and seconds of the dedup stage on the real pages, on local[1].

A nightly increment is small, so what the stage costs whatever its input size is paid every night.
The input is pages.warc.gz through extract, langid and normalize (the CLI, runner local, default
config: 1,418 documents), built once into the cache folder. The session (the default config's
Spark settings, master local[1]) is started before any timing; each run writes a fresh output
folder inside its own job group, so the jobs counted are the stage's own
(statusTracker().getJobIdsForGroup). A run prints its wall seconds, the CPU seconds of this process
and its descendants (the JVM, the Python workers) and the core-seconds other processes used
meanwhile (~0 on an idle machine). The first run of a session also pays for the JVM's first queries
(class loading, JIT compilation) and for starting the Python workers; later runs show the stage.
Every run prints the SHA-256 of each output Parquet file and of the stats without their timings,
so two versions of the code can be compared byte for byte.

    python benchmarks/run_all.py dedup-jobs                 # 1 + 3 runs, ~30 s on an idle machine
    python benchmarks/run_all.py dedup-jobs --runs 5 --set dedup.methods='["url","exact","minhash"]'

The Spark path at any size (issue 37): `--input` a normalize stage output of bench_scale.py's
documents and `--set engine.memory_mb=256`, under which nothing fits the driver's own pass.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import harness
from common import PAGES_WARC, REPO, tree_clocks
from cpu_monitor import CpuMonitor
from harness import Results, Spec, option

from corpus_pipeline.config import PipelineConfig, read_raw_config, validate_config

CLI = Path(sys.executable).with_name("corpus-pipeline")
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "corpus_bench_dedup_jobs"
# The stages before dedup, in order: (verb, folder under the cache).
UPSTREAM = (("extract", "extract"), ("langid", "langid"), ("normalize", "normalize"))


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def dedup_input(cache: Path) -> Path:
    """The normalize stage's output for the real pages (built once; the stages skip when done)."""
    source = [str(PAGES_WARC)]
    for verb, folder in UPSTREAM:
        output = cache / folder
        if not (output / "_SUCCESS").exists():
            log(f"{verb} -> {output}")
            subprocess.run(
                [str(CLI), verb, "--input", *source, "--output", str(output), "--runner", "local"],
                check=True,
                stdout=subprocess.DEVNULL,
                cwd=REPO,
            )
        source = [str(output)]
    return Path(source[0])


def output_digest(output: Path) -> dict[str, str]:
    """SHA-256 of every Parquet file under the stage folder, and of _stats.json without timings."""
    digest = {
        str(path.relative_to(output)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(output.rglob("*.parquet"))
        if "_tasks" not in path.parts
    }
    stats = json.loads((output / "_stats.json").read_text())
    for timing in ("seconds", "task_seconds"):
        stats.pop(timing, None)
    digest["_stats.json (without timings)"] = hashlib.sha256(json.dumps(stats, sort_keys=True).encode()).hexdigest()
    return digest


@dataclass
class Run:
    jobs: int
    wall_s: float
    cpu_s: float  # this process and its descendants: the JVM and the Python workers
    others_cpu_s: float  # core-seconds other processes used meanwhile: ~0 on an idle machine


def timed_run(spark, source: Path, output: Path, config: PipelineConfig, group: str, monitor: CpuMonitor) -> Run:
    """One dedup run into a fresh folder, its jobs counted in their own job group."""
    from corpus_pipeline.engine.exec.spark import SparkExecutor
    from corpus_pipeline.stage_runner import run_stage

    context = spark.sparkContext
    context.setJobGroup(group, f"bench dedup {group}")
    others = monitor.snapshot()[0]
    wall, cpu = tree_clocks()
    result = run_stage("dedup", source, output, config, SparkExecutor(spark))
    wall_after, cpu_after = tree_clocks()
    context.setLocalProperty("spark.jobGroup.id", None)
    if result.skipped:
        raise RuntimeError(f"{output} was already done: not a fresh run")
    jobs = len(context.statusTracker().getJobIdsForGroup(group))
    return Run(jobs, wall_after - wall, cpu_after - cpu, monitor.snapshot()[0] - others)


def run(args, results: Results) -> None:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")

    from corpus_pipeline.engine.exec.session import get_spark

    source = args.input or dedup_input(args.cache)
    raw = read_raw_config(None, args.overrides)
    raw.setdefault("spark", {}).update(master="local[1]", log_level="ERROR")
    raw["spark"].setdefault("conf", {}).update({"spark.ui.showConsoleProgress": "false"})
    config = validate_config(raw, PipelineConfig)
    spark = get_spark(config.spark)
    log(f"session started ({config.spark.master}); dedup methods {config.dedup.methods}")
    with tempfile.TemporaryDirectory(prefix="bench_dedup_jobs_") as work:
        monitor = CpuMonitor(Path(work) / "cpu_monitor.state").start()
        runs, digests = [], []
        try:
            for number in range(args.runs + 1):
                output = Path(work) / f"out{number}"
                run = timed_run(spark, source, output, config, f"dedup-{number}", monitor)
                stats = json.loads((output / "_stats.json").read_text())
                runs.append(run)
                digests.append(output_digest(output))
                log(
                    f"run {number}{' (starts the Python workers)' if number == 0 else ''}: {run.jobs} jobs, "
                    f"{run.wall_s:.2f} s, {run.cpu_s:.2f} CPU s (others {run.others_cpu_s:.1f} core-s); "
                    f"{stats['docs_in']} in, {stats['kept']} kept, dropped {stats['dropped']}"
                )
        finally:
            monitor.stop()
    for number, digest in enumerate(digests[1:], 1):
        differ = sorted(k for k in digest.keys() | digests[0].keys() if digest.get(k) != digests[0].get(k))
        if differ:
            raise RuntimeError(f"run {number} wrote other bytes than run 0: {differ}")
    later = sorted(runs[1:], key=lambda run: run.wall_s)
    summary = {
        "jobs": [run.jobs for run in runs],
        "first_run": asdict(runs[0]),
        "later_runs_median": asdict(summary_median(later)) if later else None,
        "load_average": os.getloadavg(),
        "output_sha256": digests[0],
    }
    print(json.dumps(summary, indent=1))
    spark.stop()
    results.details.update(summary)
    for name, run in (
        ("first run (starts the Python workers)", runs[0]),
        ("later runs, median", summary_median(later)),
    ):
        if run is not None:
            results.record(f"dedup on {config.spark.master}, {name}", "spark_jobs", run.jobs, "jobs")
            results.record(f"dedup on {config.spark.master}, {name}", "wall_s", run.wall_s, "s")
            results.record(f"dedup on {config.spark.master}, {name}", "tree_cpu_s", run.cpu_s, "s")


def summary_median(later: list[Run]) -> Run | None:
    return later[len(later) // 2] if later else None


SPEC = Spec(
    "dedup-jobs",
    __doc__,
    run,
    options=(
        option("--cache", type=Path, default=DEFAULT_CACHE, help="where the dedup input is built once"),
        option("--input", type=Path, help="a normalize stage output to dedup instead of the real pages"),
        option("--runs", type=int, default=3, help="runs after the first (which starts the Python workers)"),
        option("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE"),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
