"""The one function the `pii` CLI verb, `make pii` and `jobs/pii.py` all call."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import Executor, StageResult, run_document_stage
from corpus_pipeline.pii.stage import PiiStage


def run_pii(input_dir: Path, output: Path, config: PipelineConfig, executor: Executor) -> StageResult:
    return run_document_stage(PiiStage(config.pii), input_dir, output, executor)
