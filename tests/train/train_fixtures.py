"""Token shards made by the pipeline's own stages from real English and Chinese text (People's Daily,
ABC news), once per session, and a training config small enough for a 2-core CPU."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from stage_fixtures import real_documents, write_stage

from corpus_pipeline.config import PipelineConfig
from corpus_pipeline.engine.exec.local import LocalExecutor
from corpus_pipeline.stage_runner import run_stage
from corpus_pipeline.train.config import TrainConfig, load_train_config

__all__ = ["make_shards", "one_thread", "shards_dir", "tiny_config", "tokenizer_file"]

# 300 ids, the smallest vocabulary the tokenizer stage allows (256 bytes + specials + merges): the
# first loss is ln(300) = 5.70 nats against a unigram entropy of 4.75, so a 30% fall (to 3.99) needs
# the model to learn context, not only token frequencies. With 2,000 ids the first loss is 7.60
# against a unigram entropy of 6.96 and 200 CPU steps reach about 6.0 (21% down).
PIPELINE = PipelineConfig.model_validate({"train_tokenizer": {"vocab_size": 300}})


@pytest.fixture(autouse=True)
def one_thread():
    """Autouse in the modules that import it. Two torch threads on two cores shared with Spark's JVM
    and other test processes spin-wait: one thread is 2-6x faster here."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def tiny_config(*overrides: str) -> TrainConfig:
    """The tiny preset at sequence length 64: 0.47 M parameters with the 300-id vocabulary."""
    return load_train_config(None, ["model.seq_len=64", "tensorboard=false", "verify_shards=sizes", *overrides])


def make_shards(directory: Path, documents: list[dict], tokenizer: Path) -> Path:
    docs = write_stage(directory / "docs", documents)
    return run_stage("tokenize", docs, directory / "tokens", PIPELINE, LocalExecutor(), tokenizer=tokenizer).output


@pytest.fixture(scope="session")
def tokenizer_file(tmp_path_factory) -> Path:
    work = tmp_path_factory.mktemp("train_tokenizer")
    docs = write_stage(work / "docs", real_documents(english=300, chinese=300))
    return run_stage("train-tokenizer", docs, work / "tokenizer", PIPELINE, LocalExecutor()).output / "tokenizer.json"


@pytest.fixture(scope="session")
def shards_dir(tmp_path_factory, tokenizer_file) -> Path:
    documents = real_documents(english=300, chinese=300)
    return make_shards(tmp_path_factory.mktemp("train_shards"), documents, tokenizer_file)
