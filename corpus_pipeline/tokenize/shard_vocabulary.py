"""The tokenizer of a token-shard directory, set up once for every stage that writes shards
(tokenize, mix): checked, copied beside the shards, and what the shards need from it."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus_pipeline.engine.whole_corpus import read_stage_bytes
from corpus_pipeline.storage import Storage, local_files
from corpus_pipeline.storage.locations import local_path
from corpus_pipeline.tokenize.bpe import choose_dtype, file_sha256, load_tokenizer, token_id, vocab_size
from corpus_pipeline.tokenize.config import TokenizeConfig
from corpus_pipeline.tokenize.manifest import TOKENIZER_FILE
from corpus_pipeline.tokenize.train_stage import tokenizer_file


def resolve_tokenizer(stage: str, tokenizer: Path | str | None, storage: Storage) -> tuple[Path, str]:
    """The tokenizer file (given, or in a train-tokenizer directory; an object is fetched to a local
    copy first) and its sha256."""
    if tokenizer is None:
        raise ValueError(f"{stage} needs a tokenizer (--tokenizer FILE or a train-tokenizer directory)")
    if local_path(tokenizer) is None:  # an object: fetched to a local copy
        tokenizer = fetch_tokenizer(str(tokenizer), storage)
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


def fetch_tokenizer(uri: str, storage: Storage) -> Path:
    """A tokenizer.json object, or the one of a train-tokenizer (or tokenize) stage on a store, as a
    local file named by its sha256 (a tokenizer is 1-3 MB: fetched whole, once per content)."""
    data = storage.read_bytes(uri) if uri.endswith(".json") else read_stage_bytes(uri, TOKENIZER_FILE, storage)
    folder = Path(tempfile.gettempdir()) / "corpus-pipeline-tokenizers"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(data).hexdigest()}.json"
    if not path.exists():
        local_files.put_bytes(path, data)
    return path


def install_tokenizer(source: Path, sha256: str, settings: TokenizeConfig, local: Path) -> ShardVocabulary:
    """`local`: where the copy goes (the stage's tokenizer.json)."""
    tokenizer = load_tokenizer(str(source), sha256)  # the hash keys the per-process cache
    vocab = vocab_size(tokenizer)
    if not local.exists() or file_sha256(local) != sha256:
        shutil.copyfile(source, local)
    return ShardVocabulary(
        local, sha256, vocab, choose_dtype(vocab, settings.dtype), token_id(tokenizer, settings.eod_token, str(source))
    )
