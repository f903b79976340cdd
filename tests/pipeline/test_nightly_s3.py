"""The nightly with data_root on a store (the loopback S3 server): a first night publishes; the
second crashes between its snapshot's commit and the pointer write, and a reader meanwhile resolves
CURRENT to the first snapshot and reads it whole; the rerun reuses the night's stages and
publishes; what is left under the prefix is only what a manifest, a snapshot or the driver names."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from conftest import executor_environment, object_keys
from pipeline_inputs import small_config, write_demo_warc
from store_checks import unnamed_objects

from corpus_pipeline import exit_codes
from corpus_pipeline.dedup.index import published_folders
from corpus_pipeline.pipeline import snapshots
from corpus_pipeline.pipeline.nightly import run_nightly
from corpus_pipeline.storage import Storage

pytestmark = pytest.mark.spark


def _read_snapshot(corpus: str) -> tuple[snapshots.Snapshot, int]:
    """What a reader does: resolve CURRENT, then read every document part the snapshot lists."""
    storage = Storage()
    snapshot = snapshots.current_snapshot(corpus, storage)
    rows = sum(pq.read_table(storage.parquet_source(part)).num_rows for part in snapshot.document_parts())
    return snapshot, rows


def _history(root: str) -> list[dict]:
    return [json.loads(line) for line in Storage().read_bytes(f"{root}/nightly/history.jsonl").splitlines()]


def test_a_crash_before_the_pointer_write_leaves_the_previous_snapshot_and_the_rerun_publishes(
    spark, s3_server, bucket, tmp_path, monkeypatch
):
    client = s3_server.client()
    root, corpus = f"s3://{bucket}/root", f"s3://{bucket}/root/corpus"
    config = small_config(root)  # nightly.inputs: <data_root>/incoming, here s3://.../root/incoming
    client.upload_file(str(write_demo_warc(tmp_path / "night-1.warc.gz", seed=0)), bucket, "root/incoming/n1.warc.gz")

    def night() -> int:
        with executor_environment(spark, s3_server.environment()):
            return run_nightly(config, "local", log=lambda line: None)

    assert night() == exit_codes.SUCCESS
    first, first_rows = _read_snapshot(corpus)
    assert first.info["documents"] == first_rows > 0
    assert [name.split("|")[0] for name in first.processed_inputs()] == [f"s3://{bucket}/root/incoming/n1.warc.gz"]

    client.upload_file(str(write_demo_warc(tmp_path / "night-2.warc.gz", seed=1)), bucket, "root/incoming/n2.warc.gz")

    def crash(storage, uri, target):
        raise RuntimeError("crash injected before the pointer write")

    with monkeypatch.context() as patched:
        patched.setattr(Storage, "write_pointer", crash)
        assert night() == exit_codes.ERROR

    # The crashed night wrote its snapshot object: CURRENT still names the first, which reads whole.
    assert len(object_keys(s3_server, bucket, "root/corpus/snapshots/")) == 2
    seen, seen_rows = _read_snapshot(corpus)
    assert seen.info == first.info and seen_rows == first_rows
    crashed = _history(root)[-1]
    assert crashed["status"] == "failed" and "crash injected" in crashed["reason"]

    assert night() == exit_codes.SUCCESS

    second, second_rows = _read_snapshot(corpus)
    run_id = crashed["run_id"]
    assert second.info["previous"] == first.name
    assert [i["run_id"] for i in second.info["increments"]] == [first.info["increments"][0]["run_id"], run_id]
    assert second.info["documents"] == second_rows > first_rows
    record = json.loads(Storage().read_bytes(f"{root}/runs/{run_id}/run_record.json"))
    assert record["tokenizer"] == first.tokenizer  # one vocabulary for every increment
    assert len({i["tokenizer_sha256"] for i in second.info["increments"]}) == 1
    statuses = {step["step"]: step["status"] for step in record["steps"]}
    assert [statuses[s] for s in ("extract", "dedup", "tokenize")] == ["reused"] * 3  # resumed, not redone
    assert record["attempt"] == 2 and record["nightly"]["published"] is True
    # The index on the store holds both published increments, the first before the second ran.
    assert len(published_folders(f"{root}/index", storage=Storage())) == 2
    assert unnamed_objects(s3_server, bucket, "root/index/published/") == set()
    assert record["nightly"]["retired_snapshots"] != []  # the crashed night's orphan

    # Left under the prefix: the pointer, the two snapshots of CURRENT's line, the history, the
    # inputs, and in each run only what its manifests and its driver name.
    snapshots = {f"snapshots/{s.name}.json" for s in (first, second)}
    assert object_keys(s3_server, bucket, "root/corpus/") == {"CURRENT", *snapshots}
    runs = {key.split("/")[0] for key in object_keys(s3_server, bucket, "root/runs/")}
    assert runs == {first.info["increments"][0]["run_id"], run_id}
    assert all(unnamed_objects(s3_server, bucket, f"root/runs/{run}/") == set() for run in runs)
    assert {key.split("/")[0] for key in object_keys(s3_server, bucket, "root/")} == {
        "corpus",
        "runs",
        "incoming",
        "nightly",
        "index",
    }
    assert object_keys(s3_server, bucket, "root/nightly/") == {"history.jsonl"}
    assert [entry["status"] for entry in _history(root)] == ["published", "failed", "published"]
    assert night() == exit_codes.NOTHING_NEW
