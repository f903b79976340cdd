"""The steps of a run, in the registry's order (engine/registry.py), with the gates before the first
stage that consumes the corpus, then training and the report. Each stage step calls the same
`run_stage`/`run_fused` as its CLI verb, make target and spark-submit job, and the stage's own
lifecycle (fingerprint, `_SUCCESS` last, per-task resume) decides whether it runs, resumes or is
reused, so a rerun after a crash continues from the first unfinished stage.

A source or document stage runs fused with the document stages after it (one pass over each task);
their steps then report the results that pass produced. A new document stage is a registry entry:
its step comes from `document_step`. A global stage whose inputs are not just the previous
documents has a step function here (crawl, dedup, train-tokenizer, tokenize, mix).
"""

from __future__ import annotations

from collections.abc import Callable

from corpus_pipeline.engine import registry
from corpus_pipeline.engine.registry import StageSpec, resolve, stage_spec
from corpus_pipeline.engine.run import run_fused, run_stage
from corpus_pipeline.engine.stage_dir import Location, child, location, stage_files
from corpus_pipeline.engine.stage_order import fused_run, opted_out
from corpus_pipeline.inputs import expand_crawl_inputs
from corpus_pipeline.pipeline.context import RunContext, Step, StepOutcome
from corpus_pipeline.pipeline.input_files import present_files, read_faults
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.json_files import write_json

GATES_FILE = "gates.json"


def _stage_dir(ctx: RunContext, name: str) -> Location:
    return child(ctx.run_dir, stage_spec(name).directory)


def _run_fused_from(ctx: RunContext, name: str, source) -> StepOutcome:
    """Run `name` and the document stages fused after it (less those the source skips); report
    `name`, keep the others' results."""
    chain = [spec.name for spec in fused_run(name) if spec.name not in ctx.plan.skip]
    results = run_fused(chain, source, [_stage_dir(ctx, n) for n in chain], ctx.config, ctx.executor)
    ctx.fused.update(zip(chain[1:], results[1:], strict=True))
    ctx.documents = results[0].output
    return StepOutcome.of_stage(results[0])


def crawl(ctx: RunContext) -> StepOutcome:
    plan = ctx.plan
    if plan.inputs:
        ctx.crawl_inputs = list(plan.inputs)
        return StepOutcome("not needed", notes={"why": "crawl files given (pipeline.inputs)"})
    if plan.datasets:
        return StepOutcome("not needed", notes={"why": "a dataset source: ingest reads it"})
    if plan.seeds is None:
        raise ValueError("nothing to run on: set pipeline.inputs (WARC/WET files) or pipeline.seeds (URLs to crawl)")
    from corpus_pipeline.crawl.runner import WARC_DIR

    output = location(stage_spec("crawl").directory.format(data_root=ctx.config.data_root, run_id=ctx.config.run_id))
    result = run_stage("crawl", plan.seeds, output, ctx.config, ctx.executor)
    # The WARC files its _SUCCESS names (on a store, a listing could show a running attempt's too).
    files = stage_files(result.output, Storage(ctx.config.storage))
    ctx.crawl_inputs = [str(where) for name, where in files.items() if name.startswith(f"{WARC_DIR}/")]
    # Crawl counts fetches, not documents: extract turns every WARC record into a row.
    return StepOutcome.of_stage(result, in_document_flow=False)


def extract(ctx: RunContext) -> StepOutcome:
    if ctx.plan.datasets:
        return StepOutcome("not needed", notes={"why": "a dataset source: ingest reads it"})
    storage = Storage(ctx.config.storage)
    files, vanished = present_files(expand_crawl_inputs(ctx.crawl_inputs, storage), storage)
    outcome = _run_fused_from(ctx, "extract", files)
    faults = read_faults(outcome.output, storage)
    # Bytes of the inputs no record was read from (corrupt gzip members skipped, cut or unreadable tails).
    skipped = outcome.stats.extra.get("read_fault_skipped_bytes", {}) if outcome.stats is not None else {}
    faults["skipped_bytes"] = sum(skipped.values())
    outcome.notes.update(input_files=len(files), vanished_before_extract=vanished, read_faults=faults)
    return outcome


def ingest(ctx: RunContext) -> StepOutcome:
    if not ctx.plan.datasets:
        return StepOutcome("not needed", notes={"why": "no dataset to ingest (a crawl or WARC source)"})
    return _run_fused_from(ctx, "ingest", list(ctx.plan.datasets))


def document_step(name: str) -> Callable[[RunContext], StepOutcome]:
    """A document stage on the previous stage's documents, or the result of the pass it was fused
    into; with what its registry entry's `notes` add to the run record."""

    def run(ctx: RunContext) -> StepOutcome:
        if name in opted_out(ctx.plan.config):
            why = f"opt-in: {stage_spec(name).section}.enabled is false"
            return StepOutcome("not needed", notes={"why": why})
        if name in ctx.plan.skip:
            return StepOutcome("not needed", notes={"why": "the source skips it (pipeline.sources skip)"})
        if name in ctx.fused:
            result = ctx.fused.pop(name)
            ctx.documents = result.output
            outcome = StepOutcome.of_stage(result)
        else:
            outcome = _run_fused_from(ctx, name, ctx.documents)
        notes = stage_spec(name).notes
        if notes is not None and outcome.stats is not None:
            outcome.notes.update(resolve(notes)(outcome, ctx.config))
        return outcome

    return run


