"""Scale run: the whole dedup stage (default config: exact + MinHash) on 10,000, 100,000 and
1,000,000 generated documents (dedup_corpus.py), Spark local[2] with driver and executor memory 4g;
wall time, peak memory of the driver's Python, its JVM (which, in local mode, is also the executor)
and the Python workers, and how time grows from one size to the next (linear: 10x per step).

Each size runs in a fresh child process (its own JVM, so one size's peak is not the previous one's),
watched by this one: memory sampled every 0.5 s (process_memory.py), Spark's event log kept so the
signature job and the write job can be told apart, and the child stopped after --timeout-s, in which
case the run says how far it got (the running stage's tasks done) and how long that stage would
take at the pace of its finished tasks.
Inputs are generated once into --work and reused by later runs (1M documents: 5.3 GB of text,
4.3 GB of Parquet in 20 parts, written streaming; ~11 minutes to generate).

    python benchmarks/run_all.py dedup-scale --work /tmp/dedup-scale [--sizes 10000,100000,1000000]
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path

import harness
from cpu_monitor import CpuMonitor
from dedup_corpus import DedupCorpus, write_stage
from harness import Results, Spec, UsageError, option
from proc_tree import process_tree
from process_memory import TreeMemorySampler

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import SUCCESS

SIZES = (10_000, 100_000, 1_000_000)
# Input parts of ~50,000 documents (~100 MB of zstd Parquet), at least 8 so both cores have work.
DOCS_PER_PART, MIN_PARTS = 50_000, 8
TIMEOUT_S = 40 * 60


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def input_stage(corpus: DedupCorpus, count: int, work: Path) -> tuple[Path, float]:
    """The documents as a stage directory, generated unless an earlier run left the same ones."""
    directory = work / f"input-{count}"
    identity = corpus.identity(count)
    marker = directory / SUCCESS
    if marker.exists() and json.loads(marker.read_text())["fingerprint"] == identity:
        return directory, 0.0
    shutil.rmtree(directory, ignore_errors=True)
    parts = max(MIN_PARTS, -(-count // DOCS_PER_PART))
    log(f"generating {count:,} documents into {parts} Parquet parts")
    started = time.perf_counter()
    write_stage(corpus.documents(count), directory, parts, identity)
    return directory, time.perf_counter() - started


def run_one(args) -> None:
    """Child: one dedup stage in a fresh session; the last stdout line is its JSON result."""
    from bench_dedup import spark_session

    from corpus_pipeline.engine.exec.spark import SparkExecutor
    from corpus_pipeline.stage_runner import run_stage

    started = time.perf_counter()
    spark = spark_session(
        args.master,
        args.memory,
        {
            "spark.eventLog.enabled": "true",
            "spark.eventLog.dir": args.event_log,
            "spark.eventLog.compress": "false",
            # a 1 KiB buffer writes each task's end at once, so a run stopped at the time limit
            # still tells how many tasks of the running stage were done
            "spark.eventLog.buffer.kb": "1k",
        },
    )
    session_s = time.perf_counter() - started
    started = time.perf_counter()
    result = run_stage("dedup", Path(args.input), Path(args.stage_output), PipelineConfig(), SparkExecutor(spark))
    seconds = time.perf_counter() - started
    spark.stop()
    stats = result.stats
    print(
        json.dumps(
            {
                "session_start_s": session_s,
                "dedup_s": seconds,
                "skipped": result.skipped,
                "docs_in": stats.docs_in,
                "kept": stats.kept,
                "dropped": dict(stats.dropped),
                "bytes_in": stats.bytes_in,
            }
        ),
        flush=True,
    )


def event_log_summary(folder: Path) -> dict:
    """Jobs and stages from Spark's event log: the stage's time split into signatures, decisions and
    writing, and the stages still running (or failed by the stop) when the log ends, with their
    successful tasks."""
    # Spark 4 rolls the log into events_1_<app>, events_2_<app>, ... inside one folder per app.
    files = sorted(folder.rglob("events_*"), key=lambda p: int(p.name.split("_")[1]))
    lines = [line for path in files for line in path.read_text(encoding="utf-8").splitlines()]
    if not lines:
        return {}
    jobs: dict[int, dict] = {}
    stages: dict[int, dict] = {}
    stage_job: dict[int, int] = {}
    last_task_end = 0  # ms
    for line in lines:
        try:
            event = json.loads(line)
        except json.JSONDecodeError:  # the last line of a log cut short by the stop
            break
        kind = event["Event"]
        if kind == "SparkListenerJobStart":
            names = [s["Stage Name"] for s in event["Stage Infos"]]
            jobs[event["Job ID"]] = {"start": event["Submission Time"], "end": None, "stages": names}
            stage_job.update({s["Stage ID"]: event["Job ID"] for s in event["Stage Infos"]})
        elif kind == "SparkListenerJobEnd" and event["Job Result"]["Result"] == "JobSucceeded":
            jobs[event["Job ID"]]["end"] = event["Completion Time"]
        elif kind == "SparkListenerStageSubmitted":
            info = event["Stage Info"]
            stages[info["Stage ID"]] = {
                "name": info["Stage Name"],
                "tasks": info["Number of Tasks"],
                "done": 0,
                "start": info.get("Submission Time"),
            }
        elif kind == "SparkListenerTaskEnd" and event["Stage ID"] in stages:
            stages[event["Stage ID"]]["done"] += event["Task End Reason"]["Reason"] == "Success"
            last_task_end = max(last_task_end, event.get("Task Info", {}).get("Finish Time", 0))
        elif kind == "SparkListenerStageCompleted" and "Failure Reason" not in event["Stage Info"]:
            stages[event["Stage Info"]["Stage ID"]]["end"] = event["Stage Info"].get("Completion Time")

    def seconds(job: dict) -> float:
        return (job["end"] - job["start"]) / 1000

    finished = [jobs[j] for j in sorted(jobs) if jobs[j]["end"] is not None]
    checkpoints = [j for j in finished if any(n.startswith("localCheckpoint") for n in j["stages"])]
    phases = {}
    if checkpoints and finished[-1] is not checkpoints[-1]:
        # The signatures are the stage's first localCheckpoint; its decisions end with a
        # localCheckpoint per method; the jobs after that (clusters joined to the documents,
        # repartition, Parquet parts: adaptive execution runs each shuffle as its own job) write.
        phases = {
            # jobs before the signatures: the shuffle by id that sets aside rows repeating an id
            "before_signatures_s": (checkpoints[0]["start"] - finished[0]["start"]) / 1000,
            "signatures_s": seconds(checkpoints[0]),
            "decisions_s": (checkpoints[-1]["end"] - checkpoints[0]["end"]) / 1000,
            "write_s": (finished[-1]["end"] - checkpoints[-1]["end"]) / 1000,
        }
    running = []
    for sid, stage in sorted(stages.items()):
        if stage.get("end") is None:
            entry = {"stage": sid, "name": stage["name"], "tasks_done": stage["done"], "tasks": stage["tasks"]}
            entry["job"] = stage_job.get(sid)
            if stage["done"] and stage["start"] and last_task_end > stage["start"]:
                # tasks of one stage are alike (equal input splits): the rest take as long again
                entry["elapsed_s"] = (last_task_end - stage["start"]) / 1000
                entry["projected_s"] = entry["elapsed_s"] * stage["tasks"] / stage["done"]
            running.append(entry)
    return {
        "jobs": len(jobs),
        "jobs_done": len(finished),
        "phases": phases,
        # every finished job's seconds in order, and the driver's seconds between jobs (query
        # planning, Python): ~50 jobs a run, a fixed cost that small inputs cannot amortize
        "job_s": [round(seconds(j), 2) for j in finished],
        "between_jobs_s": round(sum(max(0, b["start"] - a["end"]) for a, b in pairwise(finished)) / 1000, 2),
        "running_at_end": running,
    }


def stop(child: subprocess.Popen, grace_s: float = 60) -> None:
    """SIGTERM to the child and every descendant (Spark's Python daemon runs in a process group of
    its own), so the JVM's shutdown hook closes the event log; SIGKILL to what is left after grace_s."""
    pids = process_tree(child.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace_s
        while child.poll() is None or any(Path(f"/proc/{pid}").exists() for pid in pids - {child.pid}):
            if time.monotonic() > deadline:
                break
            time.sleep(0.5)
        else:
            return


def run_size(count: int, input_dir: Path, work: Path, args) -> dict:
    output, event_log = work / f"dedup-{count}", work / f"eventlog-{count}"
    shutil.rmtree(output, ignore_errors=True)
    shutil.rmtree(event_log, ignore_errors=True)
    event_log.mkdir(parents=True)
    for stale in work.glob(f".dedup-{count}.inprogress-*"):
        shutil.rmtree(stale)
    command = [sys.executable, __file__, "--one", "--input", str(input_dir), "--stage-output", str(output)]
    command += ["--event-log", str(event_log), "--master", args.master, "--memory", args.memory]
    stderr = (work / f"child-{count}.log").open("w")
    started = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
    result: dict = {"docs": count}
    with TreeMemorySampler(child.pid) as sampler:
        try:
            stdout, _ = child.communicate(timeout=args.timeout_s)
            result.update(json.loads(stdout.strip().splitlines()[-1]) if child.returncode == 0 else {})
            result["exit"] = child.returncode
        except subprocess.TimeoutExpired:
            stop(child)
            result["stopped_after_s"] = args.timeout_s
    stderr.close()
    if result.get("exit", 0) != 0:
        result["error_tail"] = (work / f"child-{count}.log").read_text(errors="replace").splitlines()[-8:]
    result["wall_s"] = time.perf_counter() - started
    result["memory"] = sampler.peaks.to_dict()
    result["spark"] = event_log_summary(event_log)
    shutil.rmtree(output, ignore_errors=True)  # 1M documents of output: gigabytes
    return result


def growth_lines(results: list[dict]) -> list[str]:
    lines = []
    finished = [r for r in results if "dedup_s" in r]
    for small, large in pairwise(finished):
        factor = large["docs"] / small["docs"]
        ratio = large["dedup_s"] / small["dedup_s"]
        lines.append(
            f"{small['docs']:,} -> {large['docs']:,} documents ({factor:.0f}x): time x{ratio:.2f} "
            f"(linear: x{factor:.0f}); docs/s {small['docs'] / small['dedup_s']:,.0f} -> "
            f"{large['docs'] / large['dedup_s']:,.0f}"
        )
    return lines


def describe(result: dict) -> str:
    memory = result["memory"]
    rss, pss = memory["peak_rss_mb_by_kind"], memory["peak_pss_mb_by_kind"]
    peaks = (
        f"peak RSS MB: driver JVM {rss['driver_jvm']:,.0f}, driver Python {rss['driver_python']:,.0f}, "
        f"Python workers {rss['python_workers']:,.0f} (PSS {pss['python_workers']:,.0f}, up to "
        f"{memory['most_python_workers']} processes), whole tree {memory['peak_tree_rss_mb']:,.0f} "
        f"(PSS {memory['peak_tree_pss_mb']:,.0f}); JVM {memory['jvm_max_heap']}"
    )
    spark = result["spark"]
    phases = ", ".join(f"{name[:-2]} {value:,.1f} s" for name, value in spark.get("phases", {}).items())
    if "dedup_s" in result:
        return (
            f"{result['docs']:,} docs: dedup {result['dedup_s']:,.1f} s ({result['docs'] / result['dedup_s']:,.0f} "
            f"docs/s; {phases}; {spark.get('jobs')} Spark jobs, {spark.get('between_jobs_s')} s between them), "
            f"session start {result['session_start_s']:.1f} s, kept "
            f"{result['kept']:,}, dropped {result['dropped']}; {peaks}"
        )
    running = "; ".join(
        f"stage {s['stage']} ({s['name']}) {s['tasks_done']}/{s['tasks']} tasks"
        + (f" in {s['elapsed_s']:,.0f} s: all {s['tasks']} in ~{s['projected_s']:,.0f} s" if "projected_s" in s else "")
        for s in spark.get("running_at_end", [])
    )
    why = (
        f"stopped after {result['stopped_after_s']:.0f} s"
        if "stopped_after_s" in result
        else f"exit {result['exit']}: {' / '.join(result.get('error_tail', []))}"
    )
    return (
        f"{result['docs']:,} docs: {why}; {spark.get('jobs_done')} of {spark.get('jobs')} Spark jobs done, "
        f"running: {running or 'none'}; {peaks}"
    )


def run(args, figures: Results) -> int:
    if args.one:
        run_one(args)
        return 0
    if not args.work:
        raise UsageError("--work is required")
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    monitor = CpuMonitor(work / "cpu-monitor.txt").start()
    corpus = DedupCorpus()
    results = []
    try:
        for count in (int(size) for size in args.sizes.split(",")):
            input_dir, generated_s = input_stage(corpus, count, work)
            others_before = monitor.snapshot()[0]
            log(f"dedup of {count:,} documents (stopped after {args.timeout_s:.0f} s)")
            result = run_size(count, input_dir, work, args)
            result["generate_s"] = generated_s
            result["others_cpu_s"] = monitor.snapshot()[0] - others_before
            results.append(result)
            log(describe(result))
    finally:
        monitor.stop()
    print("\n".join(["", "== dedup scale run, Spark " + args.master, *map(describe, results), *growth_lines(results)]))
    figures.details.update(runs=results, growth=growth_lines(results))
    for result in results:
        case = f"dedup of {result['docs']:,} documents, Spark {args.master}"
        if "dedup_s" in result:
            figures.record(case, "dedup_s", result["dedup_s"], "s")
            figures.record(case, "docs_per_s", result["docs"] / result["dedup_s"], "docs/s")
        figures.record(case, "peak_tree_rss_mb", result["memory"]["peak_tree_rss_mb"], "MB")
        figures.record(case, "peak_tree_pss_mb", result["memory"]["peak_tree_pss_mb"], "MB")
    return 0


SPEC = Spec(
    "dedup-scale",
    __doc__,
    run,
    shared=("work",),
    options=(
        option("--sizes", default=",".join(str(s) for s in SIZES), help="document counts, comma-separated"),
        option("--master", default="local[2]"),
        option("--memory", default="4g", help="Spark driver and executor memory"),
        option("--timeout-s", type=float, default=TIMEOUT_S, help="per size"),
        option("--one", hidden=True, action="store_true"),  # a child: one size's dedup
        option("--input", hidden=True),
        option("--stage-output", hidden=True),
        option("--event-log", hidden=True),
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
