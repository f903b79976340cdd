"""On Spark (local[2]): the same shards whatever the input partitioning, equal to the local executor's,
and the same tokenizer from the same sample."""

from __future__ import annotations

from pathlib import Path
from unittest import mock

import pyarrow.parquet as pq
import pytest
import shards_fixtures
from shards_fixtures import real_documents, small_config, write_stage

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.sharding import partition_keys
from corpus_pipeline.tokenize.train_stage import read_training_record

# Session fixtures shared by the tokenize tests (pytest finds them as module attributes).
corpus_dir = shards_fixtures.corpus_dir
tokenizer_path = shards_fixtures.tokenizer_path

pytestmark = pytest.mark.spark


@pytest.fixture
def one_partition_per_file(spark):
    """Spark packs small files into one split; a high open cost gives each file its own partition,
    so 2 and 7 input files really are 2 and 7 partitions."""
    previous = spark.conf.get("spark.sql.files.openCostInBytes")
    spark.conf.set("spark.sql.files.openCostInBytes", str(1 << 30))
    yield spark
    spark.conf.set("spark.sql.files.openCostInBytes", previous)


def output_files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("tokens_*"))} | {
        "manifest.json": (directory / "manifest.json").read_bytes()
    }


def test_shards_do_not_depend_on_partitioning_or_runner(tmp_path, one_partition_per_file, tokenizer_path):
    docs = real_documents(english=20, chinese=20)
    # 2 buckets, each rolled into several shards: the estimate (12 bytes/token) undercounts on purpose.
    config = small_config(shard_bytes=3_000, text_bytes_per_token=12.0)
    results = {}
    for parts in (2, 7):
        source = write_stage(tmp_path / f"in{parts}", docs if parts == 2 else docs[::-1], parts=parts)
        assert one_partition_per_file.read.parquet(str(source)).rdd.getNumPartitions() == parts
        results[parts] = run_stage(
            "tokenize",
            source,
            tmp_path / f"spark{parts}",
            config,
            SparkExecutor(one_partition_per_file),
            tokenizer=tokenizer_path,
        )
    results["local"] = run_stage(
        "tokenize", tmp_path / "in2", tmp_path / "local", config, LocalExecutor(), tokenizer=tokenizer_path
    )
    files = {key: output_files(result.output) for key, result in results.items()}
    assert len(files["local"]) > 2 * 4 + 1, "several shards"
    assert files[2] == files[7] == files["local"]
    counts = {key: sorted(pq.read_table(r.output / "token_counts").to_pylist(), key=str) for key, r in results.items()}
    assert counts[2] == counts[7] == counts["local"]
    assert results[7].stats.kept == len(docs) and results[7].stats.tasks == results["local"].stats.tasks


def test_one_bucket_that_fits_the_driver_is_written_there_under_the_spark_runner(
    tmp_path, one_partition_per_file, tokenizer_path
):
    docs = real_documents(english=10, chinese=10)
    config = small_config()  # 256 MiB shards: one bucket
    source = write_stage(tmp_path / "in", docs, parts=3)
    no_job = mock.patch("corpus_pipeline.tokenize.spark_jobs.tokenize_buckets", side_effect=AssertionError("a job"))
    with no_job:
        on_driver = run_stage(
            "tokenize",
            source,
            tmp_path / "spark",
            config,
            SparkExecutor(one_partition_per_file),
            tokenizer=tokenizer_path,
        )
    local = run_stage("tokenize", source, tmp_path / "local", config, LocalExecutor(), tokenizer=tokenizer_path)
    assert on_driver.stats.tasks == 1 and on_driver.stats.kept == len(docs)
    assert output_files(on_driver.output) == output_files(local.output)


def test_spark_trains_the_tokenizer_the_local_runner_trains(tmp_path, spark):
    source = write_stage(tmp_path / "in", real_documents(english=30, chinese=30), parts=3)
    config = PipelineConfig.model_validate(
        {"train_tokenizer": {"vocab_size": 800, "sample_bytes": 30_000, "language_weights": {"en": 1, "zh": 1}}}
    )
    spark_output = run_stage("train-tokenizer", source, tmp_path / "spark", config, SparkExecutor(spark)).output
    local_output = run_stage("train-tokenizer", source, tmp_path / "local", config, LocalExecutor()).output
    spark_result, local_result = (
        read_training_record(spark_output, storage=Storage()),
        read_training_record(local_output, storage=Storage()),
    )
    assert spark_result["sha256"] == local_result["sha256"]
    assert spark_result["sample"] == local_result["sample"]
    languages = spark_result["sample"]["languages"]
    assert 0 < languages["en"]["sample_docs"] < 30 and 0 < languages["zh"]["sample_docs"] < 30
    # Equal weights: about 15 KB of each language, whatever their shares of the corpus.
    assert abs(languages["en"]["sample_bytes"] - languages["zh"]["sample_bytes"]) < 10_000
    again = run_stage("train-tokenizer", source, tmp_path / "spark", config, SparkExecutor(spark))
    assert again.skipped and read_training_record(again.output, storage=Storage())["sha256"] == spark_result["sha256"]


def test_each_bucket_gets_a_partition_of_its_own(spark):
    from pyspark.sql import functions as F

    buckets = 7
    keys = F.array(*[F.lit(key) for key in partition_keys(buckets)])
    frame = spark.range(buckets * 3).select((F.col("id") % buckets).cast("int").alias("bucket"))
    frame = frame.withColumn("key", F.element_at(keys, F.col("bucket") + 1)).repartition(buckets, "key")
    placed = {
        (row.bucket, row.partition)
        for row in frame.select("bucket", F.spark_partition_id().alias("partition")).collect()
    }
    assert placed == {(bucket, bucket) for bucket in range(buckets)}
