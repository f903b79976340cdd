"""The dedup stage for the engine's lifecycle: read the input stage, decide on Spark
(spark_job.py), write part i of n with the documents whose id hashes to i, sorted by id.

A write task is identified by its hash bucket and the bucket count ("id bucket i of n"), both fixed
by the input and the config, so a resumed run under any core count finds the same tasks.

Several input stage directories are deduplicated as one corpus: a run's sources (pipeline.sources),
each normalized in its own directory.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.config import DedupConfig
from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.engine.lifecycle import Executor, GlobalStage
from corpus_pipeline.engine.spark_write import batches_by_key
from corpus_pipeline.engine.stage_dir import Location, input_parts, location
from corpus_pipeline.engine.task_output import TaskAttempt, task_done
from corpus_pipeline.engine.task_plan import part_name
from corpus_pipeline.engine.tasks import split_verdicts, table_text_bytes
from corpus_pipeline.stats import StageStats
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import parquet_schema

STAGE_NAME = "dedup"
CLUSTER_FIELDS = (pa.field("dup_cluster_id", pa.string()), pa.field("dup_cluster_size", pa.int64()))
_TASK_RESULT_SCHEMA = "task_id long, docs_in long"
_BUCKET = "_dedup_bucket"


class DedupStage(GlobalStage):
    name = STAGE_NAME

    def __init__(self, config: DedupConfig | None = None, index: Path | None = None):
        self.config = config or DedupConfig()
        self.index = location(index) if index is not None else None

    def config_fingerprint(self) -> str:
        return repr(self.config)

    def input_identity(self, executor: Executor) -> list[str]:
        from corpus_pipeline.dedup.index import index_identity

        return index_identity(self.index)

    def inputs(self) -> list[Path]:
        return [self.index] if self.index is not None else []

    def run(self, input_dir: Location | list[Location], work, executor: Executor) -> dict:
        from corpus_pipeline.dedup.spark_job import decided_documents

        storage = work.storage
        inputs = [input_parts(path, storage) for path in (input_dir if isinstance(input_dir, list) else [input_dir])]
        parts = [part for listed in inputs for part in listed]
        if not parts:
            return {}
        # Sources that skipped a stage lack its columns: every input's columns, nulls where absent.
        schemas = [parquet_schema(storage, listed[0]) for listed in inputs if listed]
        input_schema = pa.unify_schemas(schemas)
        if REJECT_DETAIL_FIELD.name in input_schema.names:
            raise ValueError(f"{input_dir} holds rejected rows ({REJECT_DETAIL_FIELD.name}); give a stage output")
        schema = input_schema
        for field in CLUSTER_FIELDS:
            if schema.get_field_index(field.name) < 0:
                schema = schema.append(field)
        session = executor.session()
        decided, columns = decided_documents(session, parts, input_schema, self.config, self.index, storage=storage)
        buckets = self.config.output_parts or len(parts)
        _write_buckets(decided, columns, schema, work.task_target, buckets, storage)
        return {}


def bucket_identity(bucket: int, buckets: int) -> str:
    return f"id bucket {bucket} of {buckets}"


def _write_buckets(decided, columns, schema: pa.Schema, work: str, buckets: int, storage: Storage) -> None:
    """Bucket = Murmur3(id) mod n, the hash Spark's own repartition(n, "id") uses, carried as a
    column: adaptive execution may coalesce shuffle partitions (4 became 1 on a small input), so a
    partition number is never taken for a bucket. A partition writes each bucket it holds."""
    from pyspark.sql import functions as F

    from corpus_pipeline.dedup.repeats import row_order

    def write(batches):
        for bucket, group in batches_by_key(batches, _BUCKET):
            identity = bucket_identity(bucket, buckets)
            if not task_done(work, part_name(bucket), identity, storage):
                write_bucket(group, columns, schema, work, bucket, identity, storage)
            yield pa.RecordBatch.from_pylist([{"task_id": bucket, "docs_in": sum(b.num_rows for b in group)}])

    bucketed = decided.withColumn(_BUCKET, F.pmod(F.hash("id"), F.lit(buckets)))
    ordered = bucketed.repartition(buckets, "id").sortWithinPartitions(_BUCKET, *row_order(decided.columns))
    ordered.mapInArrow(write, _TASK_RESULT_SCHEMA).collect()


def write_bucket(
    batches, columns, schema: pa.Schema, work: str, bucket: int, identity: str, storage: Storage | None = None
) -> None:
    """One bucket's documents, each with its decision (`columns.reason` null: kept), to its files."""
    stats = StageStats(STAGE_NAME, tasks=1)
    attempt = TaskAttempt(work, part_name(bucket), identity, storage=storage)
    try:
        out = attempt.stage(STAGE_NAME, schema, write_kept=True)
        for batch in batches:
            table = pa.Table.from_batches([batch])
            stats.add_in(table.num_rows, table_text_bytes(table))
            paragraphs = table.column(columns.paragraphs) if columns.paragraphs in table.column_names else None
            if paragraphs is not None and pc.count(paragraphs).as_py():
                stats.count("paragraph_dedup", "documents_cleaned", pc.count(paragraphs).as_py())
                stats.count("paragraph_dedup", "paragraphs_removed", pc.sum(paragraphs).as_py())
                characters = pc.sum(table.column(columns.characters)).as_py()
                stats.count("paragraph_dedup", "characters_removed", characters)
            split_verdicts(table, schema, table.column(columns.reason), table.column(columns.kept_id), stats, out)
        stats.check_balanced()
        attempt.commit({STAGE_NAME: stats})
    except BaseException:
        attempt.abort()
        raise
