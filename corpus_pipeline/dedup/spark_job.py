"""The dedup decisions on Spark: signatures, per-method decisions, clusters, and the tasks that
write them into the stage's work directory (bucket_writer.py: parts, `_rejected/reason=<method>_duplicate/`,
`_stats.json`); dedup/stage.py runs them through the engine's lifecycle.

Deterministic whatever the partitioning: every choice is a total order on ids, cluster ids are the
smallest id of a cluster, and output part i holds the documents with hash(id) % n == i sorted by id,
n fixed by the config or the input, so 4 or 13 input partitions give byte-identical output.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pyarrow as pa
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN, fill_bucket
from corpus_pipeline.dedup.chain import CLUSTER_FIELDS, ID_COLLISION, ID_COLLISION_DETAIL, DecisionColumns
from corpus_pipeline.dedup.chain_job import dedup_decisions
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.id_buckets import row_order
from corpus_pipeline.dedup.index import read_index
from corpus_pipeline.dedup.keep_rule import SOURCE_RANK
from corpus_pipeline.dedup.repeats import SAME_TEXT, split_repeats
from corpus_pipeline.engine.whole_corpus import commit_buckets, read_parts
from corpus_pipeline.storage import Storage

_REASON, _KEPT = DecisionColumns.reason, DecisionColumns.kept_id
_COLLISION_BEFORE, _, _COLLISION_AFTER = ID_COLLISION_DETAIL.partition("{id}")


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


def with_source_rank(docs: DataFrame, priority: list[str]) -> DataFrame:
    """docs with SOURCE_RANK: the position of its `source` in `priority`, len(priority) for any
    other source or none (the writer leaves the column out: it is not in the output schema)."""
    if not priority or "source" not in docs.columns:
        return docs
    rank = F.lit(len(priority))
    for position, name in reversed(list(enumerate(priority))):
        rank = F.when(F.col("source") == name, position).otherwise(rank)
    return docs.withColumn(SOURCE_RANK, rank)


def decided_documents(
    spark,
    parts: list[Path | str],
    input_schema: pa.Schema,
    dedup: DedupConfig,
    index_dir: Path | None,
    storage: Storage,
) -> tuple[DataFrame, DecisionColumns]:
    """Every document of `parts` (local or `s3://`, read through `storage`) with its decision and
    cluster columns (and, with `index_dir`, decided against every published snapshot too)."""
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    columns = [name for name in input_schema.names if name not in clusters]
    docs = read_parts(spark, [str(part) for part in parts], input_schema, storage, columns)
    docs = with_source_rank(docs, dedup.source_priority)
    index = read_index(index_dir, dedup, spark, storage) if index_dir is not None else None
    docs, repeats = split_repeats(docs)
    repeats = repeats.select(
        "*",
        # Another text under a kept id is no duplicate of it: its own reason, detail naming the id.
        F.when(F.col(SAME_TEXT), F.lit("exact_duplicate")).otherwise(F.lit(ID_COLLISION)).alias(_REASON),
        F.when(F.col(SAME_TEXT), F.col("id"))
        .otherwise(F.concat(F.lit(_COLLISION_BEFORE), F.col("id"), F.lit(_COLLISION_AFTER)))
        .alias(_KEPT),
        F.col("id").alias("dup_cluster_id"),
        F.lit(None).cast("long").alias("dup_cluster_size"),
    )
    repeats = repeats.drop(SAME_TEXT)
    decided = _clustered(*dedup_decisions(docs, dedup, index)).unionByName(repeats, allowMissingColumns=True)
    return decided, DecisionColumns()


def write_spark_buckets(
    decided: DataFrame, columns: DecisionColumns, schema: pa.Schema, work: str, buckets: int, storage: Storage
) -> None:
    """Bucket = Murmur3(id) mod n, the hash Spark's own repartition(n, "id") uses, carried as a
    column: adaptive execution may coalesce shuffle partitions (4 became 1 on a small input), so a
    partition number is never taken for a bucket. A partition writes each bucket it holds, through
    the one bucket commit of every Spark stage (engine/exec/spark_write.commit_buckets)."""
    fill = partial(fill_bucket, columns=columns, schema=schema)
    commit_buckets(decided, work, buckets, storage, fill, row_order(decided.columns), column=BUCKET_COLUMN)
