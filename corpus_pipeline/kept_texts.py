"""The kept texts of a file or a stage directory, read the way the pipeline reads them: crawl files
(WARC, ARC, WET) through extract, any dataset file (JSON lines, Parquet, CSV, text, MediaWiki
dumps; by content, compressed or not) through ingest, a stage directory through its kept parts.
Training data for the quality classifier and for the quality head come in through here, so a
format that `ingest` reads is a format they train on."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from corpus_pipeline.inputs import CRAWL_SUFFIXES


def read_kept_texts(path: str, text_unit: Literal["file", "block", "line"] = "file") -> Iterator[str]:
    """Every non-empty text `path` keeps, in order; `text_unit` is ingest's, for plain text."""
    from corpus_pipeline.extract.stage import ExtractStage
    from corpus_pipeline.ingest.config import IngestConfig
    from corpus_pipeline.ingest.stage import IngestStage
    from corpus_pipeline.stats import StageStats

    file = Path(path)
    if file.is_dir():
        parts = sorted(file.glob("part-*.parquet"))
        if not parts:
            raise FileNotFoundError(f"{path}: a directory without part-*.parquet (a stage directory's kept parts)")
        for part in parts:
            yield from read_kept_texts(str(part))
        return
    if not file.is_file():
        raise FileNotFoundError(f"training data not found: {path}")
    stage = ExtractStage() if file.name.endswith(CRAWL_SUFFIXES) else IngestStage(IngestConfig(text_unit=text_unit))
    stats = StageStats(stage.name)
    for row, verdict in stage.read(str(file), stats):
        if verdict is None and row.get("text"):
            yield row["text"]
