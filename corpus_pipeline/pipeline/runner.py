"""`run_pipeline`: the steps of STEPS in order, in one run directory, with a run record."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus_pipeline.pipeline import exit_codes
from corpus_pipeline.pipeline.conservation import check_seam, conservation_summary
from corpus_pipeline.pipeline.context import RunContext, RunPlan, Step, StepOutcome
from corpus_pipeline.pipeline.record import RunRecord
from corpus_pipeline.pipeline.steps import STEPS

SUCCEEDED, GATE_FAILED = "succeeded", "gate_failed"


@dataclass
class PipelineResult:
    status: str  # SUCCEEDED or GATE_FAILED (a failed step raises)
    context: RunContext
    outcomes: dict[str, StepOutcome]
    record: RunRecord

    @property
    def exit_code(self) -> int:
        return exit_codes.SUCCESS if self.status == SUCCEEDED else exit_codes.GATE_FAILED


def _progress(number: int, total: int, step: str, outcome: StepOutcome, seconds: float) -> str:
    line = f"[{number}/{total}] {step}: {outcome.status}"
    if outcome.stats is not None:
        line += f", {outcome.stats.docs_in:,} in, {outcome.stats.kept:,} kept"
    why = outcome.notes.get("why")
    return line + (f" ({why})" if why else f" in {seconds:,.1f} s")


def run_pipeline(
    plan: RunPlan, steps: Sequence[Step] = STEPS, log: Callable[[str], None] = lambda line: print(line, file=sys.stderr)
) -> PipelineResult:
    """Run every step; a step whose stage is done is reused, so a rerun after a crash continues
    from the first unfinished stage. A failed gate stops the steps that consume the corpus."""
    plan.run_dir.mkdir(parents=True, exist_ok=True)
    record = RunRecord.start(plan)
    context = RunContext(plan)
    outcomes: dict[str, StepOutcome] = {}
    flow = []  # stats of the document stages so far
    current = None
    try:
        for number, step in enumerate(steps, 1):
            current = step.name
            started = time.perf_counter()
            if step.needs_passing_gates and context.gates_passed is False:
                outcome = StepOutcome("blocked", notes={"why": "a quality gate failed"})
            else:
                record.step_started(step.name)
                outcome = step.run(context)
            seconds = time.perf_counter() - started
            outcomes[step.name] = outcome
            record.step_done(step.name, outcome, seconds)
            log(_progress(number, len(steps), step.name, outcome, seconds))
            if outcome.in_document_flow:
                if flow:
                    check_seam(flow[-1], outcome.stats)
                flow.append(outcome.stats)
        current = None
        conservation = conservation_summary(flow)
    except BaseException as error:  # KeyboardInterrupt too: the record says where the run stopped
        record.fail(current, error)
        raise
    if context.gates_passed is False:
        failed = outcomes["gates"].notes["failed"]
        record.finish(GATE_FAILED, "quality gate failed: " + "; ".join(failed), conservation=conservation)
        return PipelineResult(GATE_FAILED, context, outcomes, record)
    record.finish(SUCCEEDED, conservation=conservation)
    return PipelineResult(SUCCEEDED, context, outcomes, record)