def dedup(ctx: RunContext) -> StepOutcome:
    """Every source's documents deduplicated as one corpus (dedup.source_priority picks the copy)."""
    result = run_stage(
        "dedup", ctx.source_documents, _stage_dir(ctx, "dedup"), ctx.config, ctx.executor, index=ctx.plan.index_dir
    )
    ctx.documents = result.output
    index = str(ctx.plan.index_dir) if ctx.plan.index_dir else None
    return StepOutcome.of_stage(result, against_index=index)


def gates(ctx: RunContext) -> StepOutcome:
    """Every stage's gates over the final corpus (pipeline/gates.py); recomputed every time (they
    read four columns and the decontaminate stage's stats)."""
    from corpus_pipeline.pipeline.gates import evaluate_gates

    report = evaluate_gates(ctx.run_dir, ctx.config, Storage(ctx.config.storage), corpus=ctx.documents)
    path = child(ctx.run_dir, GATES_FILE)
    write_json(path, report.to_dict(), Storage(ctx.config.storage))
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
    from corpus_pipeline.tokenize.train_stage import read_training_record

    result = run_stage("train-tokenizer", ctx.documents, _stage_dir(ctx, "train-tokenizer"), ctx.config, ctx.executor)
    ctx.tokenizer = result.output
    record = read_training_record(result.output, Storage(ctx.config.storage))
    status = "reused" if result.skipped else "ran"
    return StepOutcome(status, result.output, notes={"vocab_size": record["vocab_size"], "sha256": record["sha256"]})


def tokenize(ctx: RunContext) -> StepOutcome:
    if ctx.config.mix.builds_the_shards:
        return StepOutcome("not needed", notes={"why": "mix writes the shards (mix.targets)"})
    tokens = _stage_dir(ctx, "tokenize")
    result = run_stage("tokenize", ctx.documents, tokens, ctx.config, ctx.executor, tokenizer=ctx.tokenizer)
    ctx.tokens = result.output
    return StepOutcome.of_stage(result)


def mix(ctx: RunContext) -> StepOutcome:
    """Shards at target shares (mix.targets or mix.phases), which the model then trains on: of the
    run's documents, and in the nightly of every published increment's too (the whole corpus)."""
    if not ctx.config.mix.builds_the_shards:
        return StepOutcome("not needed", notes={"why": "no mix.targets: tokenize's shards are the corpus"})
    published = list(ctx.plan.published_documents)
    result = run_stage(
        "mix",
        [*published, ctx.documents],
        _stage_dir(ctx, "mix"),
        ctx.config,
        ctx.executor,
        tokenizer=ctx.tokenizer,
        encoded_cache=ctx.plan.mix_encoded_cache,
    )
    ctx.tokens = result.output
    if not published:
        return StepOutcome.of_stage(result)
    # It reads more than the run's last stage kept: its counts are the whole corpus's, not a seam.
    encoding = result.stats.extra.get("encoding", {})
    return StepOutcome.of_stage(
        result, in_document_flow=False, published_inputs=len(published), encoding=dict(sorted(encoding.items()))
    )


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


_STAGE_STEPS: dict[str, Callable[[RunContext], StepOutcome]] = {
    "crawl": crawl,
    "extract": extract,
    "ingest": ingest,
    "dedup": dedup,
    "train-tokenizer": train_tokenizer,
    "tokenize": tokenize,
    "mix": mix,
}


def per_source_stages() -> tuple[str, ...]:
    """The stages each source runs on its own (pipeline.sources), up to the one dedup of all of them."""
    stages = registry.STAGES
    return tuple(spec.name for spec in stages[: stages.index(stage_spec("dedup"))])


def _stage_step(spec: StageSpec) -> Step:
    run = _STAGE_STEPS.get(spec.name) or document_step(spec.name)
    return Step(spec.name, run, needs_passing_gates=spec.consumes_corpus, per_source=spec.name in per_source_stages())


def pipeline_steps() -> tuple[Step, ...]:
    """Every registry stage in order (as registered when called), the gates before the first that
    consumes the corpus, then the model and the report."""
    steps: list[Step] = []
    for spec in registry.STAGES:
        if spec.consumes_corpus and all(step.name != "gates" for step in steps):
            steps.append(Step("gates", gates))
        steps.append(_stage_step(spec))
    steps.append(Step("train", train_model, needs_passing_gates=True))
    steps.append(Step("report", report))
    return tuple(steps)


STEPS: tuple[Step, ...] = pipeline_steps()
