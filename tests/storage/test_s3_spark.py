"""extract on Spark local[2] from `s3://` objects: the executors read the objects themselves, with
the credentials a cluster gives them as `spark.executorEnv.*` (README: Reading from object storage)."""

from __future__ import annotations

import pytest
from conftest import html_page, write_warc
from s3_inputs import documents, run_source, upload

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.run import run_stage
from corpus_pipeline.engine.spark import SparkExecutor

pytestmark = pytest.mark.spark


def test_extract_on_spark_reads_objects_as_the_local_runner_does(spark, s3_server, bucket, tmp_path):
    pages = []
    for number in range(4):
        body = f"<p>{f'Report {number} on the harbour works, in full. ' * 20}</p>"
        pages.append({"url": f"https://news{number}.example/", "payload": html_page(body).encode()})
    warcs = [write_warc(tmp_path / f"crawl-{f}.warc.gz", pages[f::2]) for f in range(2)]
    upload(s3_server, bucket, warcs, "crawl")
    # What `--conf spark.executorEnv.NAME=...` sets; a running context takes it for its next job.
    environment = spark.sparkContext.environment
    saved = dict(environment)
    environment.update(s3_server.environment())
    try:
        config = load_config(None, [])
        on_spark = run_stage("extract", [f"s3://{bucket}/crawl/"], tmp_path / "spark", config, SparkExecutor(spark))
    finally:
        environment.clear()
        environment.update(saved)
    local = run_source("extract", [f"s3://{bucket}/crawl/"], tmp_path / "local")
    assert on_spark.stats.kept == local.stats.kept == 4
    assert documents(on_spark) == documents(local)
