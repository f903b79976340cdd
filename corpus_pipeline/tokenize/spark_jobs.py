"""The Spark side of tokenizer training and tokenization (the one module here that imports pyspark).

Every job reads the parts through the storage layer (engine/exec/spark_read.py: local or `s3://`).

- language totals: one aggregation, a handful of rows to the driver;
- the training sample: a filter on the hashed id (sample.py), streamed to the driver partition by
  partition with toLocalIterator (the driver holds one partition's sampled rows at most, never the
  corpus);
- tokenization: every document gets its bucket from its id; repartitioning by a key chosen per bucket
  (sharding.partition_keys) gives each bucket a task of its own, `sortWithinPartitions(bucket, id)`
  orders it (Spark sorts with spills, so memory stays bounded), and each task writes its bucket with
  shard_task.write_buckets over Arrow batches. One small row per bucket returns to the driver.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from corpus_pipeline.engine.whole_corpus import read_parts
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.sample import SAMPLE_MODULUS, UNKNOWN_LANGUAGE, SamplePlan
from corpus_pipeline.tokenize.shard_task import TokenizeJob, arrow_rows, write_buckets
from corpus_pipeline.tokenize.sharding import partition_keys, threads_per_task

_RESULT_SCHEMA = "bucket int, documents long, partition int"


def _documents(spark, parts: list[Path | str], input_schema: pa.Schema, storage: Storage | None):
    from pyspark.sql import functions as F

    has_language = "language" in input_schema.names
    columns = ["id", "text", "language"] if has_language else ["id", "text"]
    frame = read_parts(spark, [str(part) for part in parts], input_schema, storage, columns)
    language = F.col("language") if has_language else F.lit(None).cast("string")
    return frame.select("id", "text", F.coalesce(language, F.lit(UNKNOWN_LANGUAGE)).alias("language"))


def language_totals(
    spark, parts: list[Path | str], input_schema: pa.Schema, storage: Storage
) -> dict[str, tuple[int, int]]:
    from pyspark.sql import functions as F

    rows = (
        _documents(spark, parts, input_schema, storage)
        .groupBy("language")
        .agg(F.count(F.lit(1)).alias("docs"), F.sum(F.octet_length("text")).alias("bytes"))
        .collect()
    )
    return {row["language"]: (row["docs"], row["bytes"] or 0) for row in rows}


def training_texts(
    spark, parts: list[Path | str], input_schema: pa.Schema, plan: SamplePlan, storage: Storage
) -> Iterator[tuple[str, str]]:
    """(language, text) of every sampled document."""
    from pyspark.sql import functions as F

    thresholds = plan.thresholds
    if not thresholds:
        return
    threshold = F.create_map(*[F.lit(value) for item in thresholds.items() for value in item])
    key = F.pmod(F.xxhash64(F.concat(F.lit(f"{plan.seed}:"), F.col("id"))), F.lit(SAMPLE_MODULUS))
    sampled = _documents(spark, parts, input_schema, storage).where(
        key < F.coalesce(threshold[F.col("language")], F.lit(0))
    )
    for row in sampled.select("language", "text").toLocalIterator(prefetchPartitions=True):
        yield row["language"], row["text"]


def tokenize_buckets(
    spark,
    parts: list[Path | str],
    input_schema: pa.Schema,
    job: TokenizeJob,
    buckets: int,
    threads: int | None,
    storage: Storage,
) -> dict[int, int]:
    """Write every bucket's files; returns bucket -> the Spark partition that wrote it."""
    from pyspark import TaskContext
    from pyspark.sql import functions as F

    threads = threads or threads_per_task(spark.sparkContext.defaultParallelism, buckets)
    done = [bucket for bucket in range(buckets) if job.bucket_done(bucket)]
    frame = _documents(spark, parts, input_schema, storage).select(
        "id", F.col("text").cast("binary").alias("text"), "language"
    )
    frame = frame.withColumn("bucket", F.pmod(F.xxhash64("id"), F.lit(buckets)).cast("int"))
    if done:  # a resumed run: buckets finished by the killed attempt are kept, not redone
        frame = frame.where(~F.col("bucket").isin(done))
    keys = F.array(*[F.lit(key) for key in partition_keys(buckets)])
    frame = frame.withColumn("partition_key", F.element_at(keys, F.col("bucket") + 1))
    frame = frame.repartition(buckets, "partition_key").drop("partition_key").sortWithinPartitions("bucket", "id")

    def run(batches):
        # Read by tokenizers when its thread pool starts, i.e. at this process's first encode.
        os.environ["RAYON_NUM_THREADS"] = str(threads)
        partition = TaskContext.get().partitionId()
        written = write_buckets(job, arrow_rows(batches))
        yield pa.RecordBatch.from_pylist(
            [{"bucket": bucket, "documents": stats.docs_in, "partition": partition} for bucket, stats in written],
            schema=pa.schema([("bucket", pa.int32()), ("documents", pa.int64()), ("partition", pa.int32())]),
        )

    return {row["bucket"]: row["partition"] for row in frame.mapInArrow(run, _RESULT_SCHEMA).collect()}
