"""quality on the documents extracted from the real pages: our one-pass signals against datatrove's
four quality blocks, one process and Spark local[2].

Input: shared/data/dedup/web_docs.jsonl (the 1,432 documents extracted from web/pages.warc.gz,
~5.3 KB each), labelled with lid.176 once, repeated COPIES times for the stage columns so that
Spark has work to spread.

(a) Gopher quality + repetition, C4 and FineWeb signals alone, one process: split once and the
    four signal families (`words.segment`, gopher, c4, fineweb), language "en" for every document
    as datatrove's defaults assume: the like-for-like column for (p).
(b) every signal of the stage (a, plus vocabulary coverage, entropy, content hash, blocklists),
    with each document's own language.
(e) (b) in CPU seconds of this process (documents per CPU second: what a loaded machine changes
    least; issue 36 compares the stage before and after its spam signals with it).
(c) the stage end to end in one process (LocalExecutor): Parquet in, signals, rules, Parquet out.
(d) the same on Spark local[2] (SparkExecutor).
(p) datatrove 0.10.1 GopherQualityFilter, GopherRepetitionFilter, C4QualityFilter and
    FineWebQualityFilter, defaults, each `filter()` on every document (peer venv); their sum is the
    four blocks chained over every document.

    python benchmarks/run_all.py quality [--quick] [--reps N] [--no-peer]
"""

from __future__ import annotations

import json
import math
import subprocess
import time
from functools import partial
from pathlib import Path

from common import DATA, MB, Column, Context, StageReport, Target, seconds_of_fresh_run
from peer_env import PeerEnvError, ensure_peer_env, peer_environment, peer_python
from stage_runs import StageBench

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.langid.stage import LangIdStage
from corpus_pipeline.quality import c4, fineweb, gopher
from corpus_pipeline.quality.stage import QualityStage
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.word_units import STOP_WORDS, segment, stop_word_set

WEB_DOCS = DATA / "dedup" / "web_docs.jsonl"
STAGE = StageBench("quality", (WEB_DOCS,))
PEER_SCRIPT = Path(__file__).resolve().parent / "peer_datatrove_quality.py"
# datatrove's English word tokenizer is spaCy's; benchmarks/peer_env.py does not install it.
PEER_SPACY = "spacy==3.8.18"
COPIES, QUICK_DOCS = 4, 200
INPUT_PARTS = 8
PEER_SPEEDUP_TARGET = 3.0


def load_docs(limit: int | None, config: PipelineConfig) -> list[dict]:
    with open(WEB_DOCS, encoding="utf-8") as lines:
        sources = [json.loads(line) for line in lines][:limit]
    langid = LangIdStage(config.langid)
    langid.setup()
    docs = []
    for source in sources:
        top = langid.predict(source["text"] or "")
        language = top[0][0] if top else None
        docs.append(
            empty_document(id=source["id"], url=source.get("url"), text=source["text"] or "", language=language)
        )
    return docs


def write_input(docs: list[dict], copies: int, work: Path) -> Path:
    """A finished stage directory holding `docs` `copies` times (ids made unique per copy)."""
    rows = [{**doc, "id": f"{doc['id']}#{copy}"} for copy in range(copies) for doc in docs]
    per_part = math.ceil(len(rows) / INPUT_PARTS)
    parts = [rows[task_id * per_part : (task_id + 1) * per_part] for task_id in range(INPUT_PARTS)]
    return publish_rows(work / "quality-input", parts, schema=DOCUMENT_SCHEMA, stage="bench-quality-input")


def time_families(texts: list[str]) -> float:
    stop_words = stop_word_set(STOP_WORDS["en"])
    started = time.perf_counter()
    for text in texts:
        seg = segment(text)
        gopher.quality_signals(seg, stop_words)
        gopher.repetition_signals(seg)
        c4.signals(seg)
        fineweb.signals(seg, 30)
    return time.perf_counter() - started


def time_all_signals(docs: list[dict], config: PipelineConfig, clock=time.perf_counter) -> float:
    stage = QualityStage(config.quality)
    stage.setup()
    stage.signals(docs[0]["text"], docs[0]["language"])  # vocabularies load outside the timing
    started = clock()
    for doc in docs:
        stage.signals(doc["text"], doc["language"], doc["url"])
    return clock() - started


def time_stage(input_dir: Path, output: Path, config: PipelineConfig, executor, docs: int) -> float:
    return seconds_of_fresh_run(partial(run_stage, "quality"), input_dir, output, config, executor, docs)


