"""Run one stage end to end: skip if done, run its tasks on an executor, merge stats, publish."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.stage_dir import (
    StageDir,
    file_identity,
    fingerprint,
    input_parts,
    stage_input_identity,
)
from corpus_pipeline.stages.base import DocumentStage, SourceStage
from corpus_pipeline.stats import StageStats


class Executor(Protocol):
    name: str

    def run_source_tasks(self, stage: SourceStage, paths: list[str], work: Path) -> None: ...

    def run_document_tasks(
        self, stage: DocumentStage, parts: list[Path], input_schema: pa.Schema, work: Path
    ) -> None: ...


@dataclass
class StageResult:
    output: Path
    stats: StageStats
    skipped: bool  # True: an identical earlier run's output was reused


def run_source_stage(stage: SourceStage, paths: list[str], output: Path, executor: Executor) -> StageResult:
    stage_dir = StageDir(output, fingerprint(stage.name, stage.config_fingerprint(), file_identity(paths)))
    if stage_dir.is_done():
        return StageResult(output, stage_dir.done_stats(), skipped=True)
    started = time.perf_counter()
    executor.run_source_tasks(stage, paths, stage_dir.begin())
    return StageResult(output, stage_dir.finish(stage.name, time.perf_counter() - started), skipped=False)


def run_document_stage(stage: DocumentStage, input_dir: Path, output: Path, executor: Executor) -> StageResult:
    parts = input_parts(input_dir)
    stage_dir = StageDir(output, fingerprint(stage.name, stage.config_fingerprint(), stage_input_identity(input_dir)))
    if stage_dir.is_done():
        return StageResult(output, stage_dir.done_stats(), skipped=True)
    started = time.perf_counter()
    input_schema = pq.read_schema(parts[0]) if parts else None
    if input_schema is not None:
        executor.run_document_tasks(stage, parts, input_schema, stage_dir.begin())
    else:
        stage_dir.begin()  # an empty input is a valid, empty stage
    return StageResult(output, stage_dir.finish(stage.name, time.perf_counter() - started), skipped=False)
