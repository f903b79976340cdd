"""`run_pipeline`: the steps of STEPS in order, in one run directory, with a run record."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus_pipeline import exit_codes
from corpus_pipeline.engine.registry import STAGES
from corpus_pipeline.engine.store.output_guard import check_output_apart, refuse_foreign
from corpus_pipeline.engine.store.stage_dir import child, location
from corpus_pipeline.failures import StepFailed
from corpus_pipeline.pipeline.conservation import check_seam, conservation_summary, sources_kept
from corpus_pipeline.pipeline.context import RunContext, RunPlan, Step, StepOutcome
from corpus_pipeline.pipeline.on_store import check_runs_on_store
from corpus_pipeline.pipeline.preflight import check_run_config
from corpus_pipeline.pipeline.record import RunRecord
from corpus_pipeline.pipeline.steps import STEPS
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

SUCCEEDED, GATE_FAILED = "succeeded", "gate_failed"


@dataclass
class PipelineResult:
    status: str  # SUCCEEDED or GATE_FAILED (a failed step raises StepFailed)
    context: RunContext
    outcomes: dict[str, StepOutcome]
    record: RunRecord

    @property
    def exit_code(self) -> int:
        return exit_codes.SUCCESS if self.status == SUCCEEDED else exit_codes.GATE_FAILED


def _progress(number: int, total: int, step: str, outcome: StepOutcome, seconds: float) -> str:
    """One step's line. A stage that ran shows its own seconds, as the summary table does: in a
    fused pass the first stage's step spends the whole pass's time and the others none of their own."""
    line = f"[{number}/{total}] {step}: {outcome.status}"
    if outcome.stats is not None:
        line += f", {outcome.stats.docs_in:,} in, {outcome.stats.kept:,} kept"
        if outcome.status == "ran":
            seconds = outcome.stats.seconds
    why = outcome.notes.get("why")
    return line + (f" ({why})" if why else f" in {seconds:,.1f} s")


def _step_runs(steps: Sequence[Step], context: RunContext) -> list[tuple[Step, str | None, RunContext]]:
    """(step, source name or None, the context it runs in): with pipeline.sources, each source's
    steps up to dedup in a row, then the run's steps."""
    if not context.sources:
        return [(step, None, context) for step in steps]
    sources = zip(context.plan.sources, context.sources, strict=True)
    runs = [(step, source.name, ctx) for source, ctx in sources for step in steps if step.per_source]
    return runs + [(step, None, context) for step in steps if not step.per_source]


def refuse_unsafe_outputs(context: RunContext) -> None:
    """Before the first step: the run directory holds no input and lies in none, and every stage
    directory the run may write (the run's and each source's) is missing, empty or ours, so a
    refusal comes before anything is written."""
    storage = Storage(context.config.storage)
    config = context.config
    inputs = [*config.pipeline.inputs, *(path for source in config.pipeline.sources for path in source.paths)]
    check_output_apart(context.run_dir, [path for path in inputs if not any(c in path for c in "*?[")])
    for plan in [context.plan, *(source.plan for source in context.sources)]:
        for spec in STAGES:
            if "{" in spec.directory:
                where = location(spec.directory.format(data_root=config.data_root, run_id=config.run_id))
            else:
                where = child(plan.run_dir, spec.directory)
            refuse_foreign(where, storage, what=f"the {spec.name} stage directory")


def run_pipeline(
    plan: RunPlan, steps: Sequence[Step] = STEPS, log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
) -> PipelineResult:
    """Run every step; a step whose stage is done is reused, so a rerun after a crash continues
    from the first unfinished stage. A failed gate stops the steps that consume the corpus."""
    context = RunContext(plan)  # first: a source's config that does not validate stops the run here
    check_runs_on_store(plan)  # and a step that cannot write to the store stops it before any other
    check_run_config(plan)  # then every input, the tokenizer, eval sets and mix targets (exit 2)
    refuse_unsafe_outputs(context)  # and every stage directory it will write is ours or new
    record = RunRecord.start(plan)
    outcomes: dict[str, StepOutcome] = {}
    # Stats of the document stages so far: each source's up to dedup (by name), then the run's (None).
    flows: dict[str | None, list[StageStats]] = {None: []}
    runs = _step_runs(steps, context)
    current = None
    try:
        for number, (step, source, ctx) in enumerate(runs, 1):
            label = step.name if source is None else f"{source}/{step.name}"
            current = label
            started = time.perf_counter()
            if step.needs_passing_gates and context.gates_passed is False:
                outcome = StepOutcome("blocked", notes={"why": "a quality gate failed"})
            else:
                record.step_started(label)
                outcome = step.run(ctx)
            seconds = time.perf_counter() - started
            outcomes[label] = outcome
            record.step_done(step.name, outcome, seconds, source=source)
            log(_progress(number, len(runs), label, outcome, seconds))
            if outcome.in_document_flow:
                flow = flows.setdefault(source, [])
                if flow:
                    check_seam(flow[-1], outcome.stats)
                elif source is None and len(flows) > 1:  # dedup reads what every source kept
                    check_seam(sources_kept(flows), outcome.stats)
                flow.append(outcome.stats)
        current = None
        conservation = conservation_summary(flows)
    except BaseException as error:  # KeyboardInterrupt too: the record says where the run stopped
        record.fail(current, error)
        if current is None or not isinstance(error, Exception):
            raise
        # Work was done: whatever the cause (a store lost mid-run), this is a failed step, exit 1.
        raise StepFailed(current, error) from error
    if context.gates_passed is False:
        failed = outcomes["gates"].notes["failed"]
        record.finish(GATE_FAILED, "quality gate failed: " + "; ".join(failed), conservation=conservation)
        return PipelineResult(GATE_FAILED, context, outcomes, record)
    record.finish(SUCCEEDED, conservation=conservation)
    return PipelineResult(SUCCEEDED, context, outcomes, record)
