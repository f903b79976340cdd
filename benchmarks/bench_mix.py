"""mix against tokenize on the same documents, at two or more sizes, on Spark local[2] with driver
and executor memory 4g: wall time, peak memory per process, and how both grow with the size.

The documents are dedup_corpus.py's (the 1,432 real pages, then mosaics of their lines), labelled
with a source by a hash of the id: web 70 %, wiki 20 %, news 10 %. mix asks web 50 %, wiki 30 %,
news 20 % with at most 2 passes, so its default total is one pass of the corpus: news is read
twice, wiki 1.5 times, web 5/7 of the time, and the shards hold as many tokens as tokenize's.
One tokenizer (32k byte-level BPE, train-tokenizer on a 50 MB sample of the smallest input) serves
every run. Each (stage, size) runs in a fresh child process (its own JVM), watched from here
(process_memory.py, every 0.5 s). Inputs and the tokenizer are kept in --work for later runs.

    python benchmarks/run_all.py mix --work /tmp/mix-bench [--sizes 100000,1000000]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
import zlib
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import harness
from bench_dedup_scale import stop
from dedup_corpus import WEB_DOCS, DedupCorpus, Generated, write_stage
from harness import Results, Spec, option
from process_memory import TreeMemorySampler

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.store.stage_dir import STATS_FILE, SUCCESS
from corpus_pipeline.stats import StageStats

SIZES = (100_000, 1_000_000)
DOCS_PER_PART, MIN_PARTS = 50_000, 8  # as bench_dedup_scale: ~100 MB parts, both cores busy
SOURCES = (("web", 7), ("wiki", 2), ("news", 1))  # tenths of the documents
MIX = {"by": ["source"], "targets": {"web": 0.5, "wiki": 0.3, "news": 0.2}, "max_repeats": 2}
TOKENIZER = {"vocab_size": 32_000, "sample_bytes": 50_000_000}
TIMEOUT_S = 60 * 60


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def config() -> PipelineConfig:
    return PipelineConfig.model_validate({"mix": MIX, "train_tokenizer": TOKENIZER})


def labelled(generated: Iterator[Generated], stats: StageStats) -> Iterator[Generated]:
    """The documents with a source and domain, counted into `stats` (tokenize reads bytes_kept)."""
    tenths = [name for name, share in SOURCES for _ in range(share)]
    for item in generated:
        source = tenths[zlib.crc32(item.doc["id"].encode()) % 10]
        size = len(item.doc["text"].encode("utf-8"))
        stats.add_in(1, size)
        stats.add_kept(1, size)
        yield Generated({**item.doc, "source": source, "domain": source}, item.source_id)


def input_stage(corpus: DedupCorpus, count: int, work: Path) -> Path:
    directory = work / f"input-{count}"
    identity = corpus.identity(count) + ":mix-labels"
    marker = directory / SUCCESS
    if (
        marker.exists()
        and (directory / STATS_FILE).exists()
        and json.loads(marker.read_text())["fingerprint"] == identity
    ):
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    parts = max(MIN_PARTS, -(-count // DOCS_PER_PART))
    log(f"generating {count:,} labelled documents into {parts} parts")
    stats = StageStats("bench-mix-input")
    write_stage(labelled(corpus.documents(count), stats), directory, parts, identity)
    stats.write(directory / STATS_FILE)
    return directory


def tokenizer(input_dir: Path, work: Path) -> Path:
    from corpus_pipeline.engine.exec.local import LocalExecutor
    from corpus_pipeline.stage_runner import run_stage

    log("training the tokenizer (once; kept in --work)")
    result = run_stage("train-tokenizer", input_dir, work / "tokenizer", config(), LocalExecutor())
    return result.output / "tokenizer.json"


def run_child(args) -> None:
    """Child: one stage in a fresh session; the last stdout line is its JSON result."""
    from bench_dedup import spark_session

    from corpus_pipeline.engine.exec.spark import SparkExecutor
    from corpus_pipeline.stage_runner import run_stage

    spark = spark_session(args.master, args.memory)
    started = time.perf_counter()
    result = run_stage(
        args.child,
        Path(args.input),
        Path(args.stage_output),
        config(),
        SparkExecutor(spark),
        tokenizer=Path(args.tokenizer),
    )
    seconds = time.perf_counter() - started
    spark.stop()
    manifest = json.loads((Path(args.stage_output) / "manifest.json").read_text())
    figures = {"seconds": seconds, "skipped": result.skipped, "docs_in": result.stats.docs_in}
    figures |= {"shards": len(manifest["shards"]), "tokens": manifest["tokens"], "documents": manifest["documents"]}
    if "mix" in manifest:
        figures["mix_groups"] = manifest["mix"]["groups"]
    print(json.dumps(figures), flush=True)


def run_stage_child(stage: str, count: int, input_dir: Path, tokenizer_path: Path, work: Path, args) -> dict:
    output = work / f"{stage}-{count}"
    shutil.rmtree(output, ignore_errors=True)
    for stale in work.glob(f".{output.name}.inprogress-*"):
        shutil.rmtree(stale)
    command = [sys.executable, __file__, "--child", stage, "--input", str(input_dir), "--stage-output", str(output)]
    command += ["--tokenizer", str(tokenizer_path), "--master", args.master, "--memory", args.memory]
    stderr_path = work / f"child-{stage}-{count}.log"
    result: dict = {"stage": stage, "docs": count}
    started = time.perf_counter()
    with stderr_path.open("w") as stderr:
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
        with TreeMemorySampler(child.pid) as sampler:
            try:
                stdout, _ = child.communicate(timeout=args.timeout_s)
                result["exit"] = child.returncode
                if child.returncode == 0:
                    result.update(json.loads(stdout.strip().splitlines()[-1]))
            except subprocess.TimeoutExpired:
                stop(child)
                result["stopped_after_s"] = args.timeout_s
    if result.get("exit") != 0:
        result["error_tail"] = stderr_path.read_text(errors="replace").splitlines()[-8:]
    result["wall_s"] = time.perf_counter() - started
    result["memory"] = sampler.peaks.to_dict()
    shutil.rmtree(output, ignore_errors=True)  # gigabytes of shards at 1M documents
    return result


def describe(result: dict) -> str:
    if "seconds" not in result:
        return f"{result['stage']} {result['docs']:,} docs: did not finish ({result.get('error_tail') or 'time limit'})"
    largest = result["memory"]["peak_vmhwm_mb_largest_process_by_kind"]
    line = (
        f"{result['stage']:<8} {result['docs']:>9,} docs: {result['seconds']:8,.1f} s "
        f"({result['docs'] / result['seconds']:,.0f} docs/s), {result['tokens']:,} tokens in {result['shards']} "
        f"shards; peak per process MB: driver Python {largest['driver_python']:,.0f}, JVM "
        f"{largest['driver_jvm']:,.0f}, largest Python worker {largest['python_workers']:,.0f}"
    )
    if "mix_groups" in result:
        line += "; " + ", ".join(
            f"{g} {f['achieved']:.1%} (target {f['target']:.0%}, x{f['repeat_factor']:.2f})"
            for g, f in result["mix_groups"].items()
        )
    return line


def comparison_lines(results: list[dict]) -> list[str]:
    done = {(r["stage"], r["docs"]): r for r in results if "seconds" in r}
    lines = []
    for count in sorted({docs for _, docs in done}):
        if ("mix", count) in done and ("tokenize", count) in done:
            ratio = done["mix", count]["seconds"] / done["tokenize", count]["seconds"]
            lines.append(f"{count:,} docs: mix / tokenize = {ratio:.2f}x the time (goal <= 1.3x)")
    for stage in ("tokenize", "mix"):
        sizes = sorted(docs for name, docs in done if name == stage)
        for small, large in pairwise(sizes):
            growth = done[stage, large]["seconds"] / done[stage, small]["seconds"]
            lines.append(f"{stage}: {small:,} -> {large:,} documents: time x{growth:.2f} (linear x{large / small:.0f})")
    return lines


def run_driver_child(count: int, work: Path) -> dict:
    """The driver's steps alone on synthetic encoded tables (mix_driver.py), in a fresh process."""
    directory = work / f"driver-{count}"
    shutil.rmtree(directory, ignore_errors=True)
    command = [sys.executable, __file__, "--driver-child", str(count), "--stage-output", str(directory)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S)
    shutil.rmtree(directory, ignore_errors=True)
    if done.returncode != 0:
        return {"docs": count, "error_tail": done.stderr.splitlines()[-8:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(args, figures: Results) -> int:
    if args.child:
        run_child(args)
        return 0
    if args.driver_child:
        import mix_driver

        sources = [name for name, share in SOURCES for _ in range(share)]
        print(json.dumps(mix_driver.run(Path(args.stage_output), args.driver_child, config(), sources)), flush=True)
        return 0
    if not WEB_DOCS.exists():
        print(f"bench_mix: {WEB_DOCS} is missing (the shared data): nothing to generate documents from")
        return 2
    args.work.mkdir(parents=True, exist_ok=True)
    sizes = [int(size) for size in args.sizes.split(",") if size]
    corpus = DedupCorpus()
    inputs = {count: input_stage(corpus, count, args.work) for count in sizes}
    tokenizer_path = args.work / "tokenizer" / "tokenizer.json"
    if sizes and not tokenizer_path.exists():
        tokenizer_path = tokenizer(inputs[min(sizes)], args.work)
    results = []
    for count in sizes:
        for stage in ("tokenize", "mix"):
            log(f"{stage} on {count:,} documents")
            results.append(run_stage_child(stage, count, inputs[count], tokenizer_path, args.work, args))
            log(describe(results[-1]))
    driver = []
    for count in [int(size) for size in args.driver_sizes.split(",") if size]:
        log(f"the driver's steps alone on {count:,} synthetic documents")
        driver.append(run_driver_child(count, args.work))
        log(json.dumps(driver[-1]))
    summary = comparison_lines(results)
    for line in summary:
        log(line)
    figures.details.update(master=args.master, memory=args.memory, results=results, driver=driver, summary=summary)
    for result in results:
        if "seconds" in result:
            case = f"{result['stage']} on {result['docs']:,} documents, Spark {args.master}"
            largest = result["memory"]["peak_vmhwm_mb_largest_process_by_kind"]
            figures.record(case, "seconds", result["seconds"], "s")
            figures.record(case, "docs_per_s", result["docs"] / result["seconds"], "docs/s")
            figures.record(case, "peak_driver_jvm_mb", largest["driver_jvm"], "MB")
            figures.record(case, "peak_python_worker_mb", largest["python_workers"], "MB")
    return 0


SPEC = Spec(
    "mix",
    __doc__,
    run,
    shared=("work",),
    options=(
        option("--sizes", default=",".join(map(str, SIZES)), help="'' for none (the driver's steps only)"),
        option("--master", default="local[2]"),
        option("--memory", default="4g"),
        option("--timeout-s", type=float, default=TIMEOUT_S),
        option(
            "--driver-sizes", default="1000000", help="sizes for the driver's steps alone (mix_driver.py); '' for none"
        ),
        option("--child", hidden=True, choices=("tokenize", "mix")),  # a child: one stage at one size
        option("--driver-child", hidden=True, type=int),  # a child: the driver's steps alone
        option("--input", hidden=True),
        option("--stage-output", hidden=True),
        option("--tokenizer", hidden=True),
    ),
    defaults={"work": Path("/tmp/mix-bench")},
)

if __name__ == "__main__":
    sys.exit(harness.main(SPEC))
