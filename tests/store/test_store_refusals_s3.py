"""The same refusals on a store: a prefix holding objects none of our manifests name, a bucket of
someone's objects, and a lease another command holds."""

from __future__ import annotations

import json
import socket
import time

from conftest import object_keys
from store_inputs import ingest, write_dataset

from corpus_pipeline.cli import EXIT_OK, EXIT_USAGE
from corpus_pipeline.exit_codes import LOCKED


def _objects(s3_server, bucket: str) -> dict[str, bytes]:
    client = s3_server.client()
    return {key: client.get_object(Bucket=bucket, Key=key)["Body"].read() for key in object_keys(s3_server, bucket, "")}


def _put(s3_server, bucket: str, objects: dict[str, bytes]) -> None:
    for key, body in objects.items():
        s3_server.client().put_object(Bucket=bucket, Key=key, Body=body)


def test_a_prefix_of_a_users_objects_is_refused_untouched(s3_server, bucket, tmp_path, capsys):
    _put(s3_server, bucket, {"precious/a/thesis.txt": b"chapter 1", "precious/b/data.csv": b"x,y\n"})
    before = _objects(s3_server, bucket)
    assert ingest([write_dataset(tmp_path / "a.jsonl")], f"s3://{bucket}/precious") == EXIT_USAGE
    error = capsys.readouterr().err
    assert "holds a/thesis.txt" in error  # the first of what it holds, named under the prefix
    assert _objects(s3_server, bucket) == before


def test_a_bucket_root_with_objects_is_refused_untouched(s3_server, bucket, tmp_path, capsys):
    _put(s3_server, bucket, {"top.txt": b"mine", "a/thesis.txt": b"chapter 1"})
    before = _objects(s3_server, bucket)
    assert ingest([write_dataset(tmp_path / "a.jsonl")], f"s3://{bucket}") == EXIT_USAGE
    assert "did not write" in capsys.readouterr().err
    assert _objects(s3_server, bucket) == before


def test_an_object_added_to_our_stage_prefix_survives_a_replacement_attempt(s3_server, bucket, tmp_path):
    dataset = write_dataset(tmp_path / "a.jsonl")
    output = f"s3://{bucket}/stage"
    assert ingest([dataset], output) == EXIT_OK
    _put(s3_server, bucket, {"stage/notes.md": b"about this stage"})
    before = _objects(s3_server, bucket)
    assert ingest([dataset], output, "--source", "renamed") == EXIT_USAGE
    assert _objects(s3_server, bucket) == before


def test_a_live_lease_of_another_host_exits_75_and_an_expired_one_is_taken_over(s3_server, bucket, tmp_path, capsys):
    dataset = write_dataset(tmp_path / "a.jsonl")
    output = f"s3://{bucket}/stage"
    lease = {"owner": "x", "host": f"not-{socket.gethostname()}", "pid": 1, "since": "2026-12-01T00:00:00Z"}
    _put(s3_server, bucket, {"stage/_lock.json": json.dumps({**lease, "expires": time.time() + 600}).encode()})
    assert ingest([dataset], output) == LOCKED
    assert f"not-{socket.gethostname()}" in capsys.readouterr().err
    assert object_keys(s3_server, bucket, "stage/") == {"_lock.json"}  # nothing written beside the lease
    _put(s3_server, bucket, {"stage/_lock.json": json.dumps({**lease, "expires": time.time() - 1}).encode()})
    assert ingest([dataset], output) == EXIT_OK
    assert "_lock.json" not in object_keys(s3_server, bucket, "stage/")  # released by its new holder
