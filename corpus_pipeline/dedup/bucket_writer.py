"""A dedup output bucket committed as one task: its documents, each with its decision (the
DecisionColumns; reason null: kept), to `part-<bucket>.parquet` and `_rejected/reason=<r>/`.

The Spark path (spark_job.write_spark_buckets, write_task.py) and the driver's (driver_job.py)
both write each bucket's rows, sorted alike and decided by chain.decision_columns, with
`fill_bucket`, so one code writes the bytes of either.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.dedup.chain import DecisionColumns
from corpus_pipeline.engine.whole_corpus import (
    TaskAttempt,
    commit_task,
    part_name,
    split_verdicts,
    table_text_bytes,
    task_done,
)
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage

STAGE_NAME = "dedup"
# The bucket number carried as a column while the rows are sorted into their buckets.
BUCKET_COLUMN = "_dedup_bucket"


def bucket_done(work: str, bucket: int, identity: str, storage: Storage) -> bool:
    return task_done(work, part_name(bucket), identity, storage)


def fill_bucket(
    batches: Iterable[pa.RecordBatch | pa.Table], attempt: TaskAttempt, columns: DecisionColumns, schema: pa.Schema
) -> dict[str, StageStats]:
    """One bucket's documents, each with its decision (`columns.reason` null: kept), to the
    attempt's files; its counters."""
    stats = StageStats(STAGE_NAME, tasks=1)
    out = attempt.stage(STAGE_NAME, schema, write_kept=True)
    for batch in batches:
        table = batch if isinstance(batch, pa.Table) else pa.Table.from_batches([batch])
        stats.add_in(table.num_rows, table_text_bytes(table))
        paragraphs = table.column(columns.paragraphs) if columns.paragraphs in table.column_names else None
        if paragraphs is not None and pc.count(paragraphs).as_py():
            stats.count("paragraph_dedup", "documents_cleaned", pc.count(paragraphs).as_py())
            stats.count("paragraph_dedup", "paragraphs_removed", pc.sum(paragraphs).as_py())
            characters = pc.sum(table.column(columns.characters)).as_py()
            stats.count("paragraph_dedup", "characters_removed", characters)
        split_verdicts(table, schema, table.column(columns.reason), table.column(columns.kept_id), stats, out)
    stats.check_balanced()
    return {STAGE_NAME: stats}


def write_bucket(
    batches: Iterable[pa.RecordBatch | pa.Table],
    columns: DecisionColumns,
    schema: pa.Schema,
    work: str,
    bucket: int,
    identity: str,
    storage: Storage,
) -> None:
    """One bucket committed as one task (the driver's path; Spark's: spark_write.commit_buckets)."""
    commit_task(
        work, part_name(bucket), identity, storage, partial(fill_bucket, batches, columns=columns, schema=schema)
    )
