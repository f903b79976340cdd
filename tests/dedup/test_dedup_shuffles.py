"""Dedup's Spark path moves the texts through one shuffle and one sort, the write's: the decide step
signs the rows where they are read (chain_job.first_row_signatures), and the write places the
documents in their output buckets, sorted there, and gives them their decisions in its tasks
(spark_job.write_spark_buckets). Read from the plans Spark makes: which exchanges carry the `text`
column, how many sorts there are, and which joins broadcast."""

from __future__ import annotations

import random
import re

import pyarrow as pa
import pytest

from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN
from corpus_pipeline.dedup.chain_job import first_row_signatures
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.decisions import candidate_pairs, minhash_duplicates
from corpus_pipeline.dedup.small_decisions import decision_order
from corpus_pipeline.dedup.spark_job import bucket_order
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.exec.spark_read import broadcasts_by_measured_size, read_parts
from corpus_pipeline.engine.exec.spark_write import PART_COLUMN, bucketed, write_bucketed_parts
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark

_EXCHANGE = re.compile(r"^\(\d+\) Exchange\s*\nInput \[\d+\]: \[([^\]]*)\]\nArguments: (.*?), \[plan_id", re.MULTILINE)
# Not the session's spark.sql.shuffle.partitions (4): a shuffle into that many partitions by id
# would be taken for the bucket's own.
BUCKETS = 3


def _shuffled_columns(frame) -> list[set[str]]:
    """The columns each shuffle of `frame`'s plan carries. Expression ids are left out: the two
    branches of a union that read one input get ids of their own, and their exchanges, equal but
    for them, run as one (the second is Spark's ReusedExchange)."""
    plan = _plan(frame)
    shuffles = dict.fromkeys(re.sub(r"#\d+L?", "", f"{columns}|{how}") for columns, how in _EXCHANGE.findall(plan))
    return [{column.strip() for column in shuffle.partition("|")[0].split(",")} for shuffle in shuffles]


def _plan(frame) -> str:
    return frame.sparkSession._jvm.PythonSQLUtils.explainString(frame._jdf.queryExecution(), "formatted")


@pytest.fixture
def documents(tmp_path):
    rng = random.Random(3)
    words = [f"w{i}" for i in range(500)]
    docs = [
        {"id": f"d{i % 30}", "text": " ".join(rng.choices(words, k=80)), "file_path": f"crawl-{i}.warc.gz"}
        for i in range(40)  # ten ids repeated
    ]
    return sorted(write_documents_stage(docs, tmp_path / "in", parts=3).glob("part-*.parquet"))


def test_the_decide_step_shuffles_signatures_not_texts(spark, documents):
    dedup = DedupConfig()
    docs = read_parts(spark, [str(part) for part in documents], DOCUMENT_SCHEMA, Storage())
    _, carried = decision_order(dedup, docs.columns, with_index=False)
    exchanges = _shuffled_columns(first_row_signatures(docs, dedup, None, carried))
    assert exchanges, "the repeated ids are set apart by a shuffle"
    assert all("text" not in columns and "signature" in columns for columns in exchanges), exchanges


def test_signed_where_they_are_read_the_texts_never_reach_the_jvm(spark, documents):
    dedup, paths = DedupConfig(), [str(part) for part in documents]
    docs = read_parts(spark, paths, DOCUMENT_SCHEMA, Storage())
    _, carried = decision_order(dedup, docs.columns, with_index=False)

    def read(function, schema):
        return read_parts(spark, paths, DOCUMENT_SCHEMA, Storage(), None, function, schema)

    fused = first_row_signatures(docs, dedup, None, carried, read)
    apart = first_row_signatures(docs, dedup, None, carried)
    assert re.search(r"\btext#\d+", _plan(apart)) and not re.search(r"\btext#\d+", _plan(fused))
    assert sorted(map(tuple, fused.collect())) == sorted(map(tuple, apart.collect()))


def test_the_write_step_shuffles_and_sorts_the_texts_once(spark, documents):
    docs = read_parts(spark, [str(part) for part in documents], DOCUMENT_SCHEMA, Storage())
    written = bucketed(docs, BUCKETS, bucket_order(docs.columns), column=BUCKET_COLUMN)
    with_text = [columns for columns in _shuffled_columns(written) if "text" in columns]
    assert len(with_text) == 1, _shuffled_columns(written)
    assert len(re.findall(r"^\(\d+\) Sort\b", _plan(written), re.MULTILINE)) == 1, _plan(written)


