"""`corpus-pipeline run` on a real cluster against one process: bench_scale's N documents (the same
seeded generator and tokenizer) through ingest -> ... -> tokenize twice,

    cluster  a standalone master and WORKERS workers of one core each on 127.0.0.1 (`spark-class` of the
             pip pyspark), the input, the tokenizer and the whole run on s3:// of a loopback S3 server
             (moto's server mode); the executors import this checkout (spark.executorEnv.PYTHONPATH)
             and reach the store with the AWS variables (spark.executorEnv.AWS_*)
    local    `--runner local`, one process, everything on local disk

then compares what both wrote (run_outputs.py: every file of every stage's manifest; Parquet by
its rows, everything else byte for byte but the stats' timings) and prints wall, CPU and documents
per second per core of each. CPU is every process's: the driver's tree, the master's, the workers'
(executors and their Python workers included: every process seen, sampled, tree_usage.py); the S3 server's, which a
real store would not charge to the pipeline, is shown apart. The cluster's daemons are started (and
their JVM start left out of the figures) before the clock starts.

    python benchmarks/bench_cluster.py --documents 10000 [--work /tmp/bench-cluster]
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from unittest import mock

import harness
import yaml
from bench_scale import tokenizer_file, write_input
from common import REPO
from dedup_corpus import DedupCorpus
from harness import Results, Spec, option
from process_memory import TreeMemorySampler, process_tree
from run_outputs import compare_runs
from tree_usage import SAMPLE_S, SeenProcessesCpu, run_measured

from corpus_pipeline.loopback_cluster import StandaloneCluster, standalone_cluster
from corpus_pipeline.storage.loopback_s3 import start_loopback_s3

WORKERS = 2
# A worker of 2 GB: engine.memory_mb's default (1,536) is sized for one, and the executor's JVM
# (spark.executor.memory) takes EXECUTOR_MEMORY of it, its Python workers the rest.
WORKER_MEMORY, EXECUTOR_MEMORY = "2g", "1g"
BUCKET = "bench-cluster"
# After the driver exits, each worker stops its executor (and the executor its Python workers).
EXECUTOR_EXIT_S = 60


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def write_config(path: Path, count: int, documents: str, tokenizer: str, spark: dict) -> Path:
    config = {
        "pipeline": {"sources": [{"name": "web", "kind": "jsonl", "paths": [documents]}], "tokenizer": tokenizer},
        # Mosaics of lines are no corpus to gate (their vocabulary coverage failed at 200 documents):
        # a language is gated from min_documents documents on, so none is, and the run goes on.
        "quality": {"gates": {"min_documents": count + 1}},
        "spark": spark,
    }
    path.write_text(yaml.safe_dump(config))
    return path


def cluster_spark(master_url: str, aws: dict[str, str]) -> dict:
    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.executor.memory": EXECUTOR_MEMORY,
        "spark.sql.shuffle.partitions": str(2 * WORKERS),
        # The executors run this checkout's code and reach the store as the driver does.
        "spark.executorEnv.PYTHONPATH": str(REPO),
        **{f"spark.executorEnv.{name}": value for name, value in aws.items()},
    }
    return {"master": master_url, "conf": conf}


def worker_memory(sampler: TreeMemorySampler) -> dict:
    """Peak memory of one worker's tree (its JVM, its executor's JVM, that executor's Python workers):
    what a node gives each core. process_memory names kinds after a driver's tree: here the root is
    the worker's JVM, the JVM under it the executor."""
    peaks = sampler.peaks
    return {
        "tree_pss_mb": round(peaks.tree_pss_mb),
        "executor_jvm_rss_mb": round(peaks.hwm_mb["driver_jvm"]),
        "largest_python_worker_rss_mb": round(peaks.hwm_mb["python_workers"]),
        "python_workers_pss_mb": round(peaks.pss_mb["python_workers"]),
    }


def _running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for_executors_to_exit(cluster: StandaloneCluster) -> None:
    """Until no daemon has a running child, so that the CPU sampler sees each executor to its end.
    (A zombie stays under each: spark-class's shell left its launcher's process to the JVM it became,
    which never reaps it.)"""
    deadline = time.monotonic() + EXECUTOR_EXIT_S
    daemons = [process.pid for process, _ in cluster.daemons.values()]
    while any(_running(pid) for daemon in daemons for pid in process_tree(daemon) - {daemon}):
        if time.monotonic() > deadline:
            raise TimeoutError(f"executors still running {EXECUTOR_EXIT_S} s after the driver exited")
        time.sleep(0.5)


