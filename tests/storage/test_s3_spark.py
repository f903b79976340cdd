"""extract on Spark local[2] from `s3://` objects: the executors read the objects themselves, with
the credentials a cluster gives them as `spark.executorEnv.*` (README: Reading from object storage)."""

from __future__ import annotations

import pytest
from conftest import executor_environment, html_page, write_warc
from s3_inputs import documents, logical_bytes, run_source, upload

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark


def test_extract_on_spark_reads_objects_as_the_local_runner_does(spark, s3_server, bucket, tmp_path):
    pages = []
    for number in range(4):
        body = f"<p>{f'Report {number} on the harbour works, in full. ' * 20}</p>"
        pages.append({"url": f"https://news{number}.example/", "payload": html_page(body).encode()})
    warcs = [write_warc(tmp_path / f"crawl-{f}.warc.gz", pages[f::2]) for f in range(2)]
    upload(s3_server, bucket, warcs, "crawl")
    with executor_environment(spark, s3_server.environment()):
        config = load_config(None, [])
        on_spark = run_stage("extract", [f"s3://{bucket}/crawl/"], tmp_path / "spark", config, SparkExecutor(spark))
    local = run_source("extract", [f"s3://{bucket}/crawl/"], tmp_path / "local")
    assert on_spark.stats.kept == local.stats.kept == 4
    assert documents(on_spark) == documents(local)


def test_dedup_and_tokenize_on_spark_read_and_write_a_bucket_as_the_local_runner_does(
    spark, s3_server, bucket, tmp_path
):
    """Spark only moves rows: its tasks read the parts and upload their commits through the storage
    layer (no hadoop-aws), so dedup and tokenize run bucket to bucket and write what they write
    locally."""
    pages = []
    for number in range(6):
        body = f"<p>{f'Minutes {number % 3} of the harbour board, taken in full. ' * 20}</p>"  # 3 pairs
        pages.append({"url": f"https://board{number}.example/", "payload": html_page(body).encode()})
    warcs = [write_warc(tmp_path / f"crawl-{f}.warc.gz", pages[f::2]) for f in range(2)]
    config = load_config(None, ["dedup.methods=[exact]", "train_tokenizer.vocab_size=300"])
    executor = SparkExecutor(spark)
    remote = f"s3://{bucket}"
    with executor_environment(spark, s3_server.environment()):
        run_stage("extract", [str(p) for p in warcs], f"{remote}/extract", config, executor)
        dedup = run_stage("dedup", f"{remote}/extract", f"{remote}/dedup", config, executor)
        run_stage("train-tokenizer", f"{remote}/dedup", f"{remote}/tokenizer", config, executor)
        tokens = run_stage(
            "tokenize", f"{remote}/dedup", f"{remote}/tokens", config, executor, tokenizer=f"{remote}/tokenizer"
        )
    run_stage("extract", [str(p) for p in warcs], tmp_path / "extract", config, executor)
    local = run_stage("dedup", tmp_path / "extract", tmp_path / "dedup", config, executor)
    run_stage("train-tokenizer", tmp_path / "dedup", tmp_path / "tokenizer", config, executor)
    local_tokens = run_stage(
        "tokenize", tmp_path / "dedup", tmp_path / "tokens", config, executor, tokenizer=tmp_path / "tokenizer"
    )
    assert dedup.stats.kept == local.stats.kept == 3 and dedup.stats.dropped == local.stats.dropped
    assert tokens.stats.kept == local_tokens.stats.kept == 3
    remote_files = logical_bytes(f"{remote}/tokens")
    for name in ("manifest.json", "tokenizer.json", "tokens_00000.bin", "tokens_00000.idx"):
        assert remote_files[name] == (tmp_path / "tokens" / name).read_bytes(), name
    assert logical_bytes(f"{remote}/dedup") == {
        name: path.read_bytes()
        for name, path in stage_files(tmp_path / "dedup", storage=Storage()).items()
        if name not in ("_stats.json", "_SUCCESS") and not name.startswith("_tasks/")
    }
