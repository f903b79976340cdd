"""The one function per stage that the CLI verb, the make target and the Spark job all call."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.local import LocalExecutor
from corpus_pipeline.engine.runner import Executor, StageResult, run_document_stage, run_source_stage
from corpus_pipeline.inputs import expand_crawl_inputs


def make_executor(config: PipelineConfig, runner: str) -> Executor:
    if runner == "local":
        return LocalExecutor()
    if runner == "spark":
        from corpus_pipeline.engine.session import get_spark
        from corpus_pipeline.engine.spark import SparkExecutor

        return SparkExecutor(get_spark(config.spark))
    raise ValueError(f"unknown runner {runner!r}: expected 'spark' or 'local'")


def run_extract(inputs: list[str], output: Path, config: PipelineConfig, executor: Executor) -> StageResult:
    from corpus_pipeline.stages.extract import ExtractStage

    return run_source_stage(ExtractStage(config.extract), expand_crawl_inputs(inputs), output, executor)


def run_langid(input_dir: Path, output: Path, config: PipelineConfig, executor: Executor) -> StageResult:
    from corpus_pipeline.stages.langid import LangIdStage

    return run_document_stage(LangIdStage(config.langid), input_dir, output, executor)


def run_normalize(input_dir: Path, output: Path, config: PipelineConfig, executor: Executor) -> StageResult:
    from corpus_pipeline.stages.normalize import NormalizeStage

    return run_document_stage(NormalizeStage(config.normalize), input_dir, output, executor)


DOCUMENT_STAGES = {"langid": run_langid, "normalize": run_normalize}
