"""langid on the documents extracted from the real pages: raw fastText, the stage, Spark, datatrove.

The 1,428 documents (~5 KB each) take well under a second of fastText, so they are repeated to
~20,000 documents (the same documents, in the same order, N times) to give Spark's per-job overhead
something to amortise. Every column runs on those same repeated documents.

(a) fastText lid.176.ftz predict alone: on the whole text with newlines replaced, k=-1 (what
    datatrove's LanguageFilter does), and on the stage's sample with the stage's k.
(b) the whole stage in this process (LocalExecutor -> run_chain_task): Parquet read, rows,
    sample + predict, keep rule, Parquet write, stats.
(c) the same through SparkExecutor on local[2].
(d) datatrove JsonlReader -> LanguageFilter() (defaults) on the same documents as JSONL.
Accuracy: top-1 agreement with the whole-text top-1 on the unique pages, and sentence accuracy
(shared/data/langid/sentences) of the stage's path and of the raw whole-text call.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from common import (
    MB,
    PAGES_WARC,
    SENTENCES,
    Column,
    Context,
    Ratio,
    StageReport,
    Target,
    check_fresh_run,
    clocks,
    spark_cpu_bound,
    tree_clocks,
)
from inputs import extracted_docs, pages_input
from peer_env import PeerEnvError, run_peer
from stage_runs import StageBench

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.store.stage_dir import input_parts
from corpus_pipeline.evaluation.commands import evaluate_langid
from corpus_pipeline.evaluation.langid import load_sentences, read_fasttext_labels, score_langid
from corpus_pipeline.langid.stage import LangIdStage, bundled_model_path, language_sample, load_model
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

DOCS_TARGET, QUICK_DOCS_TARGET = 20_000, 2_000
INPUT_PARTS = 8  # like an extract output from 8 WARC files
PEER_SPEEDUP_TARGET = 3.0
SPARK_SPEEDUP_TARGET = 1.6
ACCURACY_TOLERANCE_PP = 0.1  # "no loss": sentence accuracy within 0.1 points of the whole-text call
QUICK_SENTENCES_PER_LANGUAGE = 100
STAGE = StageBench("langid", (PAGES_WARC, SENTENCES))


def repeated_input(docs_dir: Path, copies: int, work: Path) -> Path:
    """A stage directory holding the documents of docs_dir `copies` times, published through the
    engine's own task commit (so langid reads it as it reads any upstream stage); skipped when an
    earlier run published the same rows."""
    table = pa.concat_tables(pq.read_table(part) for part in input_parts(docs_dir, storage=Storage()))
    rows = table.to_pylist() * copies
    per_part = math.ceil(len(rows) / INPUT_PARTS)
    parts = [rows[task_id * per_part : (task_id + 1) * per_part] for task_id in range(INPUT_PARTS)]
    return publish_rows(work / "langid-input", parts, schema=table.schema, stage="bench-repeat")


def write_jsonl(texts: list[str], folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as out:
        for index, text in enumerate(texts):
            out.write(json.dumps({"id": str(index), "text": text}, ensure_ascii=False) + "\n")
    return folder


def raw_predict(model, inputs: list[str], k: int) -> tuple[float, float]:
    """Sums of the per-document predict wall and CPU times."""
    wall = cpu = 0.0
    for text in inputs:
        if text:
            wall0, cpu0 = clocks()
            model.predict(text, k=k)
            wall1, cpu1 = clocks()
            wall, cpu = wall + wall1 - wall0, cpu + cpu1 - cpu0
    return wall, cpu


def time_stage(
    input_dir: Path, output: Path, config: PipelineConfig, executor, docs: int, clock=clocks
) -> tuple[float, float]:
    """Wall and CPU seconds of the whole stage (CPU of this process, or of the whole process tree)."""
    wall0, cpu0 = clock()
    result = run_stage("langid", input_dir, output, config, executor)
    wall1, cpu1 = clock()
    check_fresh_run(result, docs)
    shutil.rmtree(output)
    return wall1 - wall0, cpu1 - cpu0


def accuracy(config: PipelineConfig, model, unique_texts: list[str], urls: list[str], quick: bool) -> dict:
    stage = LangIdStage(config.langid)
    stage.setup()

    def whole_top1(text: str) -> str:
        labels, _ = model.predict(text.replace("\n", " "), k=1)
        return labels[0].removeprefix("__label__") if labels else ""

    disagreements = []
    for text, url in zip(unique_texts, urls, strict=True):
        ours = (stage.predict(text) or [("", 0.0)])[0][0]
        whole = whole_top1(text)
        if ours != whole:
            disagreements.append({"url": url, "stage": ours, "whole_text": whole, "chars": len(text)})
    per_language = QUICK_SENTENCES_PER_LANGUAGE if quick else None
    stage_report = evaluate_langid(str(SENTENCES), config, per_language)
    labels = read_fasttext_labels(config.langid.model_path or bundled_model_path())
    whole_report = score_langid(
        load_sentences(SENTENCES, per_language), lambda texts: [whole_top1(t) for t in texts], labels
    )
    return {
        "docs": len(unique_texts),
        "agree": len(unique_texts) - len(disagreements),
        "disagreements": disagreements,
        "sentences": stage_report.sentences,
        "stage_micro": stage_report.micro_accuracy,
        "stage_macro": stage_report.macro_accuracy,
        "whole_micro": whole_report.micro_accuracy,
        "whole_macro": whole_report.macro_accuracy,
        "languages": len(stage_report.per_language),
    }


def peer_columns(ctx: Context, jsonl_dir: Path, docs: int, mb: float, report: StageReport) -> None:
    runs, raws = [], []
    for _ in range(ctx.reps):
        runs.append(run_peer(["langid", "--input", str(jsonl_dir), "--work", str(ctx.work / "dt-langid")]))
        raws.append(run_peer(["langid-raw", "--input", str(jsonl_dir)]))
    block = [next(b for b in run["blocks"] if "Language" in b["name"]) for run in runs]
    for b in block:
        total = b["stats"].get("total", 0)
        total = total["total"] if isinstance(total, dict) else total
        if total != docs:
            raise PeerEnvError(
                f"datatrove's LanguageFilter saw {total} of {docs} documents "
                f"(block stats {b['stats']}): not a valid measurement"
            )
    reader = [next(b for b in run["blocks"] if "Jsonl" in b["name"]) for run in runs]
    report.add(
        Column(
            "d",
            "datatrove JsonlReader+LanguageFilter(), wall",
            [r["wall_s"] for r in runs],
            docs,
            mb,
            cpu_seconds=[r["cpu_s"] for r in runs],
        ),
        Column(
            "d-blk",
            "datatrove LanguageFilter block alone (its time_stats)",
            [b["seconds"] for b in block],
            docs,
            mb,
            f"JsonlReader block {min(r['seconds'] for r in reader):.2f} s",
        ),
        Column(
            "p",
            "raw fastText (fasttext-numpy2-wheel), whole text, k=-1",
            [r["seconds"] for r in raws],
            docs,
            mb,
            "the library build datatrove uses, peer venv",
            cpu_seconds=[r["cpu_s"] for r in raws],
        ),
    )
    report.info["datatrove"] = {"versions": runs[0]["versions"], "language_block_stats": block[0]["stats"]}


def run(ctx: Context, config: PipelineConfig, log=print) -> StageReport:
    log("langid: input = the extract stage's output (run once, reused)")
    docs_dir = extracted_docs(pages_input(ctx.work, ctx.quick), ctx.work, config)
    unique = pa.concat_tables(
        pq.read_table(p, columns=["url", "text"]) for p in input_parts(docs_dir, storage=Storage())
    )
    unique_texts, urls = unique.column("text").to_pylist(), unique.column("url").to_pylist()
    copies = math.ceil((QUICK_DOCS_TARGET if ctx.quick else DOCS_TARGET) / len(unique_texts))
    input_dir = repeated_input(docs_dir, copies, ctx.work)
    texts = unique_texts * copies
    mb = sum(len(t.encode("utf-8")) for t in texts) / MB
    docs = len(texts)
    report = StageReport(
        "langid",
        f"{len(unique_texts):,} documents extracted from the pages, repeated "
        f"{copies}x = {docs:,} documents, {mb:.1f} MB of text, {INPUT_PARTS} Parquet parts",
        log=log,
        monitor=ctx.monitor,
    )
    report.info.update(
        unique_docs=len(unique_texts), copies=copies, docs=docs, text_mb=mb, langid_config=config.langid.model_dump()
    )

    log("langid (a): raw fastText predict")
    model = load_model(config.langid.model_path or bundled_model_path())
    whole = [t.replace("\n", " ") for t in texts]
    samples = [language_sample(t, config.langid.sample_chars) for t in texts]
    raw_whole = [raw_predict(model, whole, -1) for _ in range(ctx.reps)]
    raw_sample = [raw_predict(model, samples, config.langid.top_k) for _ in range(ctx.reps)]
    report.add(
        Column(
            "a",
            "raw fastText lid.176.ftz, whole text, k=-1 (datatrove's call)",
            [wall for wall, _ in raw_whole],
            docs,
            mb,
            "fasttext-predict build; newline replacement not timed",
            cpu_seconds=[cpu for _, cpu in raw_whole],
        ),
        Column(
            "a-smp",
            f"raw fastText on the stage's sample, k={config.langid.top_k}",
            [wall for wall, _ in raw_sample],
            docs,
            mb,
            f"sample <= {config.langid.sample_chars} chars from 3 windows; sampling not timed",
            cpu_seconds=[cpu for _, cpu in raw_sample],
        ),
    )
    del whole, samples

    log("langid (b): the stage in one process (LocalExecutor -> run_chain_task)")
    local = [
        time_stage(input_dir, ctx.work / f"langid-local-{rep}", config, LocalExecutor(), docs)
        for rep in range(ctx.reps)
    ]
    report.add(
        Column(
            "b",
            "stage, one process: Parquet in, sample+predict, Parquet out",
            [wall for wall, _ in local],
            docs,
            mb,
            cpu_seconds=[cpu for _, cpu in local],
        )
    )

    if ctx.peer_error is None:
        log("langid (d): datatrove in the peer venv")
        try:
            peer_columns(ctx, write_jsonl(texts, ctx.work / "langid-jsonl"), docs, mb, report)
        except PeerEnvError as error:
            report.notes.append(f"datatrove columns missing: {error}")
    else:
        report.notes.append(f"datatrove columns missing: {ctx.peer_error}")

    log("langid (c): the stage on Spark local[2]")
    spark = ctx.spark()
    report.info["spark_session_start_s"] = ctx.spark_start_s[-1]
    try:
        spark_runs = [
            time_stage(input_dir, ctx.work / f"langid-spark-{rep}", config, SparkExecutor(spark), docs, tree_clocks)
            for rep in range(ctx.reps)
        ]
    finally:
        spark.stop()
    report.add(
        Column(
            "c",
            "stage, Spark local[2], SparkExecutor",
            [wall for wall, _ in spark_runs],
            docs,
            mb,
            f"session start {ctx.spark_start_s[-1]:.1f} s not included; cpu s: driver + JVM + Python workers",
            cpu_seconds=[cpu for _, cpu in spark_runs],
        )
    )

    log("langid: accuracy")
    report.info["accuracy"] = accuracy(config, model, unique_texts, urls, ctx.quick)
    _conclude(report)
    return report


def _conclude(report: StageReport) -> None:
    a, b, c, dblk = (report.column(k) for k in ("a", "b", "c", "d-blk"))
    acc = report.info["accuracy"]
    if dblk is not None:
        report.targets.append(
            Target(
                "stage (b) vs datatrove LanguageFilter block (d-blk), docs/s",
                b.docs_per_s / dblk.docs_per_s,
                PEER_SPEEDUP_TARGET,
                why="ours: the whole stage incl. Parquet in/out; theirs: the filter block alone, reader excluded",
            )
        )
        d, p = report.column("d"), report.column("p")
        report.ratios += [
            Ratio.of("stage (b) vs datatrove wall (d)", b, d, "JsonlReader included on their side"),
            Ratio.of(
                "raw fasttext-predict (a) vs fasttext-numpy2-wheel (p), same call", a, p, "the two builds of fastText"
            ),
        ]
    delta = (acc["stage_micro"] - acc["whole_micro"]) * 100
    report.targets.append(
        Target(
            "no loss of accuracy: sentence micro accuracy, stage path minus whole-text call",
            delta,
            -ACCURACY_TOLERANCE_PP,
            unit="pp",
            why=f"stage {acc['stage_micro']:.4f} vs whole text {acc['whole_micro']:.4f} "
            f"(macro {acc['stage_macro']:.4f} vs {acc['whole_macro']:.4f}) over {acc['sentences']:,} "
            f"sentences, {acc['languages']} languages; "
            f"pages: stage top-1 = whole-text top-1 on {acc['agree']:,}/{acc['docs']:,}",
        )
    )
    report.targets.append(
        Target("Spark local[2] (c) speed-up over one process (b)", b.best / c.best, SPARK_SPEEDUP_TARGET)
    )
    report.notes.append(spark_cpu_bound(b, c))
    a_smp = report.column("a-smp")
    report.ratios += [
        Ratio.of(
            "raw predict: stage's sample (a-smp) vs whole text (a)", a_smp, a, "what sampling saves in fastText alone"
        ),
        Ratio.of(
            "stage (b) vs raw whole-text predict (a)",
            b,
            a,
            "the stage, I/O included, vs the bare library call datatrove makes",
        ),
        Ratio.of(
            "stage (b) vs raw predict on its own sample (a-smp)",
            b,
            a_smp,
            "below 1: the stage's cost beyond fastText (Parquet, rows, sampling, stats)",
        ),
    ]
    for item in acc["disagreements"]:
        report.notes.append(
            f"page where the sample disagrees with the whole text: stage {item['stage']}, "
            f"whole {item['whole_text']}, {item['chars']:,} chars, {item['url']}"
        )
