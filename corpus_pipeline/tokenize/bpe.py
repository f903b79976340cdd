"""The tokenizer: byte-level BPE built, trained and loaded with HF `tokenizers`.

Special tokens come first, so their ids do not depend on the training data: <|endoftext|> is 0,
<|pad|> is 1, then the configured reserved tokens. Training is deterministic: the same texts give a
byte-identical tokenizer.json whatever their order or the number of threads (the trainer counts
words, then breaks ties between equally frequent pairs by their ids; tests/tokenize/test_bpe.py
checks it).
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from corpus_pipeline.storage import local_files
from corpus_pipeline.tokenize.config import TrainTokenizerConfig
from corpus_pipeline.tokenize.pretokenize import pre_tokenizer

EOD_TOKEN = "<|endoftext|>"
PAD_TOKEN = "<|pad|>"
_BYTE_SYMBOLS = 256
UINT16_IDS = 2**16


class TokenizerError(ValueError):
    """A tokenizer that cannot be used as asked (missing token, vocabulary too large for the dtype)."""


def special_tokens(config: TrainTokenizerConfig) -> list[str]:
    tokens = [EOD_TOKEN, PAD_TOKEN, *config.reserved_tokens]
    tokens += [f"<|reserved_{i}|>" for i in range(config.reserved_slots)]
    duplicates = sorted({t for t in tokens if tokens.count(t) > 1})
    if duplicates:
        raise TokenizerError(f"special tokens listed twice: {duplicates}")
    return tokens


def new_tokenizer(split_cjk: bool = True):
    from tokenizers import Tokenizer, decoders, models

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizer(split_cjk)
    tokenizer.decoder = decoders.ByteLevel()
    return tokenizer


def train_bpe(text_batches: Iterable[list[str]], config: TrainTokenizerConfig):
    """Train on batches of texts (streamed: only the trainer's word counts stay in memory)."""
    from tokenizers import pre_tokenizers, trainers

    specials = special_tokens(config)
    if config.vocab_size < _BYTE_SYMBOLS + len(specials):
        raise TokenizerError(
            f"vocab_size {config.vocab_size} leaves no room for merges: the 256 byte symbols and "
            f"{len(specials)} special tokens already take {_BYTE_SYMBOLS + len(specials)}"
        )
    tokenizer = new_tokenizer(config.split_cjk)
    trainer = trainers.BpeTrainer(
        vocab_size=config.vocab_size,
        min_frequency=config.min_frequency,
        special_tokens=specials,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(text_batches, trainer)
    return tokenizer


def save_tokenizer(tokenizer, path: Path) -> str:
    """Write atomically (a reader never sees half a file); returns the file's sha256."""
    data = tokenizer.to_str(pretty=True).encode("utf-8")
    local_files.put_bytes(path, data)
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path, chunk: int = 8 * 2**20) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while block := stream.read(chunk):
            digest.update(block)
    return digest.hexdigest()


# Every tokenizer loaded in this process with its sha256 known, by that sha256, however it came (a
# file, a copy of it, a task's JSON): a run asks for its tokenizer in the preflight, the tokenize task
# and the report, and loads it once (0.03 CPU s a load for the 32k-token one of the end-to-end
# benchmark).
_BY_SHA256: dict[str, object] = {}


@functools.lru_cache(maxsize=4)
def load_tokenizer(path: str, sha256: str | None = None):
    """One load per process and file (Spark's Python workers keep it across tasks); pass the file's
    sha256 so that a file rewritten in place is loaded again, and a tokenizer already loaded with
    that sha256 is not loaded twice.

    Special tokens written in a document's text are encoded as the text they are, never as the
    special token: a page quoting "<|endoftext|>" must not end its document early.
    """
    from tokenizers import Tokenizer

    if sha256 in _BY_SHA256:
        return _BY_SHA256[sha256]
    if not os.path.exists(path):
        raise FileNotFoundError(f"tokenizer not found: {path}")
    try:
        tokenizer = Tokenizer.from_file(path)
    except Exception as error:  # tokenizers raises a bare Exception on malformed JSON
        raise TokenizerError(f"{path} is not a tokenizers tokenizer.json: {error}") from None
    tokenizer.encode_special_tokens = True
    if sha256 is not None:
        _BY_SHA256[sha256] = tokenizer
    return tokenizer


def tokenizer_from_json(text: str, sha256: str):
    """`load_tokenizer` for a tokenizer handed over as its JSON (a Spark task's job), once per
    process and sha256."""
    from tokenizers import Tokenizer

    if sha256 not in _BY_SHA256:
        tokenizer = Tokenizer.from_str(text)
        tokenizer.encode_special_tokens = True  # as load_tokenizer: quoted special tokens stay text
        _BY_SHA256[sha256] = tokenizer
    return _BY_SHA256[sha256]


def token_id(tokenizer, token: str, path: str) -> int:
    found = tokenizer.token_to_id(token)
    if found is None:
        raise TokenizerError(f"{path} has no token {token!r}: set tokenize.eod_token to one it has")
    return found


def choose_dtype(vocab_size: int, requested: str = "auto") -> np.dtype:
    """uint16 when every id fits (vocab_size <= 65,536), int32 otherwise; a forced dtype too small
    for the vocabulary is refused, since ids would wrap around silently."""
    fits_uint16 = vocab_size <= UINT16_IDS
    if requested == "auto":
        return np.dtype(np.uint16 if fits_uint16 else np.int32)
    if requested == "uint16" and not fits_uint16:
        raise TokenizerError(
            f"a vocabulary of {vocab_size:,} ids does not fit uint16 (at most {UINT16_IDS:,}); "
            "use tokenize.dtype=int32 or auto"
        )
    if requested not in ("uint16", "int32"):
        raise TokenizerError(f"unsupported token dtype {requested!r}: expected auto, uint16 or int32")
    return np.dtype(requested)


def vocab_size(tokenizer) -> int:
    """One more than the largest id: what every token id must stay under (a foreign tokenizer's
    added tokens need not be contiguous with its vocabulary)."""
    return max(tokenizer.get_vocab(with_added_tokens=True).values()) + 1
