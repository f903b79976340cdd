"""The dedup stage on Spark, in two steps that dedup/stage.py runs through the engine's lifecycle:

- decide (decision_frame, a step of its own: decide_step.py): signatures, each method's drops, the
  clusters, written as the verdicts of the duplicates (and the paragraph method's cleanings);
- write (write_spark_buckets): every document in its output bucket, given its verdict there
  (write_task.py), written into the stage's work directory (bucket_writer.py: parts,
  `_rejected/reason=<method>_duplicate/`, `_stats.json`).

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

from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN
from corpus_pipeline.dedup.chain import CLUSTER_FIELDS, VERDICT_SCHEMA
from corpus_pipeline.dedup.chain_job import dedup_decisions
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.id_buckets import row_order
from corpus_pipeline.dedup.index import read_index
from corpus_pipeline.dedup.keep_rule import SOURCE_RANK, ranked_batch
from corpus_pipeline.dedup.paragraph_job import CHANGE_SCHEMA
from corpus_pipeline.dedup.write_task import decide_parts_by_bucket, fill_decided_bucket
from corpus_pipeline.engine.whole_corpus import PART_COLUMN, bucketed, commit_buckets, read_parts
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.locations import Location


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
    tasks: tuple[int, int],
) -> DataFrame:
    """The decide step's rows (decision_schema): the verdict of every document of `parts` that has
    one (decided against every published snapshot too, with `index_dir`) and, with the paragraph
    method, the cleaning of every document it rewrote; a document with neither is kept, unchanged,
    alone in its cluster. Duplicates and cleaned documents only: never the corpus. Bucketed by id
    into the output's buckets (`tasks`: those, minhash's band tasks) as engine/exec/spark_write.bucketed
    leaves rows, for write_bucketed_parts."""
    paths, columns = [str(part) for part in parts], _document_columns(input_schema)
    docs = with_source_rank(read_parts(spark, paths, input_schema, storage, columns), dedup.source_priority)

    def read(function, schema) -> DataFrame:
        ranked = partial(ranked_batch, priority=dedup.source_priority)
        return read_parts(spark, paths, input_schema, storage, columns, lambda b: function(ranked(b)), schema)

    index = read_index(index_dir, dedup, spark, storage) if index_dir is not None else None
    verdicts, changes = dedup_decisions(docs, dedup, tasks, index, read)
    if changes is None:
        return verdicts
    names = decision_schema(dedup).names
    return bucketed(verdicts.drop(PART_COLUMN).join(changes, "id", "full").select(*names), tasks[0], names)


def decision_schema(dedup: DedupConfig) -> pa.Schema:
    """The decide step's columns: VERDICT_SCHEMA's, and CHANGE_SCHEMA's with the paragraph method."""
    if "paragraph" not in dedup.methods:
        return VERDICT_SCHEMA
    return pa.schema([*VERDICT_SCHEMA, *(field for field in CHANGE_SCHEMA if field.name != "id")])


def write_spark_buckets(
    spark,
    parts: list[Path | str],
    input_schema: pa.Schema,
    decisions: list[Location],
    dedup: DedupConfig,
    target: tuple[str, int],
    schema: pa.Schema,
    storage: Storage,
) -> None:
    """The write step: every document of `parts` into output bucket Murmur3(id) mod n (target: the
    work directory, n), the hash Spark's own repartition(n, "id") uses, carried as a column; each
    bucket sorted by id and repeat order (nulls last) and committed as one task
    (engine/exec/spark_write.commit_buckets) that gives its documents their decisions from the decide
    step's `decisions` parts (write_task.py). One shuffle and one sort of the documents, no join."""
    work, buckets = target
    docs = read_parts(spark, [str(part) for part in parts], input_schema, storage, _document_columns(input_schema))
    fill = partial(
        fill_decided_bucket,
        decide_parts=decide_parts_by_bucket(decisions),
        paragraphs="paragraph" in dedup.methods,
        schema=schema,
        storage=storage,
    )
    commit_buckets(docs, work, buckets, storage, fill, bucket_order(docs.columns), column=BUCKET_COLUMN)


def bucket_order(columns: list[str]) -> list:
    """How each output bucket is sorted: by id, then with a repeated id's earliest row first, nulls
    last (repeats.py), which write_task.RepeatStates reads the repeats from; the driver's path
    sorts its buckets alike (driver_job._decided_bucket)."""
    return [F.col(column).asc_nulls_last() for column in row_order(columns)]


def _document_columns(input_schema: pa.Schema) -> list[str]:
    clusters = {field.name for field in CLUSTER_FIELDS}  # decided again here
    return [name for name in input_schema.names if name not in clusters]