def peer_blocks(texts: list[str], work: Path, reps: int, log) -> list[dict]:
    python = ensure_peer_env(log)
    if subprocess.run([str(python), "-c", "import spacy"], capture_output=True).returncode != 0:
        log(f"  peer venv: pip install {PEER_SPACY}")
        done = subprocess.run([str(python), "-m", "pip", "install", "-q", PEER_SPACY], capture_output=True, text=True)
        if done.returncode != 0:
            raise PeerEnvError(f"pip install {PEER_SPACY} failed: {done.stderr.strip()[-500:]}")
    jsonl = work / "quality-peer.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t}, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
    runs = []
    for _ in range(reps):
        done = subprocess.run(
            [str(peer_python()), str(PEER_SCRIPT), "--input", str(jsonl)],
            capture_output=True,
            text=True,
            env=peer_environment(),
        )
        if done.returncode != 0:
            raise PeerEnvError(f"peer_datatrove_quality.py failed: {done.stderr.strip()[-800:]}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def run(ctx: Context, config: PipelineConfig, log=print) -> StageReport:
    docs = load_docs(QUICK_DOCS if ctx.quick else None, config)
    texts = [doc["text"] for doc in docs]
    mb = sum(len(t.encode("utf-8")) for t in texts) / MB
    copies = 1 if ctx.quick else COPIES
    report = StageReport(
        "quality",
        f"{len(docs):,} documents extracted from the real pages ({mb:.1f} MB of text); "
        f"the stage columns on {copies}x = {len(docs) * copies:,}",
        log=log,
    )
    report.add(
        Column(
            "a",
            "Gopher+C4+FineWeb signals, one pass, one process",
            [time_families(texts) for _ in range(ctx.reps)],
            len(docs),
            mb,
            'language "en" for every document, as datatrove',
        ),
        Column(
            "b",
            "every signal of the stage, one process",
            [time_all_signals(docs, config) for _ in range(ctx.reps)],
            len(docs),
            mb,
            "with coverage, entropy, hash, blocklists; each document's own language",
        ),
        Column(
            "e",
            "every signal of the stage, per CPU second",
            [time_all_signals(docs, config, time.process_time) for _ in range(ctx.reps)],
            len(docs),
            mb,
            "(b) timed with process_time: docs/s here is documents per CPU second",
        ),
    )
    input_dir = write_input(docs, copies, ctx.work)
    total = len(docs) * copies
    seconds = [
        time_stage(input_dir, ctx.work / f"q-local-{r}", config, LocalExecutor(), total) for r in range(ctx.reps)
    ]
    report.add(Column("c", "stage end to end, one process (LocalExecutor)", seconds, total, mb * copies))
    if ctx.peer_error is None:
        try:
            runs = peer_blocks(texts, ctx.work, ctx.reps, log)
            for index, name in enumerate(runs[0]["blocks"], start=1):
                report.add(
                    Column(
                        f"p{index}",
                        f"datatrove {name}",
                        [r["blocks"][name]["seconds"] for r in runs],
                        len(docs),
                        mb,
                        f"kept {runs[0]['blocks'][name]['kept']}",
                    )
                )
            sums = [sum(b["seconds"] for b in r["blocks"].values()) for r in runs]
            report.add(Column("p", "datatrove's four blocks on every document (sum)", sums, len(docs), mb))
            report.info["datatrove"] = runs[0]["versions"]
        except PeerEnvError as error:
            report.notes.append(f"datatrove columns missing: {error}")
    else:
        report.notes.append(f"datatrove columns missing: {ctx.peer_error}")
    spark = ctx.spark()
    try:
        from corpus_pipeline.engine.exec.spark import SparkExecutor

        seconds = [
            time_stage(input_dir, ctx.work / f"q-spark-{r}", config, SparkExecutor(spark), total)
            for r in range(ctx.reps)
        ]
    finally:
        spark.stop()
    report.add(
        Column(
            "d",
            "stage, Spark local[2], SparkExecutor",
            seconds,
            total,
            mb * copies,
            f"session start {ctx.spark_start_s[-1]:.1f} s not included",
        )
    )
    _conclude(report)
    return report


def _conclude(report: StageReport) -> None:
    a, b, c, d, p = (report.column(k) for k in ("a", "b", "c", "d", "p"))
    if p is not None:
        report.targets.append(
            Target(
                "Gopher+C4+FineWeb signals (a) vs datatrove's four blocks (p), docs/s",
                a.docs_per_s / p.docs_per_s,
                PEER_SPEEDUP_TARGET,
                why="same documents; ours: one split shared by all families; theirs: four tokenizations",
            )
        )
        report.ratios.append(
            (
                "whole stage (c) vs datatrove's four blocks (p)",
                c.docs_per_s / p.docs_per_s,
                "ours: Parquet in and out, every signal and the rules included",
            )
        )
    report.ratios += [
        ("every signal (b) vs the three families (a)", b.docs_per_s / a.docs_per_s, "the cost of the corpus measures"),
        ("Spark local[2] (d) vs one process (c)", d.docs_per_s / c.docs_per_s, "two cores"),
    ]
