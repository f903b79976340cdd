"""Shared by the mix tests: real English and Chinese documents labelled with a source, a domain, a
quality score and a duplicate-cluster size (ingest and dedup would set them), in finished stage
directories, and one small tokenizer trained on them (once per session)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from stage_fixtures import real_documents, write_stage

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.document import DOCUMENT_SCHEMA
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.tokenize.indexed_dataset import read_index

__all__ = ["labelled_documents", "mix_config", "read_output", "tokenizer_path", "write_labelled"]

SCHEMA = DOCUMENT_SCHEMA.append(pa.field("quality_score", pa.float64())).append(
    pa.field("dup_cluster_size", pa.int64())
)


def labelled_documents(english: int = 60, chinese: int = 40) -> list[dict]:
    """English news split into two sources (web, news), Chinese People's Daily as `daily`; every
    fourth document scores 0.9 (the top tier), every fifth was kept from a cluster of 3 copies."""
    docs = real_documents(english=english, chinese=chinese)
    for number, doc in enumerate(docs):
        source = "daily" if doc["language"] == "zh" else ("web" if number % 2 else "news")
        doc.update(source=source, domain="web" if source == "web" else "news")
        doc["quality_score"] = 0.9 if number % 4 == 0 else 0.3
        doc["dup_cluster_size"] = 3 if number % 5 == 0 else 1
    return docs


def write_labelled(directory: Path, docs: list[dict], parts: int = 3) -> Path:
    return write_stage(directory, docs, parts=parts, schema=SCHEMA)


def mix_config(task_rows: int = 5_000, **mix) -> PipelineConfig:
    return PipelineConfig.model_validate(
        {
            "engine": {"task_rows": task_rows},
            "train_tokenizer": {"vocab_size": 2_000},
            # Small shards, so the output has several and each must hold every source.
            "tokenize": {"max_chunk_chars": 1_000, "shard_bytes": 16_000},
            "mix": mix,
        }
    )


@pytest.fixture(scope="session")
def tokenizer_path(tmp_path_factory) -> Path:
    corpus = write_labelled(tmp_path_factory.mktemp("mix_corpus") / "docs", labelled_documents())
    directory = tmp_path_factory.mktemp("mix_tokenizer") / "tokenizer"
    return run_stage("train-tokenizer", corpus, directory, mix_config(), LocalExecutor()).output / "tokenizer.json"


def read_output(directory: Path) -> tuple[pa.Table, np.ndarray, dict]:
    """documents.parquet, every shard's .idx sequence lengths in manifest order, and the manifest."""
    manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
    lengths = [np.array(read_index(directory / f"{shard['name']}.idx").lengths) for shard in manifest["shards"]]
    return pq.read_table(directory / "documents.parquet"), np.concatenate([np.zeros(0, np.int32), *lengths]), manifest
