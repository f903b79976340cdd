"""One task of a stage, the same code under both runners: rows in, files and stats out."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pyarrow as pa

from corpus_pipeline.engine.task_output import TaskOutput, task_stats_path
from corpus_pipeline.stages.base import DocumentStage, SourceStage, Verdict, text_bytes
from corpus_pipeline.stats import StageStats


def completed_task_stats(stage_dir: Path, task_id: int) -> StageStats | None:
    """The stats of a task that already finished in an earlier, interrupted attempt at this stage."""
    path = task_stats_path(stage_dir, task_id)
    return StageStats.read(path) if path.exists() else None


def conform(batch: pa.RecordBatch, schema: pa.Schema) -> pa.Table:
    """Give a batch exactly `schema`: Spark hands strings back as large_string, and Parquet from
    elsewhere (a FineWeb dump, say) may lack our optional columns, which become nulls."""
    columns = []
    for field in schema:
        index = batch.schema.get_field_index(field.name)
        if index >= 0:
            columns.append(batch.column(index).cast(field.type))
        elif field.nullable:
            columns.append(pa.nulls(batch.num_rows, field.type))
        else:
            raise ValueError(f"input has no column {field.name!r}, which every document needs")
    return pa.Table.from_arrays(columns, schema=schema)


def write_task(
    stage_dir: Path,
    task_id: int,
    schema: pa.Schema,
    verdicts: Iterator[tuple[dict, Verdict]],
    stats: StageStats,
) -> StageStats:
    """Route every (row, verdict) to the task's files, check the counts, commit the task.

    `stats` must already count each row in (`count_in`); kept and dropped are counted here."""
    started = time.perf_counter()
    output = TaskOutput(stage_dir, task_id, schema)
    try:
        for row, verdict in verdicts:
            if verdict is None:
                stats.count_kept(text_bytes(row))
                output.keep(row)
            else:
                stats.count_dropped(verdict.reason)
                output.reject(row, verdict)
        stats.check_balanced()
        stats.seconds = stats.task_seconds = time.perf_counter() - started
        output.commit(stats)
    except BaseException:
        output.abort()
        raise
    return stats


def run_document_task(
    stage: DocumentStage,
    batches: Iterable[pa.RecordBatch],
    input_schema: pa.Schema,
    stage_dir: Path,
    task_id: int,
) -> StageStats:
    done = completed_task_stats(stage_dir, task_id)
    if done is not None:
        return done
    stage.setup()
    stats = StageStats(stage.name, tasks=1)

    def verdicts() -> Iterator[tuple[dict, Verdict]]:
        for batch in batches:
            rows = conform(batch, input_schema).to_pylist()
            for row in rows:
                stats.count_in(text_bytes(row))
            yield from zip(rows, stage.process_batch(rows, stats), strict=True)

    return write_task(stage_dir, task_id, stage.output_schema(input_schema), verdicts(), stats)


def run_source_task(stage: SourceStage, path: str, stage_dir: Path, task_id: int) -> StageStats:
    done = completed_task_stats(stage_dir, task_id)
    if done is not None:
        return done
    stage.setup()
    stats = StageStats(stage.name, tasks=1)
    return write_task(stage_dir, task_id, stage.output_schema(), stage.read(path, stats), stats)
