"""Dedup's Spark path in two materialized steps (engine/sub_steps.py, issue 35): a decide step whose
output is a stage directory of its own in dedup's work area, then the write. Every Spark job of the
stage is counted by one step or the other; a write that dies is rerun from the finished decide
step; the steps' outputs never reach the stage's directory, locally or in a bucket; and the bytes
are those of the driver's path."""

from __future__ import annotations

import json
import random
from unittest import mock

import pytest
from conftest import executor_environment
from dedup_runs import assert_same_bytes, decided_by_spark_jobs, run_dedup, run_dedup_without_spark

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.dedup import spark_job
from corpus_pipeline.dedup.config import DedupConfig
from corpus_pipeline.dedup.staging import write_documents_stage
from corpus_pipeline.engine.exec.spark import SparkExecutor
from corpus_pipeline.engine.store.layout import STEPS_DIR, WORK
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark

WORDS = [f"word{i}" for i in range(3000)]


def _documents(seed: int = 7) -> list[dict]:
    """40 documents, 10 of them near copies of others (a word changed) and one repeated paragraph:
    work for exact, MinHash and the paragraph method alike."""
    rng = random.Random(seed)
    footer = "Subscribe to our newsletter for the weekly harbour report and the tide tables."
    docs = []
    for number in range(30):
        body = " ".join(rng.choices(WORDS, k=120))
        docs.append({"id": f"d{number:03d}", "text": f"{body}\n\n{footer}", "language": "en"})
    for number in range(10):
        words = docs[number]["text"].split(" ")
        words[5] = "changed"
        docs.append({"id": f"n{number:03d}", "text": " ".join(words), "language": "en"})
    return docs


def _config(methods: tuple[str, ...] = ("exact", "minhash", "paragraph")) -> PipelineConfig:
    return PipelineConfig.model_validate({"dedup": {"methods": list(methods)}})


def test_the_spark_path_is_a_decide_and_a_write_step_that_count_every_job(spark, tmp_path):
    source = write_documents_stage(_documents(), tmp_path / "in", parts=2)
    # Issue 37 asks for 20 jobs at most with the default methods; 15 + 3 met it only with broadcasts
    # of rows that grow with the corpus (spark_read.broadcasts_by_measured_size). Without: 22 + 4;
    # 20 + 2 since the methods' drops are not materialized apart and the write gives the documents
    # their decisions in its tasks (write_task.py), with no join and no window; 13 + 2 since the
    # minhash members need no join, one shuffle serves the pairs' distinct and join, the gathered
    # verdicts are written in their buckets by the task that decides them, and minhash's readers
    # share one shuffle of the survivors.
    config = _config(DedupConfig().methods)
    context = spark.sparkContext
    group = "dedup in steps"
    context.setJobGroup(group, "dedup in steps")
    try:
        with decided_by_spark_jobs():
            result = run_dedup(source, tmp_path / "spark", config, spark)
    finally:
        context.setLocalProperty("spark.jobGroup.id", None)
    steps = json.loads((result.output / "_SUCCESS").read_text())["steps"]
    assert list(steps) == ["decide", "write"]
    assert not any(step["reused"] for step in steps.values())
    jobs = len(context.statusTracker().getJobIdsForGroup(group))
    assert sum(step["spark_jobs"] for step in steps.values()) == jobs <= 20, steps
    assert result.stats.dropped["minhash_duplicate"] == 10
    assert not any(STEPS_DIR in name for name in stage_files(result.output, Storage()))
    local = run_dedup_without_spark(source, tmp_path / "local", config)
    assert_same_bytes([result.output, local.output])


def test_a_write_that_dies_is_rerun_from_the_finished_decide_step(spark, tmp_path):
    source = write_documents_stage(_documents(seed=8), tmp_path / "in", parts=2)
    with decided_by_spark_jobs():
        with mock.patch.object(spark_job, "write_spark_buckets", side_effect=RuntimeError("the write died")):
            with pytest.raises(RuntimeError, match="the write died"):
                run_dedup(source, tmp_path / "out", _config(), spark)
        assert list(tmp_path.glob(f".out.inprogress-*/{STEPS_DIR}/decide/_SUCCESS")), "the decide step was lost"
        rerun = run_dedup(source, tmp_path / "out", _config(), spark)
    steps = json.loads((rerun.output / "_SUCCESS").read_text())["steps"]
    assert steps["decide"]["reused"] and steps["decide"]["spark_jobs"] == 0
    assert not steps["write"]["reused"]
    assert_same_bytes([rerun.output, run_dedup_without_spark(source, tmp_path / "local", _config()).output])


def test_in_a_bucket_a_write_that_dies_is_rerun_from_the_finished_decide_step(spark, s3_server, bucket, tmp_path):
    source = write_documents_stage(_documents(seed=10), tmp_path / "in", parts=2)
    remote, storage = f"s3://{bucket}/dedup", Storage()
    with executor_environment(spark, s3_server.environment()), decided_by_spark_jobs():
        with mock.patch.object(spark_job, "write_spark_buckets", side_effect=RuntimeError("the write died")):
            with pytest.raises(RuntimeError, match="the write died"):
                run_stage("dedup", source, remote, _config(), SparkExecutor(spark))
        kept = [uri for uri in storage.list_under(f"{remote}/{WORK}") if uri.endswith(f"{STEPS_DIR}/decide/_SUCCESS")]
        assert kept, "the decide step was lost"
        rerun = run_stage("dedup", source, remote, _config(), SparkExecutor(spark))
    steps = json.loads(storage.read_bytes(f"{remote}/_SUCCESS"))["steps"]
    assert steps["decide"]["reused"] and not steps["write"]["reused"]
    # The steps lived under the commit area, and nothing of them is left.
    assert not [uri for uri in storage.list_under(remote) if f"/{WORK}/" in uri or STEPS_DIR in uri]
    local = run_dedup_without_spark(source, tmp_path / "local", _config())
    remote_files = stage_files(remote, storage)
    for name, where in stage_files(local.output, storage).items():
        if name.endswith(".parquet"):
            assert storage.read_bytes(str(remote_files[name])) == where.read_bytes(), name
    assert rerun.stats.dropped == local.stats.dropped
