"""A DataFrame written as Parquet files by Spark tasks through pyarrow, not by `DataFrame.write`
(whose files go through Hadoop's filesystem, which reaches `s3://` only with hadoop-aws: issue 15).

Part i (`part-NNNNN.parquet`, NNNNN = i) holds the rows whose key hashes to i (Murmur3, as Spark's own
`repartition(n, key)` places them), sorted by every column, written in ArrowFile's fixed row groups:
the same rows give the same bytes whatever the input's partitioning, and an adaptive execution that
coalesces two buckets into one partition still writes them as two files.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from corpus_pipeline.engine.task_output import ArrowFile
from corpus_pipeline.engine.task_plan import part_name

_PART = "_part"
_RESULT_SCHEMA = "part long, rows long"


def write_parts(frame, folder: Path, schema: pa.Schema, parts: int, key: str = "id") -> dict[int, int]:
    """Write `frame`'s `schema` columns to `folder`/part-NNNNN.parquet; returns part -> rows (a
    part without rows has no file)."""
    from pyspark.sql import functions as F

    folder_name = str(folder)

    def write(batches) -> Iterator[pa.RecordBatch]:
        out = None
        for table in _tables_by_part(batches):
            part = table.column(_PART)[0].as_py()
            if out is not None and out.part != part:
                yield out.close()
                out = None
            if out is None:
                out = _PartFile(Path(folder_name), part, schema)
            out.write(table)
        if out is not None:
            yield out.close()

    numbered = frame.select(*schema.names, F.pmod(F.hash(key), F.lit(parts)).cast("int").alias(_PART))
    ordered = numbered.repartition(parts, key).sortWithinPartitions(_PART, *schema.names)
    written = {row["part"]: row["rows"] for row in ordered.mapInArrow(write, _RESULT_SCHEMA).collect()}
    for leftover in folder.glob(".part-*"):  # what a failed task attempt left
        leftover.unlink()
    return written


def _tables_by_part(batches) -> Iterator[pa.Table]:
    """The rows of batches sorted by part, one table per part a batch holds."""
    for batch in batches:
        parts = batch.column(_PART)
        for part in pc.unique(parts).to_pylist():
            yield pa.Table.from_batches([batch.filter(pc.equal(parts, part))])


class _PartFile:
    """One part, written under a name of this attempt's own and then renamed: a retried or
    speculative attempt replaces the file with the same bytes, never with half of them."""

    def __init__(self, folder: Path, part: int, schema: pa.Schema):
        self.part, self.schema, self.rows = part, schema, 0
        self.path = folder / f"{part_name(part)}.parquet"
        self.temporary = folder / f".{self.path.name}.{uuid.uuid4().hex}"
        self.file = ArrowFile(self.temporary, schema)

    def write(self, table: pa.Table) -> None:
        self.file.write(table.select(self.schema.names).cast(self.schema))
        self.rows += table.num_rows

    def close(self) -> pa.RecordBatch:
        self.file.close()
        os.replace(self.temporary, self.path)
        return pa.RecordBatch.from_pylist([{"part": self.part, "rows": self.rows}])