def test_dedup_broadcasts_only_what_adaptive_execution_measured(spark):
    """The planner takes read_parts' frames for a few bytes (a range of row-group numbers), so its
    own broadcasts would carry the corpus's signature rows to the driver; within dedup's steps it
    plans none, and adaptive execution broadcasts a side it measured under 10 MB."""
    static, adaptive = "spark.sql.autoBroadcastJoinThreshold", "spark.sql.adaptive.autoBroadcastJoinThreshold"
    before = spark.conf.get(static)
    with broadcasts_by_measured_size(spark):
        assert (spark.conf.get(static), spark.conf.get(adaptive)) == ("-1", "10MB")
        docs = spark.range(1000).selectExpr("cast(id as string) as id", "repeat('x', 500) as text")
        joined = docs.join(docs.select("id"), "id")
        plan = joined.sparkSession._jvm.PythonSQLUtils.explainString(joined._jdf.queryExecution(), "simple")
        assert "BroadcastHashJoin" not in plan and "SortMergeJoin" in plan
    assert spark.conf.get(static) == before and spark.conf.get(adaptive, None) is None


def test_each_write_partition_is_one_bucket_sorted_by_id_first(spark, documents):
    """Adaptive execution coalesces the tiny shuffles here but not the buckets' (REPARTITION_BY_NUM),
    so the sort needs no bucket in front, where it tied every comparison on the sort's prefix."""
    docs = read_parts(spark, [str(part) for part in documents], DOCUMENT_SCHEMA, Storage())
    written = bucketed(docs, BUCKETS, bucket_order(docs.columns), column=BUCKET_COLUMN)
    assert re.search(
        r"^\(\d+\) Sort\s*\nInput \[\d+\]: \[[^\]]*\]\nArguments: \[id#\d+ ASC NULLS LAST", _plan(written), re.M
    )
    buckets = written.rdd.mapPartitions(lambda rows: [sorted({row[BUCKET_COLUMN] for row in rows})]).collect()
    assert len(buckets) == BUCKETS and all(len(found) <= 1 for found in buckets), buckets


def test_a_bucket_that_comes_twice_in_a_partition_is_refused_not_half_written(spark, tmp_path):
    rows = spark.createDataFrame([("a", 0), ("b", 1), ("c", 0)], f"id string, {PART_COLUMN} int").coalesce(1)
    previous = spark.conf.get("spark.sql.execution.arrow.maxRecordsPerBatch")
    spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", "1")  # a row a batch: 0, 1, 0
    try:
        with pytest.raises(Exception, match="bucket 0 of 2 comes twice in one partition"):
            write_bucketed_parts(rows, str(tmp_path / "work"), "step", pa.schema([("id", pa.string())]), 2, Storage())
    finally:
        spark.conf.set("spark.sql.execution.arrow.maxRecordsPerBatch", previous)


def test_the_candidate_pairs_bucket_the_band_rows_in_python_not_in_a_sorted_window(spark):
    signatures = spark.createDataFrame(
        [(f"d{i}", bytes(range(4)) * 128) for i in range(6)], "id string, signature binary"
    )
    plan = _plan(candidate_pairs(signatures, bands=4, rows=32, tasks=3))
    assert not re.search(r"^\(\d+\) (Window|Sort)\b", plan, re.M), plan
    assert re.search(r"hashpartitioning\(key#\d+L?, 3\)", plan), plan
    pairs = sorted(map(tuple, candidate_pairs(signatures, bands=4, rows=32, tasks=3).collect()))
    assert pairs == [("d0", f"d{i}") for i in range(1, 6)] + [(f"d{i}", f"d{i + 1}") for i in range(1, 5)]


def test_the_minhash_readers_share_one_shuffle_of_the_signature_rows(spark):
    """The bands, the similarities' joins and the members' join read the survivors of the method
    before (an anti-join on id) alike, so those rows cross one shuffle, not one per reader."""
    rows = [(f"d{i}", bytes([i % 2]) * 512, f"2024-0{1 + i}") for i in range(8)]
    signed = spark.createDataFrame(rows, "id string, signature binary, date string").localCheckpoint()
    survivors = signed.join(spark.createDataFrame([("d0",)], "id string"), "id", "left_anti")
    found = minhash_duplicates(survivors, DedupConfig(), [("date", "desc"), ("id", "asc")], band_tasks=2)
    exchanges = {re.sub(r"#\d+L?", "", f"{columns}|{how}") for columns, how in _EXCHANGE.findall(_plan(found))}
    by_id = [shuffle for shuffle in exchanges if "signature" in shuffle and "hashpartitioning(id," in shuffle]
    assert len(by_id) == 1, exchanges
    assert sorted(found.select("id", "kept_id").collect()) == [("d1", "d7"), ("d2", "d6"), ("d3", "d7")] + [
        ("d4", "d6"),
        ("d5", "d7"),
    ]
