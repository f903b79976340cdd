"""What every source and document stage's pipeline step shares: where a stage of the run writes,
and running a stage fused with the document stages after it (one pass over each task), whose steps
then report what that pass produced. A document stage's step is `document_step`: a new document
stage needs no step of its own."""

from __future__ import annotations

from collections.abc import Callable

from corpus_pipeline.engine.registry import resolve, stage_spec
from corpus_pipeline.engine.stage_order import fused_run, opted_out
from corpus_pipeline.engine.store.stage_dir import Location, child
from corpus_pipeline.pipeline.context import RunContext, StepOutcome
from corpus_pipeline.stage_runner import run_fused


def stage_dir_of(ctx: RunContext, name: str) -> Location:
    return child(ctx.run_dir, stage_spec(name).directory)


def run_fused_from(ctx: RunContext, name: str, source) -> StepOutcome:
    """Run `name` and the document stages fused after it (less those the source skips); report
    `name`, keep the others' results."""
    chain = [spec.name for spec in fused_run(name) if spec.name not in ctx.plan.skip]
    results = run_fused(chain, source, [stage_dir_of(ctx, n) for n in chain], ctx.config, ctx.executor)
    ctx.fused.update(zip(chain[1:], results[1:], strict=True))
    ctx.documents = results[0].output
    return StepOutcome.of_stage(results[0])


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
            outcome = run_fused_from(ctx, name, ctx.documents)
        notes = stage_spec(name).notes
        if notes is not None and outcome.stats is not None:
            outcome.notes.update(resolve(notes)(outcome, ctx.config))
        return outcome

    return run
