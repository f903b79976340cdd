"""Spark tasks read Parquet parts through the storage layer (engine/exec/spark_read.py), local or `s3://`,
and write the dedup index's files themselves (engine/exec/spark_write.py)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import executor_environment
from stage_fixtures import real_documents

from corpus_pipeline.dedup.batch_ops import signature_batch
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.index import INDEX_ID_PREFIX, index_identity, publish_to_index, read_index
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.exec import spark_read
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.exec.spark_read import read_parts
from corpus_pipeline.engine.exec.tasks import conform
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize import local_jobs, spark_jobs

pytestmark = pytest.mark.spark

SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("language", pa.string()),
        pa.field("language_score", pa.float32()),
        pa.field("warc_offset", pa.int64()),
    ]
)


def write_parts(folder: Path) -> list[Path]:
    """Three parts: 60 rows in row groups of 7 (9 groups), one without `language` (stored as
    large_string elsewhere), one empty."""
    folder.mkdir()
    docs = real_documents(english=40, chinese=30)
    rows = [
        {"id": d["id"], "text": d["text"], "language": d["language"], "language_score": n / 8, "warc_offset": n}
        for n, d in enumerate(docs)
    ]
    many = folder / "part-00000.parquet"
    pq.write_table(pa.Table.from_pylist(rows[:60], schema=SCHEMA), many, row_group_size=7)
    lacking = folder / "part-00001.parquet"
    narrow = pa.schema([("id", pa.large_string()), ("text", pa.large_string()), ("warc_offset", pa.int32())])
    pq.write_table(pa.Table.from_pylist([{k: r[k] for k in narrow.names} for r in rows[60:]], schema=narrow), lacking)
    empty = folder / "part-00002.parquet"
    pq.write_table(SCHEMA.empty_table(), empty)
    assert pq.ParquetFile(many).metadata.num_row_groups == 9
    return [many, lacking, empty]


def upload(server, bucket: str, parts: list[Path], prefix: str) -> list[str]:
    for part in parts:
        server.client().upload_file(str(part), bucket, f"{prefix}/{part.name}")
    return [f"s3://{bucket}/{prefix}/{part.name}" for part in parts]


def pyarrow_rows(parts: list[Path], schema: pa.Schema) -> list[dict]:
    return [row for part in parts for row in conform(pq.read_table(part), schema).to_pylist()]


def spark_rows(frame) -> list[dict]:
    return [row.asDict(recursive=True) for row in frame.collect()]


def test_local_parts_read_as_pyarrow_reads_them(spark, tmp_path):
    parts = write_parts(tmp_path / "in")
    expected = pyarrow_rows(parts, SCHEMA)
    assert [row["language"] for row in expected[60:]] == [None] * 10
    frame = read_parts(spark, [str(p) for p in parts], SCHEMA, Storage())
    assert frame.columns == SCHEMA.names
    assert spark_rows(frame) == expected
    narrow = read_parts(spark, [str(p) for p in parts], SCHEMA, Storage(), columns=["id", "warc_offset"])
    assert spark_rows(narrow) == [{"id": r["id"], "warc_offset": r["warc_offset"]} for r in expected]


def test_each_batch_read_goes_through_then_in_the_reading_task(spark, tmp_path):
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    parts = [str(p) for p in write_parts(tmp_path / "in")]
    counted = StructType(
        [StructField("id", StringType()), StructField("characters", LongType()), StructField("batch", LongType())]
    )

    def count(batch: pa.RecordBatch) -> pa.RecordBatch:
        characters = [len(text) for text in batch.column("text").to_pylist()]
        return pa.RecordBatch.from_pydict(
            {"id": batch.column("id"), "characters": characters, "batch": [batch.num_rows] * batch.num_rows}
        )

    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "4")  # a batch as a mapInArrow gets it
    try:
        rows = spark_rows(read_parts(spark, parts, SCHEMA, Storage(), ["id", "text"], count, counted))
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)
    expected = pyarrow_rows([Path(p) for p in parts], SCHEMA)
    assert [(row["id"], row["characters"]) for row in rows] == [(row["id"], len(row["text"])) for row in expected]
    assert max(row["batch"] for row in rows) == 4
    empty = read_parts(spark, parts[2:], SCHEMA, Storage(), ["id", "text"], count, counted)
    assert empty.columns == ["id", "characters", "batch"] and empty.count() == 0


def test_a_partition_per_core_or_per_split_never_more_than_row_groups(spark, tmp_path, monkeypatch):
    parts = [str(p) for p in write_parts(tmp_path / "in")]
    cores = spark.sparkContext.defaultParallelism
    assert read_parts(spark, parts[1:2], SCHEMA, Storage()).rdd.getNumPartitions() == 1
    assert read_parts(spark, parts, SCHEMA, Storage()).rdd.getNumPartitions() == min(10, cores)
    monkeypatch.setattr(spark_read, "_SPLIT_BYTES", 1)  # every row group a split of its own
    many = read_parts(spark, parts, SCHEMA, Storage())
    assert many.rdd.getNumPartitions() == 10
    assert spark_rows(many) == pyarrow_rows([Path(p) for p in parts], SCHEMA)
    empty = read_parts(spark, [str(parts[2])], SCHEMA, Storage())
    assert empty.columns == SCHEMA.names and empty.count() == 0


def test_object_parts_read_as_local_ones(spark, s3_server, bucket, tmp_path):
    parts = write_parts(tmp_path / "in")
    uris = upload(s3_server, bucket, parts, "docs")
    with executor_environment(spark, s3_server.environment()):
        rows = spark_rows(read_parts(spark, uris, SCHEMA, Storage()))
    assert rows == pyarrow_rows(parts, SCHEMA)


def test_tokenize_counts_object_parts_on_spark_and_in_this_process(spark, s3_server, bucket, tmp_path):
    parts = write_parts(tmp_path / "in")[::2]  # the tokenize jobs read parts that have every column
    uris = upload(s3_server, bucket, parts, "docs")
    expected = local_jobs.language_totals(parts, SCHEMA, Storage())
    assert sum(docs for docs, _ in expected.values()) == 60
    assert local_jobs.language_totals(uris, SCHEMA, Storage()) == expected
    with executor_environment(spark, s3_server.environment()):
        assert spark_jobs.language_totals(spark, uris, SCHEMA, Storage()) == expected


def index_rows_by_pyarrow(stage: Path, config: DedupConfig) -> list[dict]:
    """What the index held when Spark wrote it: the signatures of every kept document, id prefixed."""
    table = pa.concat_tables(pq.read_table(p) for p in sorted(stage.glob("part-*.parquet")))
    signed = signature_batch(table.select(["id", "url", "text", "language"]).combine_chunks().to_batches()[0], config)
    rows = pa.Table.from_batches([signed]).select(["id", "exact_hash", "signature", "simhash"]).to_pylist()
    return sorted(({**row, "id": INDEX_ID_PREFIX + row["id"]} for row in rows), key=lambda row: row["id"])


def test_the_index_written_by_tasks_holds_every_signature_and_the_same_bytes_again(spark, tmp_path):
    config = DedupConfig()
    stage = write_documents_stage(real_documents(english=50, chinese=40), tmp_path / "docs", parts=3)
    first = publish_to_index(stage, tmp_path / "index1", config, SparkExecutor(spark), storage=Storage())
    names = sorted(path.name for path in first.glob("part-*.parquet"))
    assert names == ["part-00000.parquet", "part-00001.parquet", "part-00002.parquet"]
    index = read_index(tmp_path / "index1", config, spark, Storage())
    assert sorted(spark_rows(index), key=lambda row: row["id"]) == index_rows_by_pyarrow(stage, config)
    previous = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "7")  # another layout of the shuffle: the same files
    try:
        second = publish_to_index(stage, tmp_path / "index2", config, SparkExecutor(spark), storage=Storage())
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", previous)
    assert second.name == first.name
    assert {p.name: p.read_bytes() for p in second.glob("part-*")} == {
        p.name: p.read_bytes() for p in first.glob("part-*")
    }


def test_the_index_signed_in_process_is_the_spark_jobs_parts_byte_for_byte(spark, tmp_path):
    """`--runner local` publishes to the index without a JVM, and a later Spark night reads the same index."""
    config = DedupConfig()
    stage = write_documents_stage(real_documents(english=30, chinese=30), tmp_path / "docs", parts=3)
    by_spark = publish_to_index(stage, tmp_path / "index1", config, SparkExecutor(spark), storage=Storage())
    in_process = publish_to_index(stage, tmp_path / "index2", config, LocalExecutor(), storage=Storage())
    assert in_process.name == by_spark.name
    assert {p.name: p.read_bytes() for p in in_process.glob("part-*")} == {
        p.name: p.read_bytes() for p in by_spark.glob("part-*")
    }


def test_an_index_in_a_bucket_is_published_and_read_as_a_local_one(spark, s3_server, bucket, tmp_path):
    config = DedupConfig()
    stage = write_documents_stage(real_documents(english=20, chinese=20), tmp_path / "docs", parts=2)
    local = publish_to_index(stage, tmp_path / "index", config, SparkExecutor(spark), storage=Storage())
    with executor_environment(spark, s3_server.environment()):
        remote = publish_to_index(stage, f"s3://{bucket}/index", config, SparkExecutor(spark), storage=Storage())
        assert (
            publish_to_index(stage, f"s3://{bucket}/index", config, SparkExecutor(spark), storage=Storage()) == remote
        )  # again: a no-op
        rows = spark_rows(read_index(f"s3://{bucket}/index", config, spark, Storage()))
    assert remote == f"s3://{bucket}/index/published/{local.name}"
    assert (
        index_identity(f"s3://{bucket}/index", storage=Storage())
        == index_identity(tmp_path / "index", storage=Storage())
        == [f"index:{local.name}"]
    )
    assert sorted(rows, key=lambda row: row["id"]) == index_rows_by_pyarrow(stage, config)
    with pytest.raises(ValueError, match="was built with"):
        read_index(f"s3://{bucket}/index", DedupConfig(num_perm=64), spark, Storage())