def compare_runners(count: int, work: Path, corpus: DedupCorpus, tokenizer: Path) -> dict:
    """`run` of `count` documents on a loopback cluster with the run on s3://, and `--runner local` on
    local disk, into `work`; their figures and the differences between their outputs."""
    if (work / "local").exists() or (work / "spark").exists():
        raise FileExistsError(f"{work} holds an earlier run: a measured run needs fresh outputs (remove it)")
    work.mkdir(parents=True, exist_ok=True)  # an input an earlier run wrote is used again (write_input)
    documents = write_input(corpus, count, work / "input")
    python_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": python_path, "SPARK_LOCAL_IP": "127.0.0.1", "PYSPARK_PYTHON": sys.executable}
    run = [sys.executable, "-m", "corpus_pipeline.cli", "run"]
    figures = {}

    log(f"{count:,} documents, --runner local")
    config = write_config(work / "local.yaml", count, str(documents), str(tokenizer), {})
    local = run_measured(
        [*run, "--config", str(config), "--output", str(work / "local"), "--runner", "local"], work / "local.log", env
    )
    if local.returncode:
        raise RuntimeError(f"the local run failed ({local.returncode}): see {work / 'local.log'}")
    figures["local"] = {"cores": 1, "wall_s": local.wall_s, "cpu_s": local.cpu_s}

    with ExitStack() as stack:
        store = start_loopback_s3()
        stack.callback(store.stop)
        client = store.client()
        client.create_bucket(Bucket=BUCKET)
        client.upload_file(str(documents), BUCKET, "input/docs.jsonl")
        client.upload_file(str(tokenizer), BUCKET, "tokenizer.json")
        cluster = stack.enter_context(standalone_cluster(work / "spark", WORKERS, WORKER_MEMORY))
        cluster.wait_for_workers()
        log(f"{count:,} documents, {WORKERS} workers of 1 core at {cluster.master_url}, the run on s3://")
        source, run_dir = f"s3://{BUCKET}/input/docs.jsonl", f"s3://{BUCKET}/runs/cluster"
        spark = cluster_spark(cluster.master_url, store.environment())
        config = write_config(work / "cluster.yaml", count, source, f"s3://{BUCKET}/tokenizer.json", spark)
        daemons = stack.enter_context(SeenProcessesCpu([process.pid for process, _ in cluster.daemons.values()]))
        store_cpu = stack.enter_context(SeenProcessesCpu([store.process.pid]))
        workers = [
            stack.enter_context(TreeMemorySampler(process.pid))
            for name, (process, _) in cluster.daemons.items()
            if name.startswith("worker")
        ]
        driver = run_measured(
            [*run, "--config", str(config), "--output", run_dir, "--runner", "spark"],
            work / "cluster.log",
            {**env, **store.environment()},
        )
        if driver.returncode:
            raise RuntimeError(f"the cluster run failed ({driver.returncode}): see {work / 'cluster.log'}")
        wait_for_executors_to_exit(cluster)
        time.sleep(2 * SAMPLE_S)  # a last sample of every process after the executors' end
        figures["cluster"] = {
            "cores": WORKERS,
            "wall_s": driver.wall_s,
            "cpu_s": driver.cpu_s + daemons.cpu_s,
            "driver_cpu_s": driver.cpu_s,
            "store_cpu_s": store_cpu.cpu_s,
            "driver_peak_rss_mb": driver.peak_rss_mb,
            "worker_memory_mb": [worker_memory(sampler) for sampler in workers],
        }
        with mock.patch.dict(os.environ, store.environment()):  # the comparison reads the store too
            comparison = compare_runs((str(work / "local"), str(documents)), (run_dir, source))
    for figure in figures.values():
        figure["docs_per_s_per_core"] = count / figure["wall_s"] / figure["cores"]
        figure["docs_per_cpu_s"] = count / figure["cpu_s"]
    return {"documents": count, "runs": figures, "outputs": comparison}


def run(args, results: Results) -> int:
    corpus = DedupCorpus(seed=0)
    args.work.mkdir(parents=True, exist_ok=True)
    result = compare_runners(args.documents, args.work / str(args.documents), corpus, tokenizer_file(corpus, args.work))
    for name, figure in result["runs"].items():
        log(
            f"{name}: "
            + json.dumps({key: round(value, 2) if isinstance(value, float) else value for key, value in figure.items()})
        )
        case = f"run, {result['documents']:,} documents, {name}"
        results.record(case, "cpu_s", figure["cpu_s"], "s")
        results.record(case, "docs_per_s_per_core", figure["docs_per_s_per_core"], "docs/s")
    outputs = result["outputs"]
    found = outputs["differences"]
    log(
        f"compared {outputs['files']} files of {outputs['stages']} stage directories: "
        + ("identical" if not found else "they differ:\n" + "\n".join(found))
    )
    results.details.update(result)
    return 1 if found else 0


SPEC = Spec(
    "cluster",
    __doc__,
    run,
    shared=("work",),
    options=(option("--documents", type=int, default=10_000, help="generated documents to run"),),
    defaults={"work": Path("/tmp/bench-cluster")},
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
