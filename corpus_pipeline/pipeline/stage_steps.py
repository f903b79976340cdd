"""The pipeline steps of the stages whose inputs are not just the previous stage's documents: each
named by its registry entry (`StageSpec.step`). crawl reads seeds, extract and ingest the run's
files or datasets, dedup every source's documents, train-tokenizer and tokenize the final corpus
(or a tokenizer given), mix the published increments too."""

from __future__ import annotations

from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.engine.store.stage_dir import location, stage_files
from corpus_pipeline.inputs import expand_crawl_inputs, name_skipped_crawl_files
from corpus_pipeline.pipeline.context import RunContext, StepOutcome
from corpus_pipeline.pipeline.document_steps import run_fused_from, stage_dir_of
from corpus_pipeline.pipeline.input_files import present_files, read_faults
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage


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
    name_skipped_crawl_files(ctx.crawl_inputs, storage)  # the stage is given the files, not the folders
    files, vanished = present_files(expand_crawl_inputs(ctx.crawl_inputs, storage), storage)
    outcome = run_fused_from(ctx, "extract", files)
    faults = read_faults(outcome.output, storage)
    # Bytes of the inputs no record was read from (corrupt gzip members skipped, cut or unreadable tails).
    skipped = outcome.stats.extra.get("read_fault_skipped_bytes", {}) if outcome.stats is not None else {}
    faults["skipped_bytes"] = sum(skipped.values())
    outcome.notes.update(input_files=len(files), vanished_before_extract=vanished, read_faults=faults)
    return outcome


def ingest(ctx: RunContext) -> StepOutcome:
    if not ctx.plan.datasets:
        return StepOutcome("not needed", notes={"why": "no dataset to ingest (a crawl or WARC source)"})
    return run_fused_from(ctx, "ingest", list(ctx.plan.datasets))


def dedup(ctx: RunContext) -> StepOutcome:
    """Every source's documents deduplicated as one corpus (dedup.source_priority picks the copy)."""
    result = run_stage(
        "dedup", ctx.source_documents, stage_dir_of(ctx, "dedup"), ctx.config, ctx.executor, index=ctx.plan.index_dir
    )
    ctx.documents = result.output
    index = str(ctx.plan.index_dir) if ctx.plan.index_dir else None
    return StepOutcome.of_stage(result, against_index=index)


def train_tokenizer(ctx: RunContext) -> StepOutcome:
    if ctx.plan.tokenizer is not None:
        ctx.tokenizer = ctx.plan.tokenizer
        return StepOutcome("not needed", ctx.tokenizer, notes={"why": f"tokenizer given: {ctx.tokenizer}"})
    from corpus_pipeline.tokenize.train_stage import read_training_record

    result = run_stage("train-tokenizer", ctx.documents, stage_dir_of(ctx, "train-tokenizer"), ctx.config, ctx.executor)
    ctx.tokenizer = result.output
    record = read_training_record(result.output, Storage(ctx.config.storage))
    status = "reused" if result.skipped else "ran"
    return StepOutcome(status, result.output, notes={"vocab_size": record["vocab_size"], "sha256": record["sha256"]})


def tokenize(ctx: RunContext) -> StepOutcome:
    if ctx.config.mix.builds_the_shards:
        return StepOutcome("not needed", notes={"why": "mix writes the shards (mix.targets)"})
    tokens = stage_dir_of(ctx, "tokenize")
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
        stage_dir_of(ctx, "mix"),
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
