"""Shared by the tokenize tests: finished stage directories of real English and Chinese documents,
and one small tokenizer trained on them (once per session)."""

from __future__ import annotations

from pathlib import Path

import pytest
from stage_fixtures import real_documents, write_stage

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage

__all__ = ["corpus_dir", "real_documents", "small_config", "tokenizer_path", "write_stage"]

SMALL_VOCAB = 2_000


def small_config(**tokenize) -> PipelineConfig:
    return PipelineConfig.model_validate(
        {"train_tokenizer": {"vocab_size": SMALL_VOCAB}, "tokenize": {"max_chunk_chars": 1_000, **tokenize}}
    )


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory) -> Path:
    return write_stage(tmp_path_factory.mktemp("corpus") / "docs", real_documents())


@pytest.fixture(scope="session")
def tokenizer_path(tmp_path_factory, corpus_dir) -> Path:
    directory = tmp_path_factory.mktemp("tokenizer") / "tokenizer"
    return (
        run_stage("train-tokenizer", corpus_dir, directory, small_config(), LocalExecutor()).output / "tokenizer.json"
    )
