"""Finished stage directories for tests that start after the document stages (tokenize, train):
real English and Chinese documents (text_sources.py), written as a stage writes them; and where a
stage's directory, and a run's final corpus, are in a run directory."""

from __future__ import annotations

import math
from pathlib import Path

import pyarrow as pa
from text_sources import chinese_text, english_text

from corpus_pipeline import gates
from corpus_pipeline.document import DOCUMENT_SCHEMA, document_id, empty_document
from corpus_pipeline.engine.publish import publish_rows
from corpus_pipeline.engine.registry import stage_spec
from corpus_pipeline.storage import Storage


def stage_dir(run_dir: Path, name: str) -> Path:
    """Where stage `name` writes in `run_dir`, asked of the registry: a test never spells out a
    numbered directory, so a stage added to the registry moves no test."""
    return Path(run_dir) / stage_spec(name).directory


def final_corpus(run_dir: Path) -> Path:
    """The directory holding a run's final corpus: its last finished stage of documents (where a
    fused stage's documents went), as the gates find it."""
    return gates.final_corpus(Path(run_dir), Storage())[0]


def real_documents(english: int = 40, chinese: int = 40, lines_per_doc: int = 4) -> list[dict]:
    """Documents of consecutive lines of ABC news and of People's Daily."""
    sources = {"en": (english_text(), english), "zh": (chinese_text(), chinese)}
    docs = []
    for language, (source, count) in sources.items():
        lines = [line.strip() for line in source.splitlines() if line.strip()]
        for number in range(count):
            text = "\n".join(lines[number * lines_per_doc : (number + 1) * lines_per_doc])
            url = f"https://{language}.example/{number}"
            docs.append(empty_document(id=document_id(url, text), text=text, url=url, language=language))
    return docs


def write_stage(directory: Path, rows: list[dict], parts: int = 3, schema: pa.Schema = DOCUMENT_SCHEMA) -> Path:
    """A finished stage directory (parts, _stats.json, _SUCCESS) holding `rows`, as a stage writes it;
    `schema`: the document schema plus the signal columns a later stage reads."""
    per_part = max(1, math.ceil(len(rows) / parts))
    return publish_rows(
        directory, [rows[task * per_part : (task + 1) * per_part] for task in range(parts)], schema, stage="fixture"
    )
