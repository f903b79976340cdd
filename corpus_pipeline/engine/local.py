"""The local executor: a stage's tasks one after another in this process (tests, tiny runs)."""

from __future__ import annotations

import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline.engine.tasks import run_document_task, run_source_task
from corpus_pipeline.stages.base import DocumentStage, SourceStage

# Rows per batch read from Parquet; the same order of size Spark's Arrow batches use.
BATCH_ROWS = 1_000


def _progress(stage_name: str, done: int, total: int, docs: int) -> None:
    """One self-overwriting line on a terminal (Spark shows its own progress bar instead)."""
    if sys.stderr.isatty():
        end = "\n" if done == total else ""
        print(f"\r{stage_name}: {done}/{total} tasks, {docs:,} documents in", end=end, file=sys.stderr, flush=True)


class LocalExecutor:
    name = "local"

    def run_source_tasks(self, stage: SourceStage, paths: list[str], work: Path) -> None:
        docs = 0
        for task_id, path in enumerate(paths):
            docs += run_source_task(stage, path, work, task_id).docs_in
            _progress(stage.name, task_id + 1, len(paths), docs)

    def run_document_tasks(self, stage: DocumentStage, parts: list[Path], input_schema: pa.Schema, work: Path) -> None:
        docs = 0
        for task_id, part in enumerate(parts):
            batches = pq.ParquetFile(part).iter_batches(batch_size=BATCH_ROWS)
            docs += run_document_task(stage, batches, input_schema, work, task_id).docs_in
            _progress(stage.name, task_id + 1, len(parts), docs)
