"""The dedup stage on Spark, in two steps that dedup/stage.py runs through the engine's lifecycle:

- decide (decision_frame, a step of its own: decide_step.py): signatures, each method's drops, the
  clusters, written as the verdicts of the duplicates (and the paragraph method's cleanings);
- write (decided_documents, write_spark_buckets): every document joined with its verdict, written
  into the stage's work directory (bucket_writer.py: parts, `_rejected/reason=<method>_duplicate/`,
  `_stats.json`).

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
from corpus_pipeline.dedup.chain import (
    CLUSTER_FIELDS,
    ID_COLLISION,
    ID_COLLISION_DETAIL,
    VERDICT_SCHEMA,
    DecisionColumns,
)
from corpus_pipeline.dedup.chain_job import dedup_decisions
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.id_buckets import row_order
from corpus_pipeline.dedup.index import read_index
from corpus_pipeline.dedup.keep_rule import SOURCE_RANK, ranked_batch
from corpus_pipeline.dedup.paragraph_job import CHANGE_SCHEMA, apply_paragraph_changes
from corpus_pipeline.dedup.repeats import SAME_TEXT, split_repeats
from corpus_pipeline.engine.whole_corpus import commit_buckets, read_parts
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location

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
    other source or none (the writer leaves the column out: it is not in the output schema); as
    keep_rule.ranked_batch gives a batch."""
    if not priority or "source" not in docs.columns:
        return docs
    rank = F.lit(len(priority))
    for position, name in reversed(list(enumerate(priority))):
        rank = F.when(F.col("source") == name, position).otherwise(rank)
    return docs.withColumn(SOURCE_RANK, rank)


def decision_frame(
    spark,
    parts: list[Path | str],
    input_schema: pa.Schema,
    dedup: DedupConfig,
    index_dir: Path | None,
    storage: Storage,
) -> DataFrame:
    """The decide step's rows (decision_schema): the verdict of every document of `parts` that has
    one (decided against every published snapshot too, with `index_dir`) and, with the paragraph
    method, the cleaning of every document it rewrote; a document with neither is kept, unchanged,
    alone in its cluster. Duplicates and cleaned documents only: never the corpus."""
    paths, columns = [str(part) for part in parts], _document_columns(input_schema)
    docs = with_source_rank(read_parts(spark, paths, input_schema, storage, columns), dedup.source_priority)

    def read(function, schema) -> DataFrame:
        ranked = partial(ranked_batch, priority=dedup.source_priority)
        return read_parts(spark, paths, input_schema, storage, columns, lambda b: function(ranked(b)), schema)

    index = read_index(index_dir, dedup, spark, storage) if index_dir is not None else None
    verdicts, changes = dedup_decisions(docs, dedup, index, read)
    return verdicts if changes is None else verdicts.join(changes, "id", "full")


def decision_schema(dedup: DedupConfig) -> pa.Schema:
    """The decide step's columns: VERDICT_SCHEMA's, and CHANGE_SCHEMA's with the paragraph method."""
    if "paragraph" not in dedup.methods:
        return VERDICT_SCHEMA
    return pa.schema([*VERDICT_SCHEMA, *(field for field in CHANGE_SCHEMA if field.name != "id")])


def decided_documents(
    spark,
    parts: list[Path | str],
    input_schema: pa.Schema,
    decisions: list[Location],
    dedup: DedupConfig,
    buckets: int,
    storage: Storage,
) -> tuple[DataFrame, DecisionColumns]:
    """Every document of `parts` with its decision and cluster columns, from the decide step's
    `decisions` parts (decision_frame): the write step's rows, already placed in the `buckets` that
    write_spark_buckets writes: one shuffle of the documents (86k documents, 498 MB of text: 401 MB
    of shuffle written, where two shuffles wrote 401 and 403)."""
    docs = read_parts(spark, [str(part) for part in parts], input_schema, storage, _document_columns(input_schema))
    docs, repeats = split_repeats(docs, buckets)
    decided = read_parts(spark, [str(part) for part in decisions], decision_schema(dedup), storage)
    if "paragraph" in dedup.methods:
        cleaned = F.col(DecisionColumns.paragraphs).isNotNull()  # set on every row the method cleaned
        changes = decided.where(cleaned).select(*CHANGE_SCHEMA.names)
        docs = apply_paragraph_changes(docs, changes)
    verdicts = decided.where(F.col("dup_cluster_id").isNotNull()).select(*VERDICT_SCHEMA.names)
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
    return _clustered(docs, verdicts).unionByName(repeats, allowMissingColumns=True), DecisionColumns()


def _document_columns(input_schema: pa.Schema) -> list[str]:
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    return [name for name in input_schema.names if name not in clusters]


def write_spark_buckets(
    decided: DataFrame, columns: DecisionColumns, schema: pa.Schema, work: str, buckets: int, storage: Storage
) -> None:
    """Bucket = Murmur3(id) mod n, the hash Spark's own repartition(n, "id") uses, carried as a
    column: adaptive execution may coalesce shuffle partitions (4 became 1 on a small input), so a
    partition number is never taken for a bucket. A partition writes each bucket it holds, through
    the one bucket commit of every Spark stage (engine/exec/spark_write.commit_buckets)."""
    fill = partial(fill_bucket, columns=columns, schema=schema)
    commit_buckets(decided, work, buckets, storage, fill, row_order(decided.columns), column=BUCKET_COLUMN)
