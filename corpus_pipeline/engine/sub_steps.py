"""A whole-corpus stage of many Spark jobs, cut into materialized steps (NeMo Curator's
`CompositeStage.decompose()` is the model): each step is a GlobalStage of its own, run through the
one lifecycle (`run_global`) into the parent's work area (`work.step_output(name)`). So

- a step's output is a stage directory on the store the parent writes to (`s3://` included), where
  every executor reads it, and the next step reads it through `input_parts`;
- a resumed run reuses each finished step (same fingerprint: its name, config and inputs) and the
  committed tasks of an unfinished one, instead of deciding a billion documents again because the
  last write task died;
- each step's Spark jobs carry its label in the Spark UI (`dedup › decide`), and its line says how
  many jobs it ran and how long it took;
- the parent removes its steps' outputs when it completes (lifecycle.run_global): they are never
  part of its directory, so a stage's bytes do not depend on whether it ran in steps.

    decided = run_steps("dedup", [SubStep("decide", DecideStep(...))], input_dir, work, executor)
    ...  # the parent's own run writes its output from input_parts(decided["decide"].output, ...)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from corpus_pipeline.engine.lifecycle import Executor, GlobalStage, run_global
from corpus_pipeline.engine.store.store_protocol import StageWork
from corpus_pipeline.storage.locations import Location

_GROUP, _DESCRIPTION = "spark.jobGroup.id", "spark.job.description"


@dataclass(frozen=True)
class SubStep:
    name: str  # its directory in the parent's work area, and its label
    stage: GlobalStage


@dataclass
class StepReport:
    label: str
    seconds: float = 0.0
    spark_jobs: int = 0
    reused: bool = False  # True: a resumed run found it finished
    output: Location | None = None  # a SubStep's published stage directory, in the parent's work area

    def facts(self) -> dict:
        """What the parent's `_SUCCESS` says of the step."""
        return {"seconds": round(self.seconds, 3), "spark_jobs": self.spark_jobs, "reused": self.reused}


@contextmanager
def spark_step(executor: Executor, label: str) -> Iterator[StepReport]:
    """The Spark jobs the block runs, labelled `label` in the Spark UI, counted and timed in the
    report it yields; one line says so when the block ends."""
    context = executor.session().sparkContext
    group = context.getLocalProperty(_GROUP)  # an outer group's (a benchmark's), or None: no group
    before = set(context.statusTracker().getJobIdsForGroup(group))
    previous = context.getLocalProperty(_DESCRIPTION)
    context.setLocalProperty(_DESCRIPTION, label)
    report, started = StepReport(label), time.perf_counter()
    try:
        yield report
    finally:
        context.setLocalProperty(_DESCRIPTION, previous)
    # Ids, not counts: the tracker keeps the last spark.ui.retainedJobs (1,000), so old ones drop out.
    report.spark_jobs = len(set(context.statusTracker().getJobIdsForGroup(group)) - before)
    report.seconds = time.perf_counter() - started
    state = "reused (finished by an earlier attempt)" if report.reused else f"{report.spark_jobs} Spark jobs"
    print(f"{label}: {state} in {report.seconds:.1f} s", file=sys.stderr, flush=True)


def run_steps(
    parent: str,
    steps: list[SubStep],
    input_dir: Location | list[Location] | None,
    work: StageWork,
    executor: Executor,
) -> dict[str, StepReport]:
    """Run `steps` in order, each reading `input_dir` (and the outputs of the steps before it, which
    it finds through `work.step_output`), and say what each did."""
    reports = {}
    for step in steps:
        with spark_step(executor, f"{parent} › {step.name}") as report:
            result = run_global(step.stage, input_dir, work.step_output(step.name), executor, work.storage)
            report.reused, report.output = result.skipped, result.output
        reports[step.name] = report
    return reports
