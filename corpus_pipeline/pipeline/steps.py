"""The steps of a run, in order. Each takes the RunContext, runs one stage function (the same one
its CLI verb, make target and spark-submit job call) and says what happened; the stage's own
contract (fingerprint, `_SUCCESS` last, per-task resume) decides whether it runs, resumes or is
reused, so a rerun after a crash continues from the first unfinished stage.

Adding a step is one entry in STEPS: `Step("report", run_report_step)`, or with
`needs_passing_gates=True` for a step that consumes the corpus.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.stages import run_extract, run_langid, run_normalize
from corpus_pipeline.inputs import expand_crawl_inputs
from corpus_pipeline.pii.runner import run_pii
from corpus_pipeline.pipeline.context import RunContext, Step, StepOutcome
from corpus_pipeline.pipeline.input_files import present_files, read_faults
from corpus_pipeline.quality.runner import run_quality

GATES_FILE = "gates.json"
TOKENIZER_FILE = Path("tokenizer") / "tokenizer.json"
TOKENS_DIR = "tokens"


def crawl(ctx: RunContext) -> StepOutcome:
    plan = ctx.plan
    if plan.inputs:
        ctx.crawl_inputs = list(plan.inputs)
        return StepOutcome("not needed", notes={"why": "crawl files given (pipeline.inputs)"})
    if plan.seeds is None:
        raise ValueError("nothing to run on: set pipeline.inputs (WARC/WET files) or pipeline.seeds (URLs to crawl)")
    from corpus_pipeline.crawl.runner import WARC_DIR, run_crawl

    result = run_crawl(plan.seeds, Path(ctx.config.data_root) / "crawl" / ctx.config.run_id, ctx.config, plan.runner)
    ctx.crawl_inputs = [str(result.output / WARC_DIR)]
    # Crawl counts fetches, not documents: extract turns every WARC record into a row.
    return StepOutcome.of_stage(result, in_document_flow=False)


def extract(ctx: RunContext) -> StepOutcome:
    files, vanished = present_files(expand_crawl_inputs(ctx.crawl_inputs))
    result = run_extract(files, ctx.run_dir / "01_extract", ctx.config, ctx.executor)
    ctx.documents = result.output
    return StepOutcome.of_stage(
        result, input_files=len(files), vanished_before_extract=vanished, read_faults=read_faults(result.output)
    )


def document_stage(directory: str, run_stage: Callable[..., StageResult]) -> Callable[[RunContext], StepOutcome]:
    """A step that runs a per-document stage on the previous stage's output into `directory`."""

    def run(ctx: RunContext) -> StepOutcome:
        result = run_stage(ctx.documents, ctx.run_dir / directory, ctx.config, ctx.executor)
        ctx.documents = result.output
        return StepOutcome.of_stage(result)

    return run


def dedup(ctx: RunContext) -> StepOutcome:
    from corpus_pipeline.dedup.spark_job import run_dedup

    result = run_dedup(ctx.documents, ctx.run_dir / "04_dedup", ctx.config, ctx.spark, ctx.plan.index_dir)
    ctx.documents = result.output
    index = str(ctx.plan.index_dir) if ctx.plan.index_dir else None
    return StepOutcome.of_stage(result, against_index=index)


def gates(ctx: RunContext) -> StepOutcome:
    """Corpus-level gates over the final corpus; recomputed every time (they read four columns)."""
    from corpus_pipeline.quality.gates import evaluate_gates

    report = evaluate_gates(ctx.documents, ctx.config.quality.gates)
    path = ctx.run_dir / GATES_FILE
    tmp = path.with_name(f".{path.name}.inprogress")
    tmp.write_text(json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    ctx.gates_passed = report.passed
    failed = [
        f"{g.language} {g.name} = {'not measured' if g.value is None else f'{g.value:.4g}'}, bound {g.bound}"
        for g in report.gates
        if not g.passed
    ]
    if not report.documents:
        failed.insert(0, "the corpus has no documents")
    return StepOutcome("ran", path, notes={"passed": report.passed, "documents": report.documents, "failed": failed})


def train_tokenizer(ctx: RunContext) -> StepOutcome:
    if ctx.plan.tokenizer is not None:
        ctx.tokenizer = ctx.plan.tokenizer
        return StepOutcome("not needed", ctx.tokenizer, notes={"why": f"tokenizer given: {ctx.tokenizer}"})
    from corpus_pipeline.tokenize.runner import run_train_tokenizer

    result = run_train_tokenizer(ctx.documents, ctx.run_dir / TOKENIZER_FILE, ctx.config, ctx.executor)
    ctx.tokenizer = result.tokenizer
    status = "reused" if result.skipped else "ran"
    return StepOutcome(status, result.tokenizer, notes={"vocab_size": result.vocab_size, "sha256": result.sha256})


def tokenize(ctx: RunContext) -> StepOutcome:
    from corpus_pipeline.tokenize.runner import run_tokenize

    result = run_tokenize(ctx.documents, ctx.tokenizer, ctx.run_dir / TOKENS_DIR, ctx.config, ctx.executor)
    ctx.tokens = result.output
    return StepOutcome.of_stage(result)


def train_model(ctx: RunContext) -> StepOutcome:
    """A model trained on the run's shards (pipeline.train_config): the proof that the corpus trains.
    Reused when an earlier attempt finished on the same shards; resumed from its checkpoint when it
    was interrupted."""
    settings = ctx.config.pipeline
    if settings.train_config is None:
        return StepOutcome("not needed", notes={"why": "no pipeline.train_config"})
    from corpus_pipeline.train.checkpoint import CHECKPOINT_FILE
    from corpus_pipeline.train.config import load_train_config
    from corpus_pipeline.train.distributed import setup_distributed
    from corpus_pipeline.train.train import finished_run, train

    config = load_train_config(settings.train_config, settings.train_overrides)
    out = ctx.run_dir / f"train_{config.preset}"
    ctx.model = out
    done = finished_run(out, ctx.tokens, config)
    if done is not None:
        return StepOutcome("reused", out, notes={"val_loss": done["val_loss"], "steps": done["step"]})
    result = train(ctx.tokens, out, config, setup_distributed(config.device), resume=(out / CHECKPOINT_FILE).exists())
    return StepOutcome(
        "ran",
        out,
        notes={
            "val_loss": result.val_loss,
            "steps": result.step,
            "tokens": result.tokens_seen,
            "parameters": result.parameters,
        },
    )


def report(ctx: RunContext) -> StepOutcome:
    """The HTML report, also (above all) when a gate failed: it says why."""
    from corpus_pipeline.report import write_report

    result = write_report(ctx.run_dir, ctx.config, ctx.plan.previous_run)
    alerts = [f"{check.name}: {check.detail}" for check in result.figures.alerts]
    return StepOutcome("ran", result.path, notes={"drift_alerts": alerts})


STEPS: tuple[Step, ...] = (
    Step("crawl", crawl),
    Step("extract", extract),
    Step("langid", document_stage("02_langid", run_langid)),
    Step("normalize", document_stage("03_normalize", run_normalize)),
    Step("dedup", dedup),
    Step("pii", document_stage("05_pii", run_pii)),
    Step("quality", document_stage("06_quality", run_quality)),
    Step("gates", gates),
    Step("train-tokenizer", train_tokenizer, needs_passing_gates=True),
    Step("tokenize", tokenize, needs_passing_gates=True),
    Step("train", train_model, needs_passing_gates=True),
    Step("report", report),
)
