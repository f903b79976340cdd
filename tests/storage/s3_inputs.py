"""Helpers of the storage tests: put local files into the loopback bucket, run a source stage, read
what it kept in a form that does not depend on where the input lived."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from corpus_pipeline.config import load_config
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.engine.lifecycle import StageResult
from corpus_pipeline.engine.store import object_stage
from corpus_pipeline.engine.store.stage_dir import stage_files
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.storage import Storage


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


def logical_bytes(uri: str) -> dict[str, bytes]:
    """Every logical file of a finished stage (but the stats, which hold wall seconds) -> its bytes."""
    storage = Storage()
    files = stage_files(uri, storage=Storage())
    return {name: storage.read_bytes(str(where)) for name, where in files.items() if name != "_stats.json"}


def task_uploads(monkeypatch) -> list[str]:
    """The names of the tasks that upload a commit from now on (a resumed run's work)."""
    uploads: list[str] = []
    upload_task = object_stage.upload_task

    def counted(storage, area, outputs, task, *rest):
        uploads.append(task)
        upload_task(storage, area, outputs, task, *rest)

    monkeypatch.setattr(object_stage, "upload_task", counted)
    return uploads
