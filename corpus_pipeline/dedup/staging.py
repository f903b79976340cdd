"""Documents from elsewhere (a JSONL file, a test) written as a finished stage directory, so the
dedup stage reads them exactly as it reads an upstream stage's output."""

from __future__ import annotations

from pathlib import Path

from corpus_pipeline.engine.publish import publish_rows


def write_documents_stage(docs: list[dict], directory: Path, parts: int = 1, stage: str = "import") -> Path:
    """Rows (any subset of the document columns) -> `part-*.parquet` round-robin."""
    return publish_rows(directory, [docs[part::parts] for part in range(parts)], stage=stage)
