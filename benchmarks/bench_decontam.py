"""decontaminate on the documents extracted from the real pages: docs/s in one process and on Spark
local[2] against the quality stage on the same documents, the index's memory per process, and
datatrove's NGramsDecontFilter beside it.

Input: shared/data/dedup/web_docs.jsonl (1,432 documents, labelled with lid.176 once) repeated
COPIES times (~20,000 documents); every PLANT_EVERY-th copy gets an eval item appended, so the
matching and dropping path is timed too. Eval sets: HumanEval (built in) and GENERATED items made
of two ABC news lines each (a question and an answer: real English, absent from the pages).

(a) index, for HumanEval + 10,000 and + 100,000 items: in a fresh process, the driver's read,
    build and save (seconds, resident memory added), then in another an executor's load with every
    page of the mapped arrays read (resident memory added: what each process holds).
(b) the stage's process_batch in one process, and the quality stage's on the first QUALITY_DOCS.
(c) the stage end to end, Parquet in and out: LocalExecutor, then Spark local[2] (session start
    not counted).
(p) datatrove 0.10.1 NGramsDecontFilter (13-grams, query + label + overlap n-grams of the same
    items) on the first PEER_DOCS documents, in the peer venv (peer_datatrove_decontam.py).

    python benchmarks/run_all.py decontam [--copies N] [--generated N] [--no-spark] [--no-peer] [--memory-only]
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import harness
from bench_quality import load_docs, write_input
from common import DATA, seconds_of_fresh_run
from harness import Results, Spec, option
from peer_env import PeerEnvError, ensure_peer_env, run_peer

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.decontam.config import DecontaminationConfig, EvalSetConfig
from corpus_pipeline.decontam.evaluate import humaneval_items
from corpus_pipeline.decontam.stage import DecontaminateStage
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.stats import StageStats

ABC_NEWS = DATA / "text" / "en_abc_news.txt"
PEER_SCRIPT = Path(__file__).resolve().parent / "peer_datatrove_decontam.py"
COPIES, GENERATED, PLANT_EVERY = 14, 10_000, 100
QUALITY_DOCS, PEER_DOCS = 4_000, 2_000
MEMORY_ITEMS = (10_000, 100_000)
MEMORY_GOAL_MB = 200
# run()'s rates, as the cases of their records
RATES = {
    "stage_in_process_docs_s": "decontaminate process_batch, one process",
    "quality_in_process_docs_s": "quality process_batch, one process",
    "stage_local_docs_s": "decontaminate stage, LocalExecutor",
    "stage_spark_local2_docs_s": "decontaminate stage, Spark local[2]",
}
PEER_CASE = "datatrove NGramsDecontFilter"


def generated_items(count: int, seed: int = 1) -> list[dict]:
    """`count` items of two ABC news lines each (40 to 400 characters), as question and answer."""
    lines = [line.strip() for line in ABC_NEWS.read_text(encoding="latin-1").splitlines() if 40 <= len(line) <= 400]
    rng = random.Random(seed)
    return [{"id": f"gen-{n}", "question": rng.choice(lines), "answer": rng.choice(lines)} for n in range(count)]


def write_items(items: list[dict], path: Path) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    return path


def decontamination_config(items_file: Path, index_cache: Path | None = None) -> DecontaminationConfig:
    return DecontaminationConfig(
        eval_sets=[
            EvalSetConfig(name="humaneval", builtin="humaneval"),
            EvalSetConfig(name="generated", path=str(items_file), fields=["question", "answer"]),
        ],
        index_cache=str(index_cache) if index_cache else None,
    )


def index_memory(count: int, work: Path) -> dict:
    """In this (fresh) process: the index for HumanEval + `count` generated items, built and saved
    under `work` when it is not there yet (what the driver does), else loaded and every page of it
    read (what an executor process holds once it has matched enough documents)."""
    items = work / f"items-{count}.jsonl"
    if not items.exists():
        write_items(generated_items(count), items)
    built = not (work / "index").exists()
    before = _rss_mb()
    started = time.perf_counter()
    stage = DecontaminateStage(decontamination_config(items, work / "index"))
    seconds = time.perf_counter() - started
    index = stage.index
    touched = int(index.hashes.sum() + index.items.sum() + index.item_sets.sum())  # pages every mapped byte in
    return {
        "items": sum(index.set_sizes),
        "ngrams": len(index.hashes),
        "process": "driver: read, build, save" if built else "executor: load, every page read",
        "seconds": round(seconds, 2),
        "index_mb": round(index.nbytes / 1e6, 1),
        "rss_added_mb": round(_rss_mb() - before, 1),
        "checksum": touched % 1000,
    }


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def planted(docs: list[dict], copies: int, items: list[dict]) -> list[dict]:
    """The documents `copies` times, every PLANT_EVERY-th with an item (HumanEval or generated) appended."""
    problems = humaneval_items()
    rows = []
    for copy in range(copies):
        for doc in docs:
            row = {**doc, "id": f"{doc['id']}#{copy}"}
            if len(rows) % PLANT_EVERY == 0:
                n = len(rows) // PLANT_EVERY
                if n % 2:
                    extra = f"{problems[n % len(problems)].question}\n{problems[n % len(problems)].answer}"
                else:
                    extra = f"{items[n % len(items)]['question']}\n{items[n % len(items)]['answer']}"
                row["text"] = f"{row['text']}\n{extra}"
            rows.append(row)
    return rows


def rate(docs: int, seconds: float) -> float:
    return round(docs / seconds, 1) if seconds else 0.0


def run(args, figures: Results) -> None:
    if args.memory_items is not None:
        print(json.dumps(index_memory(args.memory_items, args.memory_work)))
        return
    config = PipelineConfig()
    work = Path(tempfile.mkdtemp(prefix="bench-decontam-"))
    results: dict = figures.details
    results.update(copies=args.copies, generated_items=args.generated)
    try:
        results["index"] = [one for count in MEMORY_ITEMS for one in _memory_in_fresh_processes(count, work)]
        if args.memory_only:
            print(json.dumps(results["index"], indent=2))
            record(figures)
            return
        items = generated_items(args.generated)
        items_file = write_items(items, work / "items.jsonl")
        config = config.model_copy(update={"decontamination": decontamination_config(items_file)})
        rows = planted(load_docs(None, config), args.copies, items)
        results["documents"] = len(rows)
        stage = DecontaminateStage(config.decontamination)
        started = time.perf_counter()
        verdicts = stage.process_batch([{"id": r["id"], "text": r["text"]} for r in rows], StageStats(stage.name))
        results["stage_in_process_docs_s"] = rate(len(rows), time.perf_counter() - started)
        results["dropped"] = sum(v is not None for v in verdicts)
        quality = QualityStage(config.quality)
        quality.setup()
        sample = [{k: r[k] for k in ("id", "text", "language", "url")} for r in rows[:QUALITY_DOCS]]
        started = time.perf_counter()
        quality.process_batch(sample, StageStats(quality.name))
        results["quality_in_process_docs_s"] = rate(len(sample), time.perf_counter() - started)
        input_dir = write_input(rows, 1, work)
        stage_run = partial(run_stage, "decontaminate")
        seconds = seconds_of_fresh_run(stage_run, input_dir, work / "out", config, LocalExecutor(), len(rows))
        results["stage_local_docs_s"] = rate(len(rows), seconds)
        if not args.no_spark:
            results["stage_spark_local2_docs_s"] = rate(len(rows), _spark_seconds(input_dir, work, config, len(rows)))
        if not args.no_peer:
            results["datatrove"] = _peer(rows[:PEER_DOCS], items, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(results, indent=2))
    record(figures)


def record(figures: Results) -> None:
    """The figures of run() as records: index memory and seconds, docs/s of each way."""
    details = figures.details
    for index in details["index"]:
        case = f"index of {index['items']:,} items, {index['process']}"
        figures.record(case, "rss_added_mb", index["rss_added_mb"], "MB")
        figures.record(case, "seconds", index["seconds"], "s")
    peer = details.get("datatrove", {}).get("filter_docs_s")
    for key, case in RATES.items():
        if key in details:
            ratio = details[key] / peer if peer and key == "stage_in_process_docs_s" else None
            figures.record(case, "docs_per_s", details[key], "docs/s", ratio, PEER_CASE if ratio else None)
    if peer:
        figures.record(PEER_CASE, "docs_per_s", peer, "docs/s")


def _memory_in_fresh_processes(count: int, work: Path) -> list[dict]:
    """The driver's build, then an executor's load, each in a process of its own."""
    folder = work / f"memory-{count}"
    folder.mkdir()
    runs = []
    for _ in ("build", "load"):
        argv = [sys.executable, __file__, "--memory-items", str(count), "--memory-work", str(folder)]
        done = subprocess.run(argv, capture_output=True, text=True, check=True)
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        figures["within_goal"] = figures["rss_added_mb"] <= MEMORY_GOAL_MB
        runs.append(figures)
    return runs


def _spark_seconds(input_dir: Path, work: Path, config: PipelineConfig, docs: int) -> float:
    from corpus_pipeline.config import SparkConfig
    from corpus_pipeline.engine.exec.session import get_spark
    from corpus_pipeline.engine.exec.spark import SparkExecutor

    conf = {"spark.ui.showConsoleProgress": "false"}
    spark = get_spark(SparkConfig(master="local[2]", app_name="bench-decontam", conf=conf))
    spark.sparkContext.setLogLevel("ERROR")
    executor = SparkExecutor(spark)
    stage = partial(run_stage, "decontaminate")
    try:
        # A first run warms the Python workers (each builds its index once); the second is timed.
        seconds_of_fresh_run(stage, input_dir, work / "warm", config, executor, docs)
        return seconds_of_fresh_run(stage, input_dir, work / "spark", config, executor, docs)
    finally:
        spark.stop()


def _peer(rows: list[dict], items: list[dict], work: Path) -> dict:
    try:
        ensure_peer_env(log=lambda *_: None)
    except PeerEnvError as error:
        return {"error": str(error)}
    docs = write_items([{"text": r["text"]} for r in rows], work / "peer_docs.jsonl")
    pairs = [{"query": p.question, "label": p.answer} for p in humaneval_items()]
    pairs += [{"query": i["question"], "label": i["answer"]} for i in items]
    index = work / "peer_index"
    index.mkdir()
    figures = run_peer(
        ["--docs", str(docs), "--items", str(write_items(pairs, work / "peer_items.jsonl")), "--index", str(index)],
        script=PEER_SCRIPT,
    )
    figures["filter_docs_s"] = rate(figures["docs"], figures["filter_s"])
    return figures


SPEC = Spec(
    "decontam",
    __doc__,
    run,
    shared=("no_peer",),
    options=(
        option("--copies", type=int, default=COPIES, help="the documents repeated this many times"),
        option("--generated", type=int, default=GENERATED, help="generated eval items beside HumanEval"),
        option("--no-spark", action="store_true", help="skip the Spark local[2] run"),
        option("--memory-only", action="store_true", help="only the index memory figures"),
        option("--memory-items", hidden=True, type=int),  # a child: the index memory for this many items
        option("--memory-work", hidden=True, type=Path),  # with --memory-items: where its files are
    ),
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
