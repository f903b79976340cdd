"""`run_quality`: the one function the CLI verb, the make target and the Spark job call."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.runner import Executor, StageResult, run_document_stage


def run_quality(input_dir: Path, output: Path, config: PipelineConfig, executor: Executor) -> StageResult:
    from corpus_pipeline.quality.stage import QualityStage

    return run_document_stage(QualityStage(config.quality), input_dir, output, executor)
