"""Documents from elsewhere (a JSONL file, a test) written as a finished stage directory, so the
dedup stage reads them exactly as it reads an upstream stage's output."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from corpus_pipeline import __version__
from corpus_pipeline.document import DOCUMENT_SCHEMA, empty_document
from corpus_pipeline.engine.stage_dir import SUCCESS
from corpus_pipeline.engine.task_output import part_name


def write_documents_stage(docs: list[dict], directory: Path, parts: int = 1, stage: str = "import") -> Path:
    """Rows (any subset of the document columns) -> `part-*.parquet` round-robin, then `_SUCCESS`
    whose fingerprint hashes the rows, so changed documents are a new input."""
    directory.mkdir(parents=True, exist_ok=True)
    rows = [empty_document(**doc) for doc in docs]
    for part in range(parts):
        table = pa.Table.from_pylist(rows[part::parts], schema=DOCUMENT_SCHEMA)
        pq.write_table(table, directory / f"{part_name(part)}.parquet")
    digest = hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()
    success = {"stage": stage, "fingerprint": digest, "version": __version__}
    (directory / SUCCESS).write_text(json.dumps(success) + "\n", encoding="utf-8")
    return directory
