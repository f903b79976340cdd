"""The dedup stage on Spark: signatures, per-method decisions, then the stage directory written by
the engine's contracts (parts, `_rejected/reason=<method>_duplicate/`, `_stats.json`, `_SUCCESS`).

Deterministic whatever the partitioning: every choice is a total order on ids, cluster ids are the
smallest id of a cluster, and output part i holds the documents with hash(id) % n == i sorted by id,
n fixed by the config or the input, so 4 or 13 input partitions give byte-identical output.
"""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import chain_job
from corpus_pipeline.dedup.index import index_identity, read_index
from corpus_pipeline.dedup.paragraph_job import CHARACTERS_REMOVED, PARAGRAPHS_REMOVED
from corpus_pipeline.dedup.repeats import row_order, split_repeats
from corpus_pipeline.document import REJECT_DETAIL_FIELD
from corpus_pipeline.engine.runner import StageResult
from corpus_pipeline.engine.spark import spark_schema
from corpus_pipeline.engine.stage_dir import StageDir, fingerprint, input_parts, stage_input_identity
from corpus_pipeline.engine.tasks import completed_task_stats, write_task
from corpus_pipeline.stages.base import Drop, text_bytes
from corpus_pipeline.stats import StageStats

STAGE_NAME = "dedup"
CLUSTER_FIELDS = (pa.field("dup_cluster_id", pa.string()), pa.field("dup_cluster_size", pa.int64()))
_REASON, _KEPT = "_dedup_reason", "_dedup_kept_id"
_TASK_RESULT_SCHEMA = "task_id long, docs_in long"


def dedup_decisions(
    docs: DataFrame, config: PipelineConfig, index: DataFrame | None = None
) -> tuple[DataFrame, DataFrame]:
    """chain_job.dedup_decisions with this run's dedup config."""
    return chain_job.dedup_decisions(docs, config.dedup, index)


def _clustered(docs: DataFrame, verdicts: DataFrame) -> DataFrame:
    """Every document with its decision and its cluster (chain_job.dedup_decisions' verdicts; a
    document without one is kept, alone in its cluster)."""
    named = verdicts.select("id", *(F.col(name).alias(f"_verdict_{name}") for name in verdicts.columns if name != "id"))
    decided = docs.join(named, "id", "left")
    return decided.select(
        *docs.columns,
        F.coalesce("_verdict_note", "_verdict_kept_id").alias(_KEPT),
        F.col("_verdict_reason").alias(_REASON),
        F.coalesce("_verdict_dup_cluster_id", "id").alias("dup_cluster_id"),
        F.coalesce("_verdict_dup_cluster_size", F.lit(1).cast("long")).alias("dup_cluster_size"),
    )


def _write_parts(frame: DataFrame, schema: pa.Schema, work: Path, parts: int) -> None:
    from pyspark import TaskContext

    work_dir = str(work)

    def write(batches):
        task_id = TaskContext.get().partitionId()
        done = completed_task_stats(Path(work_dir), task_id)
        if done is None:
            done = _write_task(batches, schema, Path(work_dir), task_id)
        yield pa.RecordBatch.from_pylist([{"task_id": task_id, "docs_in": done.docs_in}])

    ordered = frame.repartition(parts, "id").sortWithinPartitions(*row_order(frame.columns))
    ordered.mapInArrow(write, _TASK_RESULT_SCHEMA).collect()


def _write_task(batches, schema: pa.Schema, work: Path, task_id: int) -> StageStats:
    stats = StageStats(STAGE_NAME, tasks=1)

    def verdicts():
        for batch in batches:
            for row in batch.to_pylist():
                reason, kept_id = row.pop(_REASON), row.pop(_KEPT)
                paragraphs, characters = row.pop(PARAGRAPHS_REMOVED, None), row.pop(CHARACTERS_REMOVED, None)
                if paragraphs is not None:
                    stats.count("paragraph_dedup", "documents_cleaned")
                    stats.count("paragraph_dedup", "paragraphs_removed", paragraphs)
                    stats.count("paragraph_dedup", "characters_removed", characters)
                stats.count_in(text_bytes(row))
                yield row, None if reason is None else Drop(reason, kept_id)

    return write_task(work, task_id, schema, verdicts(), stats)


def run_dedup(
    input_dir: Path, output: Path, config: PipelineConfig, spark, index_dir: Path | None = None
) -> StageResult:
    """Dedup a stage's documents (and, with `index_dir`, against every published snapshot)."""
    parts = input_parts(input_dir)
    identity = stage_input_identity(input_dir) + index_identity(index_dir)
    stage_dir = StageDir(output, fingerprint(STAGE_NAME, repr(config.dedup), identity))
    if stage_dir.is_done():
        return StageResult(output, stage_dir.done_stats(), skipped=True)
    started = time.perf_counter()
    work = stage_dir.begin()
    if parts:
        input_schema = pq.read_schema(parts[0])
        if REJECT_DETAIL_FIELD.name in input_schema.names:
            raise ValueError(f"{input_dir} holds rejected rows ({REJECT_DETAIL_FIELD.name}); give a stage output")
        output_schema = input_schema
        for field in CLUSTER_FIELDS:
            if output_schema.get_field_index(field.name) < 0:
                output_schema = output_schema.append(field)
        docs = spark.read.schema(spark_schema(input_schema)).parquet(*[str(p) for p in parts])
        docs = docs.drop(*[f.name for f in CLUSTER_FIELDS if f.name in docs.columns])
        index = read_index(index_dir, config.dedup, spark) if index_dir is not None else None
        docs, repeats = split_repeats(docs)
        repeats = repeats.select(
            "*",
            F.lit("exact_duplicate").alias(_REASON),
            F.col("id").alias(_KEPT),
            F.col("id").alias("dup_cluster_id"),
            F.lit(None).cast("long").alias("dup_cluster_size"),
        )
        decided = _clustered(*dedup_decisions(docs, config, index)).unionByName(repeats, allowMissingColumns=True)
        _write_parts(decided, output_schema, work, config.dedup.output_parts or len(parts))
    return StageResult(output, stage_dir.finish(STAGE_NAME, time.perf_counter() - started), skipped=False)
