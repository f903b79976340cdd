"""`make bench`: the list of every benchmark (catalog.py) with its command, then the standard set:
each stage's throughput against its raw library, on Spark local[2], and against datatrove, on the
real pages; prints a table per stage and writes benchmarks/results/latest.json.

    python benchmarks/run_all.py                           # standard set: extract, langid, 2 reps (~20 min, 2 cores)
    python benchmarks/run_all.py --quick --stages langid   # smoke run, under 2 minutes
    python benchmarks/run_all.py --stages pii,quality      # any stage benchmark of the list
    python benchmarks/run_all.py --list                    # the list alone
    python benchmarks/run_all.py --bench dedup -- --quick  # one benchmark of the list, with its own arguments
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from catalog import BENCHMARKS, by_name, listing
from common import PAGES_WARC, REPO, RESULTS, Context, end_run, machine, write_results
from cpu_monitor import CpuMonitor
from peer_env import PeerEnvError, ensure_peer_env

from corpus_pipeline.config import load_config

# Other processes using more than this many cores on average make the run untrustworthy.
BUSY_CORES = 0.1
# The stage benchmarks this process runs itself; their modules are imported only when run, so the
# list prints without loading trafilatura, Spark or torch.
STAGES = {b.name: b.stage_module for b in BENCHMARKS if b.stage_module}
STANDARD = [b.name for b in BENCHMARKS if b.standard and b.stage_module]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the list of benchmarks and stop")
    parser.add_argument(
        "--bench", metavar="NAME", help="run one benchmark of the list; arguments after `--` are passed to it"
    )
    parser.add_argument("bench_args", nargs="*", help=argparse.SUPPRESS)
    parser.add_argument("--stages", default=",".join(STANDARD), help=f"comma-separated: {','.join(STAGES)}")
    parser.add_argument(
        "--reps", type=int, default=None, help="timings per column, min reported (default 2; 1 with --quick)"
    )
    parser.add_argument("--quick", action="store_true", help="a subset of the pages and documents: smoke run")
    parser.add_argument("--config", default=None, help="pipeline YAML (default: the built-in defaults)")
    parser.add_argument("--no-peer", action="store_true", help="skip the datatrove columns")
    parser.add_argument(
        "--work", default=None, help="keep the run's files in this folder (default: a temp folder, removed at the end)"
    )
    parser.add_argument("--output", default=str(RESULTS / "latest.json"))
    args = parser.parse_args(argv)
    if args.bench_args and not args.bench:
        parser.error(f"unexpected arguments {args.bench_args}: only --bench NAME -- ARGS takes them")
    args.stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = [s for s in args.stages if s not in STAGES]
    if unknown:
        parser.error(f"unknown stage(s) {unknown}: choose from {list(STAGES)}")
    if args.reps is None:
        args.reps = 1 if args.quick else 2
    return args


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def run_benchmark(name: str, extra: list[str]) -> int:
    """One entry of the list, as its command runs it from the project root, plus `extra` arguments."""
    try:
        benchmark = by_name(name)
    except KeyError as error:
        print(error.args[0], file=sys.stderr)
        return 2
    argv = [*benchmark.argv, *extra]
    log(f"$ {benchmark.command} {' '.join(extra)}".rstrip())
    if argv[0].endswith(".py"):
        argv.insert(0, sys.executable)
    return subprocess.run(argv, cwd=REPO, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.bench:
        return run_benchmark(args.bench, args.bench_args)
    print(listing() + "\n", flush=True)
    if args.list:
        return 0
    if not PAGES_WARC.exists():
        print(f"no benchmark data: {PAGES_WARC} is missing (set CORPUS_BENCH_DATA)", file=sys.stderr)
        return 2
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    config = load_config(args.config)
    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    monitor = CpuMonitor(work / "cpu-monitor.txt").start()
    ctx = Context(work=work, reps=args.reps, quick=args.quick, monitor=monitor)
    started = time.perf_counter()
    results = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": machine(),
        "args": {k: v for k, v in vars(args).items() if k != "output"},
        "stages": {},
    }
    quick = ", quick" if args.quick else ""
    log(f"benchmarks: stages {args.stages}, {args.reps} rep(s){quick}; work in {work}")
    if args.no_peer:
        ctx.peer_error = "skipped (--no-peer)"
    else:
        try:
            log(f"peer venv: {ensure_peer_env(log)}")
        except PeerEnvError as error:
            ctx.peer_error = f"the datatrove venv could not be built: {error}"
            log(ctx.peer_error)
    tables = []
    try:
        for stage in args.stages:
            report = importlib.import_module(STAGES[stage]).run(ctx, config, log)
            results["stages"][stage] = report.to_dict()
            tables.append(report.table())
            print("\n" + tables[-1] + "\n", flush=True)
    finally:
        others_s, steal_s = end_run(monitor, work, keep=bool(args.work))
    duration = time.perf_counter() - started
    results.update(
        duration_s=duration,
        others_cpu_s=others_s,
        steal_s=steal_s,
        spark_session_start_s=ctx.spark_start_s,
        peer_error=ctx.peer_error,
    )
    output = write_results(args.output, results)
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
    missed = [t for r in results["stages"].values() for t in r["targets"] if not t["passed"]]
    print(f"{len(missed)} target(s) missed; figures in {output}; {results['duration_s'] / 60:.1f} min in all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
