"""Helpers of the storage tests: put local files into the loopback bucket, run a source stage, read
what it kept in a form that does not depend on where the input lived."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.engine.local import LocalExecutor
from corpus_pipeline.engine.run import run_stage


def upload(server, bucket: str, files: list[Path], prefix: str) -> list[str]:
    client = server.client()
    for path in files:
        client.upload_file(str(path), bucket, f"{prefix}/{path.name}")
    return [f"s3://{bucket}/{prefix}/{path.name}" for path in files]


def run_source(stage: str, inputs: list[str], output: Path, *overrides: str) -> StageResult:
    return run_stage(stage, inputs, output, load_config(None, list(overrides)), LocalExecutor())


def documents(result: StageResult) -> list[dict]:
    """The kept rows by id, without `file_path` (a local path on one side, a URI on the other)."""
    rows = pq.read_table(result.output).drop_columns(["file_path"]).to_pylist()
    return sorted(rows, key=lambda row: (row["id"], row["warc_offset"] or 0))
