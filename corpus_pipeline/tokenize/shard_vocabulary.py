"""The tokenizer of a token-shard directory, set up once for every stage that writes shards
(tokenize, mix): checked, copied beside the shards, and what the shards need from it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.config import TokenizeConfig
from corpus_pipeline.tokenize.bpe import choose_dtype, file_sha256, load_tokenizer, token_id, vocab_size
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE
from corpus_pipeline.tokenize.train_stage import tokenizer_file


def resolve_tokenizer(stage: str, tokenizer: Path | None) -> tuple[Path, str]:
    """The tokenizer file (given, or in a train-tokenizer directory) and its sha256."""
    if tokenizer is None:
        raise ValueError(f"{stage} needs a tokenizer (--tokenizer FILE or a train-tokenizer directory)")
    path = tokenizer_file(tokenizer)
    if not path.exists():
        raise FileNotFoundError(f"tokenizer not found: {path}")
    return path, file_sha256(path)


@dataclass(frozen=True)
class ShardVocabulary:
    path: Path  # the copy beside the shards, which the tasks load
    sha256: str
    vocab: int
    dtype: np.dtype
    eod_id: int


def install_tokenizer(source: Path, sha256: str, settings: TokenizeConfig, work: Path) -> ShardVocabulary:
    tokenizer = load_tokenizer(str(source), sha256)  # the hash keys the per-process cache
    vocab = vocab_size(tokenizer)
    local = work / TOKENIZER_FILE
    if not local.exists() or file_sha256(local) != sha256:
        shutil.copyfile(source, local)
    return ShardVocabulary(
        local, sha256, vocab, choose_dtype(vocab, settings.dtype), token_id(tokenizer, settings.eod_token, str(source))
    )
