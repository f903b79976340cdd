"""Before a run's first step (registry `preflight`): every eval set to decontaminate against exists."""

from __future__ import annotations

from corpus_pipeline.decontam.eval_sets import EvalSetError, set_file
from corpus_pipeline.engine.registry import Preflight


def eval_set_problems(given: Preflight) -> list[str]:
    problems = []
    for eval_set in given.config.decontamination.eval_sets:
        try:
            set_file(eval_set)
        except EvalSetError as error:
            problems.append(f"decontamination.eval_sets: {error}")
    return problems
