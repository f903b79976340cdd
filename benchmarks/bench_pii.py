"""pii on real documents: the detector alone, the stage in one process and on Spark, and datatrove.

Input: the 1,432 extracted web documents of shared/data/dedup/web_docs.jsonl (~5.3 KB each, German,
English, Chinese...), repeated to ~20,000 (the same documents, in order, N times) so that Spark's
per-job overhead is amortised. Every column runs on those same documents, ALL PII types enabled.

(a) the detector alone in this process: find + redact per text, the stage's per-document work.
(b) the whole stage in this process (LocalExecutor -> run_chain_task): Parquet in, signals,
    redaction, keep rule, Parquet out, stats.
(c) the same through SparkExecutor on local[2].
(d) datatrove JsonlReader -> PIIFormatter() (defaults: emails and public IPv4 only) in its venv,
    tasks=1, workers=1; (d-blk) the PIIFormatter block's own time; (p) PIIFormatter().format alone.
Target: (a) at least as many documents/s as datatrove's PIIFormatter block (d-blk).

    python benchmarks/run_all.py pii --quick [--no-peer]     # smoke run
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from collections import Counter
from functools import partial
from pathlib import Path

from common import DATA, MB, Column, Context, StageReport, Target, seconds_of_fresh_run
from peer_env import PeerEnvError, peer_environment, peer_python
from stage_runs import StageBench

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.evaluation.pii import load_gold, score_pii
from corpus_pipeline.pii.detector import PiiDetector, redact
from corpus_pipeline.stage_runner import run_stage

WEB_DOCS = DATA / "dedup" / "web_docs.jsonl"
GOLD = DATA / "pii" / "presidio_synth_dev.json"
STAGE = StageBench("pii", (WEB_DOCS, GOLD))
PEER_SCRIPT = Path(__file__).resolve().parent / "peer_pii.py"
DOCS_TARGET, QUICK_DOCS_TARGET = 20_000, 2_000
INPUT_PARTS = 8
PEER_SPEED_TARGET = 1.0
SPARK_SPEEDUP_TARGET = 1.6


def document_input(texts: list[str], work: Path) -> Path:
    """A finished stage directory holding `texts` in INPUT_PARTS parts, as any upstream stage writes."""
    per_part = math.ceil(len(texts) / INPUT_PARTS)
    parts = [
        [
            empty_document(id=f"{task_id}-{index}", text=text)
            for index, text in enumerate(texts[task_id * per_part : (task_id + 1) * per_part])
        ]
        for task_id in range(INPUT_PARTS)
    ]
    return publish_rows(work / "pii-input", parts, schema=DOCUMENT_SCHEMA, stage="bench-pii-input")


def detector_seconds(detector: PiiDetector, texts: list[str]) -> float:
    started = time.perf_counter()
    for text in texts:
        redact(text, detector.find(text))
    return time.perf_counter() - started


def stage_seconds(input_dir: Path, output: Path, config: PipelineConfig, executor, docs: int) -> float:
    return seconds_of_fresh_run(partial(run_stage, "pii"), input_dir, output, config, executor, docs)


def run_peer_pii(args: list[str]) -> dict:
    done = subprocess.run(
        [str(peer_python()), str(PEER_SCRIPT), *args], capture_output=True, text=True, env=peer_environment()
    )
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        tail = "\n".join(done.stderr.strip().splitlines()[-8:])
        raise PeerEnvError(f"peer_pii.py {args[0]} failed (exit {done.returncode}):\n{tail}")
    return json.loads(lines[-1])


def peer_columns(ctx: Context, texts: list[str], mb: float, report: StageReport) -> None:
    folder = ctx.work / "pii-jsonl"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as out:
        for index, text in enumerate(texts):
            out.write(json.dumps({"id": str(index), "text": text}, ensure_ascii=False) + "\n")
    runs = [
        run_peer_pii(["pipeline", "--input", str(folder), "--work", str(ctx.work / "dt-pii")]) for _ in range(ctx.reps)
    ]
    raws = [run_peer_pii(["raw", "--input", str(folder)]) for _ in range(ctx.reps)]
    blocks = [next(b for b in run["blocks"] if "PII" in b["name"]) for run in runs]
    report.add(
        Column("d", "datatrove JsonlReader+PIIFormatter(), wall", [r["wall_s"] for r in runs], len(texts), mb),
        Column(
            "d-blk",
            "datatrove PIIFormatter block alone (its time_stats)",
            [b["seconds"] for b in blocks],
            len(texts),
            mb,
        ),
        Column("p", "PIIFormatter().format per text, timed alone", [r["seconds"] for r in raws], len(texts), mb),
    )
    report.info["datatrove"] = {"versions": runs[0]["versions"], "pii_block_stats": blocks[0]["stats"]}


def run(ctx: Context, config: PipelineConfig, log=print) -> StageReport:
    unique = [json.loads(line)["text"] for line in WEB_DOCS.read_text(encoding="utf-8").splitlines() if line.strip()]
    copies = math.ceil((QUICK_DOCS_TARGET if ctx.quick else DOCS_TARGET) / len(unique))
    texts = unique * copies
    docs, mb = len(texts), sum(len(t.encode("utf-8")) for t in texts) / MB
    report = StageReport(
        "pii",
        f"{len(unique):,} web documents repeated {copies}x = {docs:,} documents, {mb:.1f} MB of text; "
        f"types: {', '.join(config.pii.types)}",
        log=log,
    )
    detector = PiiDetector(config.pii)
    found = Counter(span.kind for text in unique for span in detector.find(text))
    report.info.update(unique_docs=len(unique), copies=copies, docs=docs, text_mb=mb, matches_in_unique_docs=found)
    report.info["pii_config"] = config.pii.model_dump()

    log("pii (a): the detector alone, find + redact")
    report.add(
        Column(
            "a",
            "detector: find + redact, all types",
            [detector_seconds(detector, texts) for _ in range(ctx.reps)],
            docs,
            mb,
        )
    )

    input_dir = document_input(texts, ctx.work)
    log("pii (b): the stage in one process (LocalExecutor)")
    seconds = [
        stage_seconds(input_dir, ctx.work / f"pii-local-{r}", config, LocalExecutor(), docs) for r in range(ctx.reps)
    ]
    report.add(Column("b", "stage, one process: Parquet in, detect+redact, Parquet out", seconds, docs, mb))

    if ctx.peer_error is None:
        log("pii (d): datatrove PIIFormatter in the peer venv")
        try:
            peer_columns(ctx, texts, mb, report)
        except PeerEnvError as error:
            report.notes.append(f"datatrove columns missing: {error}")
    else:
        report.notes.append(f"datatrove columns missing: {ctx.peer_error}")

    log("pii (c): the stage on Spark local[2]")
    spark = ctx.spark()
    try:
        seconds = [
            stage_seconds(input_dir, ctx.work / f"pii-spark-{r}", config, SparkExecutor(spark), docs)
            for r in range(ctx.reps)
        ]
    finally:
        spark.stop()
    report.add(
        Column(
            "c",
            "stage, Spark local[2], SparkExecutor",
            seconds,
            docs,
            mb,
            f"session start {ctx.spark_start_s[-1]:.1f} s not included",
        )
    )

    if GOLD.exists():
        figures = score_pii(load_gold(GOLD), detector.find)
        report.info["presidio_synth_dev"] = {
            k: {"precision": s.precision, "recall": s.recall} for k, s in figures.per_type.items()
        }
    _conclude(report)
    return report


def _conclude(report: StageReport) -> None:
    a, b, c, dblk = (report.column(k) for k in ("a", "b", "c", "d-blk"))
    if dblk is not None:
        report.targets.append(
            Target(
                "detector, all types (a) vs datatrove PIIFormatter block (d-blk), docs/s",
                a.docs_per_s / dblk.docs_per_s,
                PEER_SPEED_TARGET,
                why="ours: emails (plain, obfuscated), phones, IPv4/6, cards, IBAN, SSN, CN IDs, secrets; "
                "theirs: emails and IPv4",
            )
        )
        d, p = report.column("d"), report.column("p")
        report.ratios += [
            (
                "stage (b) vs datatrove wall (d)",
                b.docs_per_s / d.docs_per_s,
                "Parquet in/out vs JsonlReader, no writer",
            ),
            ("detector (a) vs PIIFormatter.format alone (p)", a.docs_per_s / p.docs_per_s, "the per-text code alone"),
        ]
    report.targets.append(
        Target("Spark local[2] (c) speed-up over one process (b)", b.best / c.best, SPARK_SPEEDUP_TARGET)
    )
    report.ratios.append(
        ("stage (b) vs detector alone (a)", b.docs_per_s / a.docs_per_s, "what the engine's I/O costs")
    )
