"""Dedup's Spark path moves the texts through one shuffle and one sort, the write's: the decide step
signs the rows where they are read (chain_job.first_row_signatures), and the write places the
documents in their output buckets, sorted there, and gives them their decisions in its tasks
(spark_job.write_spark_buckets). Read from the plans Spark makes: which exchanges carry the `text`
column, how many sorts there are, and which joins broadcast."""

from __future__ import annotations

import random
import re

import pytest

from corpus_pipeline.dedup.bucket_writer import BUCKET_COLUMN
from corpus_pipeline.dedup.chain_job import first_row_signatures
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.small_decisions import decision_order
from corpus_pipeline.dedup.spark_job import bucket_order
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.exec.spark_read import broadcasts_by_measured_size, read_parts
from corpus_pipeline.engine.exec.spark_write import bucketed
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
