"""Parquet parts as a Spark DataFrame, read by Spark tasks through `Storage`, not by Spark's own
Parquet reader.

Spark's reader reaches `s3://` only through hadoop-aws (`s3a://`), which is not installable here and
missing on many clusters. So the driver plans the work from the parts' footers (read
through Storage), every Spark task reads its row groups with pyarrow.parquet, and Spark only moves
the rows on from there.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pyarrow as pa

from corpus_pipeline.engine.exec.spark import spark_schema
from corpus_pipeline.engine.exec.tasks import conform
from corpus_pipeline.storage import Storage
from corpus_pipeline.storage.parquet import columns_present, open_parquet

# Rows per Arrow batch handed to Spark: what Spark's own vectorized Parquet reader hands on
# (spark.sql.parquet.columnarReaderBatchSize), so a row group of 1 MB pages is never one batch.
_BATCH_ROWS = 4_096
# Compressed Parquet bytes per Spark partition, as Spark's own reader cuts its splits
# (spark.sql.files.maxPartitionBytes), with at least one partition per core and at most one per row
# group. Not one partition per row group: each partition is a Python task costing ~80 ms on local[2]
# (400 row groups of 5 documents: 2 partitions read in 0.5 s, 100 in 4.4 s), and every action on the
# frame reads again. 5,000 documents in 8 row groups (1.9 MB), local[2]: at 8 partitions dedup took
# 3.8-4.1 s and tokenize 1.9 s; at 2, as Spark's reader (2 splits), 3.0-3.3 s and 1.4-1.5 s, Spark's
# reader 2.9-3.4 s and 1.6 s. A large input gets about Spark's own partitioning, so the stages after
# the read run as they did.
_SPLIT_BYTES = 128 << 20


@dataclass(frozen=True)
class RowGroup:
    part: int  # index in the parts read
    number: int  # row group within the part
    compressed_bytes: int


def plan_row_groups(parts: list[str], storage: Storage) -> list[RowGroup]:
    """Every row group that holds rows, in file order (read from the footers, through Storage)."""
    items = []
    for index, path in enumerate(parts):
        with open_parquet(storage, path) as parquet:
            metadata = parquet.metadata
            for number in range(metadata.num_row_groups):
                group = metadata.row_group(number)
                if group.num_rows:
                    size = sum(group.column(column).total_compressed_size for column in range(group.num_columns))
                    items.append(RowGroup(index, number, size))
    return items


def partition_count(items: list[RowGroup], cores: int) -> int:
    splits = math.ceil(sum(item.compressed_bytes for item in items) / _SPLIT_BYTES)
    return min(len(items), max(cores, splits))


def nullable_spark_schema(schema: pa.Schema):
    """The Spark schema of `schema` with every column nullable, as Spark's own file reader gives it:
    a file's schema is not trusted to keep its promise, and a non-nullable column would let the
    optimizer fold `isNull` tests away."""
    from pyspark.sql.types import StructField, StructType

    return StructType([StructField(field.name, field.dataType, True) for field in spark_schema(schema).fields])


# A frame of read_parts is `spark.range(row groups).mapInArrow(...)`, which the planner sizes at a
# few bytes (the range's numbers), and so is every frame made from it: its joins broadcast whole
# corpora. Dedup's joins broadcast its signature rows through the driver's JVM, 45 MB at 86k documents,
# and at 858k documents died of it in Spark's default 1 GB heap. Within broadcasts_by_measured_size
# only adaptive execution broadcasts, a side it measured under 10 MB. Unset by the user, these hold.
_MEASURED_BROADCASTS = {
    "spark.sql.autoBroadcastJoinThreshold": "-1",
    "spark.sql.adaptive.autoBroadcastJoinThreshold": "10MB",
}


@contextmanager
def broadcasts_by_measured_size(spark) -> Iterator[None]:
    """Within: joins that broadcast only a side adaptive execution measured under 10 MB. Join
    frames of read_parts inside it."""
    given = spark.sparkContext.getConf()
    changed = {key: spark.conf.get(key) for key in _MEASURED_BROADCASTS if not given.contains(key)}
    for key in changed:
        spark.conf.set(key, _MEASURED_BROADCASTS[key])
    try:
        yield
    finally:
        for key, value in changed.items():
            if value is None:  # no value of its own (the adaptive one falls back to the other)
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def read_parts(
    spark,
    parts: list[str],
    schema: pa.Schema,
    storage: Storage,
    columns: list[str] | None = None,
    then: Callable[[pa.RecordBatch], pa.RecordBatch] | None = None,
    then_schema=None,
):
    """Every row of the Parquet files `parts` (local paths or `s3://` URIs) in `schema` (or its
    `columns`), in file and row group order; a column a part lacks is null there (tasks.conform).
    With `then`, every batch read goes through it in the task that read it, and the frame's rows
    are its batches (`then_schema`, a Spark schema): a mapInArrow of the frame instead hands every
    row, texts and all, to the JVM and back to Python. Spark takes the frame for a few bytes: join
    it within broadcasts_by_measured_size."""
    from pyspark.sql.pandas.types import to_arrow_schema

    selected = schema if columns is None else pa.schema([schema.field(name) for name in columns])
    spark_fields = nullable_spark_schema(selected)
    spark_arrow = to_arrow_schema(spark_fields)
    paths = [str(part) for part in parts]
    items = plan_row_groups(paths, storage)
    if not items:
        return spark.createDataFrame([], then_schema or spark_fields)
    # `then` sees the batches a mapInArrow of the frame would: as many rows as Spark hands one.
    then_rows = int(spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch"))
    partitions = partition_count(items, spark.sparkContext.defaultParallelism)
    work = [(item.part, item.number) for item in items]  # what the tasks need of the plan

    def read(batches):
        numbers = [number for batch in batches for number in batch.column(0).to_pylist()]
        for part, group in itertools.groupby(numbers, key=lambda number: work[number][0]):
            with open_parquet(storage, paths[part]) as parquet:
                present = columns_present(parquet, selected.names)
                row_groups = [work[number][1] for number in group]
                for batch in parquet.iter_batches(batch_size=_BATCH_ROWS, row_groups=row_groups, columns=present):
                    for conformed in conform(batch, selected).cast(spark_arrow).to_batches():
                        if then is None:
                            yield conformed
                        else:
                            for start in range(0, conformed.num_rows, then_rows):
                                yield then(conformed.slice(start, then_rows))

    # spark.range cuts [0, n) into contiguous slices of equal size: partition p reads the items
    # numbered in its slice, so consecutive row groups of one part are read by one open file.
    return spark.range(len(items), numPartitions=partitions).mapInArrow(read, then_schema or spark_fields)
