"""Documents from elsewhere (a JSONL file, a test) written as a finished stage directory, so the
dedup stage reads them exactly as it reads an upstream stage's output."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.whole_corpus import publish_rows


def write_documents_stage(
    docs: list[dict], directory: Path, parts: int = 1, stage: str = "import", schema: pa.Schema = DOCUMENT_SCHEMA
) -> Path:
    """Rows (any subset of `schema`'s columns: the document's, and a stage's signals) ->
    `part-*.parquet` round-robin."""
    return publish_rows(directory, [docs[part::parts] for part in range(parts)], schema=schema, stage=stage)
