"""`corpus-pipeline run` with data_root on a store (the loopback S3 server): WARC objects in, every
stage directory, the gates, the run record, the report and the token shards out as objects, the
shards byte for byte those of the same run on local files; nothing under the prefix that no
manifest names. And what a run on a store refuses before it starts (crawl, mix, training)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import executor_environment
from pipeline_inputs import small_config, write_demo_warc
from store_checks import unnamed_objects

from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.pipeline.context import RunPlan
from corpus_pipeline.pipeline.on_store import NotOnStoreError
from corpus_pipeline.pipeline.runner import run_pipeline
from corpus_pipeline.storage import Storage
from corpus_pipeline.tokenize.manifest import read_manifest

SHARD_SUFFIXES = (".bin", ".idx")


def _shards(tokens) -> dict[str, bytes]:
    storage = Storage()
    files = stage_files(tokens, storage=Storage())
    return {name: storage.read_bytes(str(where)) for name, where in files.items() if name.endswith(SHARD_SUFFIXES)}


@pytest.mark.spark
def test_a_whole_run_from_warc_objects_to_shards_in_the_bucket(spark, s3_server, bucket, tmp_path):
    warc = write_demo_warc(tmp_path / "incoming" / "site.warc.gz", seed=0)
    # The same folder name in both runs: it becomes the documents' `dump` column.
    s3_server.client().upload_file(str(warc), bucket, "crawl/incoming/site.warc.gz")
    root = f"s3://{bucket}/root"
    on_store = small_config(root, f"pipeline.inputs=[s3://{bucket}/crawl/incoming/]")

    with executor_environment(spark, s3_server.environment()):
        result = run_pipeline(RunPlan.from_config(on_store, "local"), log=lambda line: None)

    assert result.status == "succeeded", result.record.data["reason"]
    run_dir = f"{root}/runs/demo"
    assert result.context.tokens == f"{run_dir}/tokens"
    storage = Storage()
    record = json.loads(storage.read_bytes(f"{run_dir}/run_record.json"))
    assert record["status"] == "succeeded" and record["run_dir"] == run_dir
    statuses = {step["step"]: step["status"] for step in record["steps"]}
    assert statuses["tokenize"] == statuses["report"] == "ran"
    assert record["steps"][0]["status"] == "not needed"  # crawl: the WARC objects were given
    gates = json.loads(storage.read_bytes(f"{run_dir}/gates.json"))
    assert gates["passed"] and gates["corpus"].startswith(f"{run_dir}/")
    page = storage.read_bytes(f"{run_dir}/report/index.html").decode()
    assert "Run report: demo" in page and run_dir in page
    assert unnamed_objects(s3_server, bucket, "root/runs/demo/") == set()

    manifest = read_manifest(result.context.tokens, storage=Storage())
    shards = _shards(result.context.tokens)
    assert manifest["documents"] == result.record.data["conservation"]["output_documents"] > 0
    assert len(shards) == 2 * len(manifest["shards"])

    local = small_config(tmp_path, f"pipeline.inputs=[{tmp_path / 'incoming'}]")
    reference = run_pipeline(RunPlan.from_config(local, "local"), log=lambda line: None)
    assert reference.status == "succeeded"
    tokens = Path(reference.context.tokens)
    assert shards == {p.name: p.read_bytes() for p in sorted(tokens.iterdir()) if p.name.endswith(SHARD_SUFFIXES)}

    again = run_pipeline(RunPlan.from_config(on_store, "local"), log=lambda line: None)  # starts no Spark job
    statuses = {step["step"]: step["status"] for step in again.record.data["steps"]}
    assert [statuses[s] for s in ("extract", "dedup", "tokenize")] == ["reused"] * 3
    assert again.record.data["attempt"] == 2 and _shards(again.context.tokens) == shards


def test_a_run_on_a_store_refuses_to_train_before_it_starts():
    inputs = "pipeline.inputs=[s3://no-such-bucket/crawl/]"
    config = small_config("s3://no-such-bucket/root", inputs, "pipeline.train_config=configs/train_tiny.yaml")
    with pytest.raises(NotOnStoreError, match="pipeline.train_config") as refused:
        run_pipeline(RunPlan.from_config(config, "local"), log=lambda line: None)
    assert "s3://no-such-bucket/root/runs/demo" in str(refused.value)
