"""Shared by the pipeline tests on the loopback S3 server: the Spark workers get the server's AWS
variables, and what is under a run's prefix is checked against the manifests that name it."""

from __future__ import annotations

from conftest import object_keys

from corpus_pipeline.engine.store.stage_dir import read_success
from corpus_pipeline.storage import Storage

# What the driver writes beside a run's stage directories, each one object PUT whole.
# The report page carries the note of what we wrote beside it (storage/owned_files.py).
DRIVER_FILES = {"run_record.json", "gates.json", "report/index.html", "report/.index.html.corpus-pipeline.json"}


def unnamed_objects(s3_server, bucket: str, run_prefix: str) -> set[str]:
    """The objects of a run (`run_prefix` ends with '/') that neither a stage's manifest nor the
    driver's own files account for: what a reader could mistake for output."""
    keys = object_keys(s3_server, bucket, run_prefix)
    named = set(DRIVER_FILES)
    for stage in {key.rpartition("/")[0] for key in keys if key.endswith("/_SUCCESS")}:
        manifest = read_success(f"s3://{bucket}/{run_prefix}{stage}", storage=Storage())
        named |= {f"{stage}/_SUCCESS", *(f"{stage}/{key}" for key in manifest["files"].values())}
    return keys - named
